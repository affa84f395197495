"""Everyday tasks typed in other languages, in the default setting, with and without query translation.

Run: python bench/translated.py [--shared ../shared] [--results DIR] [--report-only] [--no-write]

Tasks: bench/data/everyday_translated_tasks.toml (63 tasks of bench/everyday_tasks.toml written again by hand
in German, Spanish, French, Chinese and Japanese; each takes its source, labels and dev/test split from the
everyday task it names). The index is the default one, built as bench/everyday.py builds it (every source,
no hub named). Each task goes through `pipeline.ask` (embedded model, select mode, select by likelihood,
k = 5) twice: **translated** (settings.translate on, as shipped: a task that is not English and mostly
unknown to the index is put into English by the model, model/translate.py, and searched after the task;
the model scores the hits against the task as typed)
and **as typed** (settings.translate off: the multilingual dense side alone reads it, as before).
Right: the proposed doc meets the everyday task's label (bench/everyday.py is_right); hit@5: a right doc
is among the hits. Also counted: English tasks of the dev sets that would be translated (the decision rule,
retrieve/fit.py needs_translation), which should be none. Writes "Tasks in other languages" in
docs/benchmarks.md.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import tomllib

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import everyday  # noqa: E402
from _report import parser, publish  # noqa: E402
from everyday import pct  # noqa: E402

from gorilla_tui import services  # noqa: E402
from gorilla_tui.config import Settings  # noqa: E402

TITLE = "Tasks in other languages"
TASKS = ROOT / "bench" / "data" / "everyday_translated_tasks.toml"
LANGS = ("de", "es", "fr", "zh", "ja")
SETTINGS = ("translated", "as typed")
#: The hand-written English task sets: only counted (how many the rule, needs_translation, would translate).
ENGLISH = (
    ROOT / "bench" / "everyday_tasks.toml",
    ROOT / "bench" / "data" / "hub_dev_tasks.toml",
    ROOT / "bench" / "data" / "apizoo_dev_tasks.toml",
    ROOT / "tests" / "data" / "stdlib_tasks.toml",
)


def load_tasks(path: Path = TASKS) -> list[dict[str, Any]]:
    """The tasks of `path`, each merged with the everyday task it names (source, labels, split; `task` and
    `lang` its own). Raises ValueError for an unknown everyday id or language."""
    base = {t["id"]: t for t in everyday.load_tasks()}
    out = []
    for t in tomllib.loads(path.read_text(encoding="utf-8"))["task"]:
        if t["of"] not in base or t["lang"] not in LANGS:
            raise ValueError(f"{t['of']}: unknown everyday task or language {t['lang']!r}")
        out.append({**base[t["of"]], "task": t["task"], "lang": t["lang"], "id": f"{t['lang']}:{t['of']}"})
    return out


def english_tasks() -> list[str]:
    """The English tasks of the hand-written dev and labelled sets (ENGLISH)."""
    texts = []
    for path in ENGLISH:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        texts += [t.get("task") or t["query"] for t in data["task"]]
    return texts


def answer(pipeline: Any, task: dict[str, Any]) -> dict[str, Any]:
    """One task through pipeline.ask: right, hit@5, the translation and seconds."""
    t0 = time.perf_counter()
    proposal = pipeline.ask(task["task"])
    seconds = time.perf_counter() - t0
    chosen = next((h.doc for h in proposal.hits if h.doc.call.strip() == proposal.api_call.strip()), None)
    return {
        "id": task["id"],
        "lang": task["lang"],
        "split": task["split"],
        "source": task["source"],
        "right": everyday.is_right(task, chosen),
        "hit5": any(everyday.is_right(task, h.doc) for h in proposal.hits),
        "chosen": chosen.id if chosen else None,
        "translation": proposal.translation,
        "translate_s": round(proposal.timings.get("translate", 0.0), 3),
        "seconds": round(seconds, 3),
    }


def table(rows: dict[str, list[dict[str, Any]]], split: str) -> list[str]:
    """Right % and hit@5 % per language in both settings, for `split` ("all", "dev", "test")."""
    out = [
        "| language | n | right % translated | right % as typed | hit@5 % translated | hit@5 % as typed "
        "| translation p50 s |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, langs in [(x, (x,)) for x in LANGS] + [("**all**", LANGS)]:
        sel = {
            s: [r for r in rows[s] if r["lang"] in langs and split in ("all", r["split"])] for s in SETTINGS
        }
        if not sel["translated"]:
            continue
        tr, typed = sel["translated"], sel["as typed"]
        spent = [r["translate_s"] for r in tr if r["translation"]]
        out.append(
            f"| {name} | {len(tr)} | **{pct([r['right'] for r in tr]):.1f}** "
            f"| {pct([r['right'] for r in typed]):.1f} "
            f"| {pct([r['hit5'] for r in tr]):.1f} | {pct([r['hit5'] for r in typed]):.1f} "
            f"| {statistics.median(spent) if spent else 0:.2f} |"
        )
    return out


def main(argv: list[str] | None = None) -> int:
    """Answer every task in both settings, print the tables, write docs/benchmarks.md."""
    ap = parser(__doc__)
    ap.add_argument("--results", type=Path, default=ROOT / "bench" / "results", help="answers folder")
    ap.add_argument("--report-only", action="store_true", help="tables from the --results files, no model")
    args = ap.parse_args(argv)

    tasks = load_tasks()
    start = time.perf_counter()
    rows: dict[str, list[dict[str, Any]]] = {}
    files = {s: args.results / f"translated_{s.replace(' ', '_')}.jsonl" for s in SETTINGS}
    english = english_tasks()
    if args.report_only:
        for s in SETTINGS:
            rows[s] = [json.loads(x) for x in files[s].read_text(encoding="utf-8").splitlines() if x.strip()]
        flagged = json.loads((args.results / "translated_english.json").read_text(encoding="utf-8"))
    else:
        index = everyday.build_index(args.shared)
        flagged = [t for t in english if index.needs_translation(t)]
        backend = services.load_backend(Settings(n_ctx=2048, n_threads=1))  # one thread: see everyday.py
        args.results.mkdir(parents=True, exist_ok=True)
        (args.results / "translated_english.json").write_text(json.dumps(flagged), encoding="utf-8")
        for s in SETTINGS:
            settings = Settings(
                k=5, hub="", mode="select", select_by="likelihood", translate=s == "translated"
            )
            pipeline = services.build_pipeline(settings, index, backend)
            rows[s] = []
            for n, t in enumerate(tasks, start=1):
                rows[s].append(answer(pipeline, t))
                print(f"{s} {n}/{len(tasks)} {t['id']} right={rows[s][-1]['right']} "
                      f"{rows[s][-1]['translation']!r}", file=sys.stderr, flush=True)  # fmt: skip
            files[s].write_text(
                "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows[s]), encoding="utf-8"
            )
    wall = time.perf_counter() - start
    lines = [
        "Script: `python bench/translated.py`",
        "",
        f"{len(tasks)} everyday tasks typed in German, Spanish, French, Chinese and Japanese "
        "(bench/data/everyday_translated_tasks.toml, hand-written; each takes the labels and the dev/test "
        "split of the bench/everyday_tasks.toml task it names), the default index (every source, no hub "
        "named), `pipeline.ask` with the embedded model (Gemma 3 270M Q4_K_M), select by likelihood, k = 5. "
        "**translated**: as shipped, a task that is not English (py3langid) and mostly unknown to the index "
        "(retrieve/fit.py needs_translation) is put into English by the model (model/translate.py: a "
        "two-example prompt, greedy, one line) and searched as the task followed by its translation; the "
        "model scores the hits against the task as typed. **as typed**: settings.translate off (the "
        "multilingual dense side alone reads the task). Right: the proposed doc meets the label; hit@5: a "
        "right doc is among the 5 hits.",
        "",
    ]
    for split in ("dev", "test", "all"):
        lines += [f"Split: {split}", ""] + table(rows, split) + [""]
    lines += [
        f"English tasks of the hand-written sets that the rule would translate: **{len(flagged)} of "
        f"{len(english)}**" + (f" ({', '.join(repr(t) for t in flagged)})" if flagged else "") + ".",
        "",
        f"Wall time {wall:.0f} s on 2 shared cores (index build included)." if not args.report_only else
        "Tables rebuilt from the results files (`--report-only`).",
    ]  # fmt: skip
    return publish(TITLE, "\n".join(lines), not args.no_write)


if __name__ == "__main__":
    sys.exit(main())
