"""CoNaLa dev split: StackOverflow intents as people typed them, against the Python docs that answer them
(issue 38).

Run: python bench/conala.py [--shared ../shared] [--home DIR] [--bm25] [--ask --stride N --limit N
[--asked FILE]] [--default-home DIR] [--questions FILE ...] [--results FILE] [--show misses] [--no-write]

Data: DocPrompting's release of CoNaLa (Zhou et al., ICLR 2023; ../shared/conala/cmd_dev.oracle_man.full.json,
read-only, never copied into the repository): 201 intents, each with the ids of the docs its answer uses.
Index: the python-env source with the standard library, numpy, pandas and matplotlib, built once by
`GORILLA_TUI_HOME=DIR gorilla-tui index --refresh --source python:stdlib,numpy,pandas,matplotlib` (--home DIR;
pandas and matplotlib come with the `bench` extra). Doc ids are mapped to our API names by `oracle_name`
(its docstring states the mapping) and an intent is answered when a hit (or the proposal) is one of its oracle
names; labels whose names no doc of the pool has are counted apart ("not in the pool").

Halves: dev = even positions of the file, test = odd ones; settings are chosen on dev, test is reported.
Figures: an oracle API in the first 5 hits / at hit 1 (ApiIndex.search, no hub named), and with --ask the API
`pipeline.ask` proposes (the embedded model, select by likelihood, k = 5, filling off: the choice alone) on
both intents of every --stride-th pair (the same subset each run). With --default-home (a copy of the
default index: hubs, APIZoo, standard library) also how many intents get a Hugging Face or TensorFlow Hub
model at hit 1, and with --ask-default which the ask proposes there. Writes the section "CoNaLa dev split" of
docs/benchmarks.md.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import os
import statistics
import sys
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _report import Figure, parser, publish, shared_dir  # noqa: E402

from gorilla_tui import pipeline_fit, services  # noqa: E402
from gorilla_tui.config import Settings  # noqa: E402
from gorilla_tui.pool.doc import ApiDoc  # noqa: E402
from gorilla_tui.pool.expansion import attach_hand_questions, read_hand_questions  # noqa: E402
from gorilla_tui.retrieve.dense import DenseSide  # noqa: E402
from gorilla_tui.retrieve.fit import names_missed  # noqa: E402
from gorilla_tui.retrieve.index import ApiIndex  # noqa: E402

TITLE = "CoNaLa dev split"
DATA = Path("conala") / "cmd_dev.oracle_man.full.json"
LIBRARIES = ("numpy", "pandas", "matplotlib")
MODEL_HUBS = ("huggingface", "tensorflowhub")


def oracle_name(doc_id: str) -> str | None:
    """Our API name (an ApiDoc.api_name, compared case-insensitively) for one of DocPrompting's doc ids, or
    None for a library python-env does not index here (django, ...).

    The mapping:
    - `python.library.<module>#<dotted>` -> `<dotted>`: `os#os.listdir` -> os.listdir, `functions#len` ->
      len (a builtin), `stdtypes#str.split` -> str.split (a method of a builtin type), `datetime#datetime.
      datetime.strptime` -> datetime.datetime.strptime; with no `#`, the module itself;
    - numpy, pandas, matplotlib: the part after `#` when there is one (`matplotlib.figure_api#matplotlib.
      figure.FigureBase.gca`), else the dotted name from the last `.<library>.` on
      (`numpy.reference.generated.numpy.arange` -> numpy.arange, `pandas.reference.api.pandas.dataframe.
      groupby` -> pandas.dataframe.groupby, matched case-insensitively to pandas.DataFrame.groupby,
      `matplotlib._as_gen.matplotlib.axes.axes.set_yticklabels` -> matplotlib.axes.axes.set_yticklabels),
      and `pandas.reference.<x>` -> pandas.<x>.
    """
    if doc_id.startswith("python.library."):
        module, _, dotted = doc_id.removeprefix("python.library.").partition("#")
        return dotted or module
    lib = doc_id.split(".", 1)[0]
    if lib not in LIBRARIES:
        return None
    if "#" in doc_id:
        return doc_id.split("#", 1)[1]
    at = doc_id.rfind(f".{lib}.")
    if at >= 0:
        return doc_id[at + 1 :]
    return f"{lib}.{doc_id.rsplit('.', 1)[1]}"


def defined_at(name: str) -> list[str]:
    """The spellings of dotted `name` our pool may use: the name with its case as the library spells it
    (`pandas.dataframe.groupby` -> pandas.DataFrame.groupby), and where the object is defined, read from
    the imported library (`pandas.DataFrame.to_csv` -> pandas.core.generic.NDFrame.to_csv, an inherited
    method python-env indexes once, on the class that defines it; `pandas.Series.str.endswith` ->
    pandas.core.strings.accessor.StringMethods.endswith; a C method by the module of the class that
    defines it, `datetime.datetime.strftime` -> datetime.date.strftime, `numpy.matrix.transpose` ->
    numpy.ndarray.transpose). [] when no module of it imports."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        except Exception:  # a module that fails on import for another reason: not resolvable here
            return []
        spelled = parts[:cut]
        for part in parts[cut:]:
            attr = next((a for a in dir(obj) if a.lower() == part.lower()), None)
            if attr is None:
                return []
            try:
                obj = getattr(obj, attr)
            except Exception:  # a descriptor that refuses access on the class
                return []
            spelled.append(attr)
        out = [".".join(spelled)]
        module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
        if module is None:  # a C method (method_descriptor) has no __module__: its class's
            module = getattr(getattr(obj, "__objclass__", None), "__module__", None)
        if isinstance(module, str) and isinstance(qualname, str) and "<" not in qualname:
            out.append(f"{module}.{qualname}")
        return out
    return []


