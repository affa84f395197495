"""The hand-written hub dev split (bench/data/hub_dev_tasks.toml): 200 TensorFlow Hub and 200 Hugging Face
tasks, labelled against the real APIBench pools, spread over the domains like the pools, and not copied
from the pools' descriptions. It lives in tests/apibench/ because it reads the pools of ../shared."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from functools import partial
from pathlib import Path

import pytest
import tomllib

from gorilla_tui.pool.apidoc import ApiDoc
from gorilla_tui.pool.doc import load_jsonl
from tests.conftest import REPO
from tests.word_runs import word_runs

FILE = REPO / "bench" / "data" / "hub_dev_tasks.toml"
DATA = tomllib.loads(FILE.read_text(encoding="utf-8"))
TASKS: list[dict] = DATA["task"]
HUBS = {"tensorflowhub": "tf", "huggingface": "hf"}
#: The longest run of consecutive words a task may share with a doc description (the issue: 8 or more
#: is a copy).
MAX_SHARED_RUN = 7


@pytest.fixture(scope="module")
def pools(apibench: Path) -> dict[str, list[ApiDoc]]:
    """The TensorFlow Hub and Hugging Face API pools, read by the real APIBench loader."""
    return {hub: load_jsonl(apibench / "api" / f"{hub}_api.jsonl", hub).docs for hub in HUBS}


#: Every run of MAX_SHARED_RUN + 1 consecutive words of a text (tests/word_runs.py).
_runs = partial(word_runs, n=MAX_SHARED_RUN + 1)


def test_the_file_parses_into_200_tasks_per_hub_with_unique_ids() -> None:
    assert Counter(t["hub"] for t in TASKS) == {"tensorflowhub": 200, "huggingface": 200}
    assert len({t["id"] for t in TASKS}) == len(TASKS) == 400
    for t in TASKS:
        assert set(t) == {"id", "hub", "domain", "task", "calls"}, t["id"]
        assert re.fullmatch(rf"{HUBS[t['hub']]}-\d{{3}}", t["id"]), t["id"]
        assert t["calls"] and len(set(t["calls"])) == len(t["calls"]), t["id"]
        sentences = re.findall(r"[.?!][\"')]*(?:\s|$)", t["task"])
        assert 1 <= len(sentences) <= 3, t["id"]
    assert len({t["task"] for t in TASKS}) == len(TASKS)  # no task asked twice


def test_the_unlabelled_routing_list_is_kept_for_the_bench_scripts() -> None:
    # bench/retrieval.py and bench/out_of_pool.py read DATA["tasks"] (20 plain requests, no labels).
    assert len(DATA["tasks"]) == 20 and all(isinstance(q, str) and q for q in DATA["tasks"])


def test_every_domain_and_call_is_in_the_pool_of_its_hub(pools: dict[str, list[ApiDoc]]) -> None:
    calls_of: dict[tuple[str, str], set[str]] = defaultdict(set)  # (hub, domain) -> its api_calls
    for hub, docs in pools.items():
        for d in docs:
            calls_of[(hub, d.domain)].add(d.api_call)
    for t in TASKS:
        assert (t["hub"], t["domain"]) in calls_of, f"{t['id']}: no domain {t['domain']!r} in {t['hub']}"
        every = set().union(*(c for (h, _), c in calls_of.items() if h == t["hub"]))
        missing = [c for c in t["calls"] if c not in every]
        assert not missing, f"{t['id']}: not an api_call of the {t['hub']} pool: {missing}"
        other = [c for c in t["calls"] if c not in calls_of[(t["hub"], t["domain"])]]
        assert not other, f"{t['id']}: no doc of domain {t['domain']!r} has {other}"


def test_tasks_are_spread_over_the_domains_like_the_pool(pools: dict[str, list[ApiDoc]]) -> None:
    for hub, docs in pools.items():
        per_domain = Counter(d.domain for d in docs)
        tasks = Counter(t["domain"] for t in TASKS if t["hub"] == hub)
        for domain, n in per_domain.items():
            share = 200 * n / len(docs)
            if n >= 3:
                assert tasks[domain] >= 2, (hub, domain)
            assert tasks[domain] <= max(2, share + 1) and tasks[domain] >= min(2, share) - 1, (
                hub,
                domain,
                tasks[domain],
                round(share, 2),
            )


def test_no_task_shares_8_consecutive_words_with_a_pool_description(pools: dict[str, list[ApiDoc]]) -> None:
    described = set().union(*(_runs(d.description) for docs in pools.values() for d in docs))
    probe = next(d.description for d in pools["huggingface"] if len(_runs(d.description)) > 3)
    assert _runs(f"Please help: {probe} Thanks.") & described  # the check does see a pasted description
    copied = {t["id"]: sorted(_runs(t["task"]) & described)[:1] for t in TASKS}
    assert {i: run for i, run in copied.items() if run} == {}
