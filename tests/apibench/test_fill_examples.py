"""A complete call's example values give way to the task's (fill/examples.py), on the real APIZoo files:
"send an email to bob@example.com" kept APIZoo's 'alias@example.com' as if it were the task's value."""

from __future__ import annotations

import pytest

from gorilla_tui.check.validator import Validator
from gorilla_tui.fill.examples import replace_examples, shape_of
from gorilla_tui.fill.filler import fill
from gorilla_tui.pool.doc import load_jsonl, load_paths


@pytest.fixture(scope="module")
def zoo(apizoo):
    return {d.api_name: d for d in load_paths([apizoo], "apizoo").docs}


def test_the_tasks_values_replace_the_examples_of_their_shape(zoo) -> None:
    delete = zoo["Gmail API - Users.settings.sendAs.delete"]
    assert "sendAsEmail='alias@example.com'" in delete.call
    filled = fill(None, "remove the alias bob@example.com from my gmail", delete)  # no model call
    assert filled is not None
    method = "service.users().settings().sendAs().delete"
    assert filled.call == f"{method}(userId='user_id', sendAsEmail='bob@example.com').execute()"
    origins = {a.name: (a.value, a.origin) for a in filled.arguments}
    assert origins == {"userId": ("'user_id'", "doc"), "sendAsEmail": ("'bob@example.com'", "task")}
    assert {method: {"userId": "user_id", "sendAsEmail": "bob@example.com"}} in filled.calls
    # an entry of a dict literal is labelled by its key; a host name is no file name
    create = fill(None, "add bob@example.com as an alias and attach report.pdf",
                  zoo["Gmail API - Users.settings.sendAs.create"])  # fmt: skip
    assert create is not None and "'sendAsEmail': 'bob@example.com'" in create.call
    assert "'host': 'smtp.example.com'" in create.call and "report.pdf" not in create.call
    assert [a.origin for a in create.arguments].count("task") == 1
    # nothing of its shape in the task: every example value kept, listed as the doc's, never the task's
    kept = fill(None, "delete my gmail alias", delete)
    assert kept is not None and kept.call == delete.call
    assert {a.origin for a in kept.arguments} == {"doc"}


def test_the_filled_call_passes_the_check(zoo, apizoo) -> None:
    docs = load_paths([apizoo], "apizoo").docs
    delete = zoo["Gmail API - Users.settings.sendAs.delete"]
    filled = fill(None, "remove the alias bob@example.com from my gmail", delete)
    assert filled is not None
    validator = Validator(docs)
    assert validator.check(filled.call).kind == "valid"  # the person's own address, not the example's
    assert validator.check(delete.call).kind == "valid"
    # the example's value is no identity, but the argument still has to be given and the method exist
    assert validator.check(delete.call.replace(", sendAsEmail='alias@example.com'", "")).kind == "wrong_args"
    assert validator.check(filled.call.replace(".delete(", ".delet(")).kind != "valid"
    # a plain word ('full') is no made-up example: it stays the entry's own (bench/false_valid.py)
    get = next(d for d in docs if d.call.startswith("service.users().messages().get(") and "'full'" in d.call)
    assert validator.check(get.call).kind == "valid"
    assert validator.check(get.call.replace("'full'", "'f-ull'")).kind != "valid"


def test_hub_calls_and_calls_without_labelled_literals_are_left_alone(zoo, apibench) -> None:
    """The hubs' values name the model (their manifests do not set example_values); a REST line or a call
    whose arguments are names has nothing to replace."""
    hub = load_jsonl(apibench / "api" / "torchhub_api.jsonl", "torchhub").docs[0]
    assert replace_examples(hub, "classify cat.jpg with https://example.org/x.pt") is None
    assert fill(None, "classify cat.jpg", hub) is None
    rest = next(d for d in zoo.values() if d.call.startswith("GET "))
    assert replace_examples(rest, "list pods in namespace prod") is None
    assert [shape_of(x) for x in ("a@b.com", "smtp.example.com", "report.pdf", "2024-06-03", "me")] == [
        "email", "host", "path", "date", ""
    ]  # fmt: skip