@dataclasses.dataclass
class Labels:
    """The oracle names of each intent resolved against the pool: `names[i]` the lower-cased api_names that
    count as right for intent i (empty: none of its oracle docs is in the pool)."""

    names: list[frozenset[str]]
    exact: int  # oracle ids matched by their name as mapped
    defined: int  # ... matched where the library defines the object (an inherited method, an accessor)
    missing: list[str]  # oracle names no doc has (in a library indexed here)
    other_library: list[str]  # oracle ids of libraries not indexed (django, ...)


def resolve(entries: Sequence[dict[str, Any]], pool: Iterable[ApiDoc]) -> Labels:
    """Each entry's oracle ids as the lower-cased api_names of `pool` that match them: the mapped name
    itself, else where the library defines it (defined_at)."""
    names = {d.api_name.lower() for d in pool}
    out, exact, defined, missing, other = [], 0, 0, [], []
    for e in entries:
        right: set[str] = set()
        for doc_id in e.get("oracle_man") or ():
            name = oracle_name(doc_id)
            if name is None:
                other.append(doc_id)
                continue
            if name.lower() in names:
                exact += 1
                right.add(name.lower())
                continue
            found = {n.lower() for n in defined_at(name)} & names
            if found:
                defined += 1
                right |= found
            else:
                missing.append(name)
        out.append(frozenset(right))
    return Labels(out, exact, defined, missing, other)


def load_index(home: Path, bm25: bool, questions: Sequence[Path]) -> ApiIndex:
    """The live index of GORILLA_TUI_HOME `home` (dense side off with `bm25`). With `questions` (hand-written
    question files in index/questions' format) its docs are rebuilt in memory, BM25 only, with those
    questions attached instead of the ones they carry: to try a question file before a refresh."""
    os.environ["GORILLA_TUI_HOME"] = str(home)
    index = ApiIndex.load()
    if bm25:  # no vectors: the dense side off (GORILLA_TUI_DENSE only stops a refresh from embedding)
        index.dense = DenseSide(len(index.docs), None)
    if not questions:
        return index
    docs = [dataclasses.replace(d, questions=[]) if d.source == "python-env" else d for d in index.docs]
    for path in questions:
        pairs, _ = read_hand_questions(path.read_text(encoding="utf-8"), path.name)
        print(f"{path.name}: {attach_hand_questions(docs, pairs)} questions attached", file=sys.stderr)
    return ApiIndex.build(docs)


#: How a snippet may name a library's module (its usual import aliases).
ALIASES = {
    "numpy": ("numpy", "np."),
    "pandas": ("pandas", "pd.", "df"),
    "matplotlib": ("matplotlib", "plt", "ax"),
}


def suspect(name: str, cmd: str) -> bool:
    """Whether oracle `name` looks wrongly matched to the answer's snippet `cmd` (a rough count of noisy
    labels): its last component is not in the snippet, or it is a standard-library name (not a builtin or a
    builtin type's method) and none of its modules or classes is named in the snippet, or a numpy name
    without numpy or np in the snippet (sys.path.insert labelled numpy.insert)."""
    parts = name.split(".")
    if parts[-1].lower() not in cmd.lower():
        return True
    top = parts[0]
    if top in ALIASES:
        return top == "numpy" and not any(a in cmd for a in ALIASES[top])
    low = cmd.lower()
    return len(parts) > 1 and top not in BUILTIN_TYPES and not any(p.lower() in low for p in parts[:-1])


#: Builtin types whose methods CoNaLa labels as stdtypes#<type>.<method>.
BUILTIN_TYPES = frozenset(
    "str bytes bytearray list dict set frozenset tuple int float complex memoryview range".split()
)


def pct(xs: Sequence[bool]) -> float:
    return 100.0 * sum(xs) / len(xs) if xs else 0.0


def retrieval_rows(
    index: ApiIndex, entries: Sequence[dict[str, Any]], labels: Labels
) -> list[dict[str, Any]]:
    """One row per intent: its half, its hits' api_names and sources, and where the first right hit is."""
    rows = []
    for i, e in enumerate(entries):
        hits = index.search(e["nl"], k=DEEP)
        names = [h.doc.api_name for h in hits]
        ranks = [r for r, n in enumerate(names, 1) if n.lower() in labels.names[i]]
        rows.append(
            {
                "i": i,
                "half": "dev" if i % 2 == 0 else "test",
                "in_pool": bool(labels.names[i]),
                "hits": names[:5],
                "sources": [h.doc.source for h in hits[:5]],
                "first_right": ranks[0] if ranks and ranks[0] <= 5 else None,
                "deep_right": ranks[0] if ranks else None,
                "miss": miss_class(e, labels.names[i], ranks[0] if ranks else None),
            }
        )
    return rows


#: How deep retrieval_rows looks for the first oracle hit to tell a near miss from a miss.
DEEP = 50
#: The failure classes of an intent whose oracle is not in the first 5 hits (miss_class), in report order.
MISS_CLASSES = {
    "not_in_pool": "no oracle doc in the pool (a method assigned rather than defined, a property, a class "
    "python-env does not read, another library)",
    "suspect": "every oracle label looks wrong (suspect: not in the answer's snippet)",
    "builtins": "only builtins or builtin types' methods are labelled (often the snippet's glue: list(), "
    "len, sum)",
    "near": "an oracle at hit 6 to 50",
    "far": "no oracle in the first 50 hits",
}


def miss_class(entry: dict[str, Any], right: frozenset[str], rank: int | None) -> str | None:
    """Why the oracle of `entry` is not in the first 5 hits (a key of MISS_CLASSES), None when it is:
    checked in order, the first that applies."""
    if rank is not None and rank <= 5:
        return None
    if not right:
        return "not_in_pool"
    if all(suspect(n, entry["cmd"]) for n in right):
        return "suspect"
    if all(n.split(".")[0] in BUILTIN_TYPES or "." not in n for n in right):
        return "builtins"
    return "near" if rank is not None else "far"


def ask_rows(index: ApiIndex, entries: Sequence[dict[str, Any]], labels: Labels, subset: Sequence[int]):
    """`pipeline.ask` on the intents at `subset`: the proposed api_name, whether it is an oracle, seconds."""
    backend = services.load_backend(Settings(n_ctx=2048, n_threads=1))  # 1 thread: 2 spin on a busy machine
    pipeline = services.build_pipeline(Settings(k=5, hub="", fill=False), index, backend)
    out = []
    for n, i in enumerate(subset, 1):
        t0 = time.perf_counter()
        proposal = pipeline.ask(entries[i]["nl"])
        seconds = time.perf_counter() - t0
        call = proposal.api_call.strip()
        chosen = next((h.doc for h in proposal.hits if h.doc.call.strip() == call), None)
        name = chosen.api_name if chosen else None
        out.append(
            {
                "i": i,
                "half": "dev" if i % 2 == 0 else "test",
                "in_pool": bool(labels.names[i]),
                "chosen": name,
                "source": chosen.source if chosen else None,
                "right": bool(name and name.lower() in labels.names[i]),
                "hit1_right": bool(proposal.hits)
                and proposal.hits[0].doc.api_name.lower() in labels.names[i],
                "fit": proposal.fit,
                "signals": {k: v for k, v in proposal.fit_signals.items() if isinstance(v, (int, float))},
                "hits_lm": [[h.doc.api_name, h.lm_score] for h in proposal.hits],
                "verdict": proposal.verdict.kind if proposal.verdict else None,
                "seconds": round(seconds, 3),
            }
        )
        print(f"ask {n}/{len(subset)} #{i} {name} right={out[-1]['right']}", file=sys.stderr, flush=True)
    return out


def summary(rows: Sequence[dict[str, Any]], half: str) -> dict[str, Any]:
    """Retrieval figures of one half ("all" for both): n, n in the pool, hit@5 % and hit@1 % over all its
    intents and over those in the pool."""
    r = [x for x in rows if half in ("all", x["half"])]
    p = [x for x in r if x["in_pool"]]
    at = lambda xs, k: pct([x["first_right"] is not None and x["first_right"] <= k for x in xs])  # noqa: E731
    return {
        "n": len(r),
        "n_pool": len(p),
        "at5": at(r, 5),
        "at1": at(r, 1),
        "at5_pool": at(p, 5),
        "at1_pool": at(p, 1),
    }


def main(argv: list[str] | None = None) -> int:
    """Run the figures asked for, print them, write docs/benchmarks.md (unless --no-write)."""
    ap = parser(__doc__)
    ap.add_argument(
        "--home",
        type=Path,
        required=True,
        help="GORILLA_TUI_HOME of the stdlib+numpy+pandas+matplotlib index",
    )
    ap.add_argument("--bm25", action="store_true", help="BM25 alone (the dense side off)")
    ap.add_argument(
        "--questions",
        type=Path,
        nargs="*",
        default=[],
        help="try these hand-written question files (BM25, in memory)",
    )
    ap.add_argument(
        "--ask", action="store_true", help="also run pipeline.ask on the --stride subset (the model)"
    )
    ap.add_argument("--stride", type=int, default=4, help="ask every N-th pair of intents (default 4)")
    ap.add_argument("--limit", type=int, default=0, help="ask at most N intents (0: the whole subset)")
    ap.add_argument(
        "--default-home",
        type=Path,
        default=None,
        help="a copy of the default index's home: model-hub answers",
    )
    ap.add_argument("--ask-default", action="store_true", help="also ask on --default-home's index")
    ap.add_argument("--results", type=Path, default=None, help="write the rows as JSON lines here")
    ap.add_argument(
        "--asked",
        type=Path,
        default=None,
        help="with --ask: the ask rows of an earlier run's --results file (same --stride), not asked again",
    )
    ap.add_argument("--show", choices=("none", "misses", "all"), default="none", help="print dev-half hits")
    args = ap.parse_args(argv)
    if args.stride < 1 or args.limit < 0:
        ap.error("--stride must be >= 1 and --limit >= 0")
    path = shared_dir(args, "conala") / DATA.name
    try:
        entries = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        print(f"conala: cannot read {path}: {e}", file=sys.stderr)
        return 2
    # both intents of every stride-th pair (position 2j in the dev half, 2j + 1 in the test half)
    subset = [i for i in range(len(entries)) if (i // 2) % args.stride == 0][: args.limit or None]

    index = load_index(args.home, args.bm25, args.questions)
    labels = resolve(entries, index.pool("python-env"))
    rows = retrieval_rows(index, entries, labels)
    if args.ask and args.asked is not None:  # the model's answers of an earlier run: only the report again
        asked = [
            r for r in map(json.loads, args.asked.read_text(encoding="utf-8").splitlines()) if "chosen" in r
        ]
        if sorted(r["i"] for r in asked) != sorted(subset):
            ap.error(f"--asked {args.asked}: its ask rows are not this --stride's subset")
        by_name = {d.api_name: d for d in index.docs}
        for r in asked:  # judged again by the fit rule as shipped now (the choice does not depend on it)
            if r.get("signals") and r.get("fit") and r.get("chosen") in by_name:
                signals = dict(r["signals"])  # signals of a later rule than the rows: computed from the doc
                signals.setdefault("names", names_missed(entries[r["i"]]["nl"], by_name[r["chosen"]]))
                r["fit"] = pipeline_fit.label(signals) or r["fit"]
    else:
        asked = ask_rows(index, entries, labels, subset) if args.ask else []
    if args.show != "none":
        for x in rows:
            if x["half"] == "dev" and (args.show == "all" or not x["first_right"]):
                print(
                    f"#{x['i']} {entries[x['i']]['nl']!r} want {sorted(labels.names[x['i']])} got {x['hits']}"
                )

    hub_rows, hub_asked = [], []
    if args.default_home is not None:
        default = load_index(args.default_home, False, ())
        hub_rows = [
            index_row["sources"] for index_row in retrieval_rows(default, entries, resolve(entries, ()))
        ]
        hub_asked = ask_rows(default, entries, resolve(entries, ()), subset) if args.ask_default else []

    text = report(entries, labels, rows, asked, hub_rows, hub_asked, args, index)
    if args.results is not None:
        args.results.write_text("".join(json.dumps(r) + "\n" for r in rows + asked), encoding="utf-8")
    dev, test = summary(rows, "dev"), summary(rows, "test")
    figures = [
        Figure("CoNaLa dev, oracle API in 5 hits / at hit 1 (test half)",
               f"{test['at5']:.1f} / {test['at1']:.1f} % (dev half {dev['at5']:.1f} / {dev['at1']:.1f})",
               ">= 60 / >= 35 %", "~31 / ~15 % (issue 38)"),
    ]  # fmt: skip
    if asked:
        test_rows = [x for x in asked if x["half"] == "test"]
        dev_rows = [x for x in asked if x["half"] == "dev"]
        wrong = [x for x in test_rows if not x["right"]]
        unsure = sum(x["fit"] in ("unsure", "nothing") for x in wrong)
        figures.append(Figure("CoNaLa dev, `ask` proposes an oracle API (test half)",
                              f"{pct([x['right'] for x in test_rows]):.1f} % (dev half "
                              f"{pct([x['right'] for x in dev_rows]):.1f}); wrong answers said unsure or "
                              f"nothing fits: {unsure} of {len(wrong)}",
                              ">= 40 %, wrong answers unsure >= half", "~14 % (issue 38)"))  # fmt: skip
    return publish(TITLE, text, not args.no_write and not args.questions, summary=figures)


def doubted_only(row: dict[str, Any]) -> bool:
    """Whether an ask row is "unsure" only by pipeline_fit.doubted (its fit models' score alone says fits)."""
    signals = row.get("signals") or {}
    alone = {k: v for k, v in signals.items() if k not in ("cos_gap", "bm25_ratio", "lm_gap")}
    return (
        row.get("fit") == "unsure" and pipeline_fit.doubted(signals) and pipeline_fit.label(alone) == "fits"
    )


def report(entries, labels, rows, asked, hub_rows, hub_asked, args, index) -> str:  # noqa: ANN001
    """The Markdown section: the mapping, the noisy labels, the figures per half."""
    n_ids = sum(len(e.get("oracle_man") or ()) for e in entries)
    no_label = sum(not e.get("oracle_man") for e in entries)
    names = [oracle_name(i) for e in entries for i in e.get("oracle_man") or ()]
    cmds = [e["cmd"] for e in entries for _ in e.get("oracle_man") or ()]
    n_suspect = sum(n is not None and suspect(n, c) for n, c in zip(names, cmds, strict=True))
    missing = sorted(set(labels.missing))
    ask = (
        f" --ask --stride {args.stride}" + (f" --limit {args.limit}" if args.limit else "")
        if args.ask
        else ""
    )
    script = "python bench/conala.py --home DIR" + (" --bm25" if args.bm25 else "") + ask
    script += " --default-home DIR" if args.default_home else ""
    script += " --ask-default" if args.ask_default else ""
    retrieval = "BM25 alone" if args.bm25 else f"retrieval as shipped ({index.dense_state()['note']})"
    lines = [
        f"Script: `{script}`",
        "",
        f"{len(entries)} intents of CoNaLa's dev split with their oracle docs (DocPrompting's release, "
        "../shared/conala); dev half = even positions, test half = odd ones (settings chosen on dev). Index: "
        f"python-env with the standard library, numpy, pandas and matplotlib ({len(index.docs):,} docs; "
        f"`index --refresh --source python:stdlib,numpy,pandas,matplotlib`), {retrieval}. Doc ids -> our "
        "names (bench/conala.py `oracle_name`): `python.library.os#os.listdir` -> os.listdir, "
        "`functions#len` -> len, `stdtypes#str.split` -> str.split; numpy/pandas/matplotlib ids from the "
        "last `.<library>.` on (`numpy.reference.generated.numpy.arange` -> numpy.arange, "
        "`pandas.reference.api.pandas.dataframe.groupby` -> pandas.DataFrame.groupby, case-insensitive), "
        "or the part after `#`; a name the pool has where the library defines it also counts "
        "(`defined_at`: DataFrame.to_csv is the pool's pandas.core.generic.NDFrame.to_csv; a C method is "
        "looked up by its class's module, datetime.datetime.strftime is the pool's datetime.date.strftime).",
        "",
        f"Labels: {n_ids} oracle ids ({no_label} intents with none): {labels.exact} matched by name, "
        f"{labels.defined} where the library defines them; not in the pool at all: {len(labels.missing)} "
        f"names of indexed libraries ({', '.join(missing[:12])}{', ...' if len(missing) > 12 else ''}: "
        "methods assigned in a class body (set_yticklabels = _axis_method_wrapper(...)), properties, "
        "C types python-env does not name (hashlib.hash, re.Match)) and "
        f"{len(labels.other_library)} of other libraries (django). {sum(not x for x in labels.names)} "
        'intents have no oracle doc in the pool (misses in "all", left out in "in pool"). Noisy labels '
        "(DocPrompting matched names automatically) stay as they are and a hit on any oracle name counts; "
        f"{n_suspect} of the ids look wrong by a rough rule (`suspect`: the name, or a standard-library "
        "module, not in the answer's snippet: os.read for `open(...)`, webbrowser.get for "
        "`os.environ.get(...)` is not caught).",
        "",
        "| half | n | oracle in first 5 hits % | at hit 1 % | n in pool | first 5 %, in pool "
        "| hit 1 %, in pool |",
        "|---|---|---|---|---|---|---|",
    ]
    for half in ("dev", "test", "all"):
        s = summary(rows, half)
        lines.append(
            f"| {half} | {s['n']} | **{s['at5']:.1f}** | **{s['at1']:.1f}** | {s['n_pool']} "
            f"| {s['at5_pool']:.1f} | {s['at1_pool']:.1f} |"
        )
    lines += [
        "",
        "Why the oracle is not in the first 5 hits (bench/conala.py `miss_class`, the first class that "
        "applies; suspect labels are those of the rough rule above):",
        "",
        "| class | dev | test |",
        "|---|---|---|",
    ]
    for key, words in MISS_CLASSES.items():
        n = {h: sum(x["miss"] == key for x in rows if x["half"] == h) for h in ("dev", "test")}
        lines.append(f"| {words} | {n['dev']} | {n['test']} |")
    if asked:
        lines += [
            "",
            f"`ask` (embedded model, select by likelihood, k = 5, filling off) on both intents of one pair "
            f"in {args.stride} ({len(asked)} intents): proposes an oracle API",
            "",
            "| half | n | oracle proposed % | hit 1 of the ask's hits an oracle % | p50 s "
            "| wrong answers said unsure or nothing fits | right answers said unsure or nothing fits |",
            "|---|---|---|---|---|---|---|",
        ]
        for half in ("dev", "test", "all"):
            r = [x for x in asked if half in ("all", x["half"])]
            wrong = [x for x in r if not x["right"]]
            right = [x for x in r if x["right"]]
            flagged = lambda xs: sum(x["fit"] in ("unsure", "nothing") for x in xs)  # noqa: E731
            lines.append(
                f"| {half} | {len(r)} | **{pct([x['right'] for x in r]):.1f}** "
                f"| {pct([bool(x.get('hit1_right')) for x in r]):.1f} "
                f"| {statistics.median(x['seconds'] for x in r) if r else 0:.2f} "
                f"| {flagged(wrong)} of {len(wrong)} | {flagged(right)} of {len(right)} |"
            )
        doubt = {h: [x for x in asked if x["half"] == h and doubted_only(x)] for h in ("dev", "test")}
        lines += [
            "",
            "Said unsure only because the retrieval sides or the model disagree with the chosen doc "
            "(pipeline_fit.doubted: another hit of its source the dense side ranks higher, BM25 not clearly "
            "preferring it, or the model reads the task 5 nats more likely after another; the fit models "
            "alone say fits): "
            + "; ".join(
                f"{h} {sum(not x['right'] for x in d)} wrong, {sum(x['right'] for x in d)} right"
                for h, d in doubt.items()
            )
            + ".",
        ]
    if hub_rows:
        first = sum(bool(s) and s[0] in MODEL_HUBS for s in hub_rows)
        lines += [
            "",
            f"Default index (hubs, APIZoo, standard library): {first} of {len(hub_rows)} intents get a "
            "Hugging Face or TensorFlow Hub model at hit 1"
            + (
                f"; `ask` proposes one for {sum(x['source'] in MODEL_HUBS for x in hub_asked)} of "
                f"{len(hub_asked)} asked (p50 {statistics.median(x['seconds'] for x in hub_asked):.2f} s)"
                if hub_asked
                else ""
            )
            + ".",
        ]
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
