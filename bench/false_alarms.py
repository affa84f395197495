"""Benchmark: false alarms of `check` (the linter) on real code that runs, on the default index (issue 39).

Run: python bench/false_alarms.py [--home DIR] [--packages a,b,...] [--no-write] [--show N].
Checks, with the linter of `gorilla-tui check PATH` (check/lint.py: blocks, check_block, files' syntax
errors as notes) and one Validator over the whole default index (GORILLA_TUI_HOME or --home; copy a built
one, never rebuild per run):
- every .py file of the running interpreter's standard library (sysconfig's "stdlib" folder, all of Lib/),
  site-packages left out, in two rows: the library's code, and its test folders (``test/``, ``tests/``,
  ``idle_test/``, ``testing/``: test code calls APIs wrongly on purpose, inside ``assertRaises``; such
  calls are expected to fail, check/expected.py);
- the installed sources of widely used packages (PACKAGES, those importable here; test folders excluded;
  a module named there is checked alone: numpy's test helper).
Every finding on this code is a false alarm: the code is the library itself, shipped and run (a finding
that is a true hallucination of CPython's own code would be listed with why; none is). Prints findings
per 10,000 lines (non-blank), per reason code, per row, the notes (files Python refuses: "skipped: not
Python 3 syntax"; calls past callsite.MAX_CALLS not checked; files that are not UTF-8, not read), the
first --show findings, and writes the "False alarms" section of docs/benchmarks.md. Targets (issue 39): 0
findings on all of Lib/, <= 0.5 per 10,000 lines of the installed packages.

With --indexed-home DIR (an index with the packages themselves indexed, as bench/conala.py builds it:
`index --refresh --source python:stdlib,numpy,pandas,matplotlib`), a second pass checks INDEXED (numpy,
pandas, matplotlib) against that index, where their own names are judged (python-env docs of them);
--indexed-results FILE writes its rows as JSON, --indexed-before FILE shows an earlier run's beside them.
"""

# ruff: noqa: E501  (markdown table rows read better unwrapped)
from __future__ import annotations

import importlib.util
import json
import os
import sys
import sysconfig
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._report import Figure, parser, publish  # noqa: E402
from gorilla_tui.check import callsite, lint  # noqa: E402
from gorilla_tui.cli.source_text import source_text  # noqa: E402
from gorilla_tui.errors import UsageError  # noqa: E402

TITLE = "False alarms"
#: Installed packages checked (issue 39 names the first eight; the others are installed here too).
PACKAGES = (
    "requests",
    "httpx",
    "click",
    "numpy",
    "pandas",
    "rich",
    "textual",
    "huggingface_hub",
    "jinja2",
    "pydantic",
    "anyio",
    "idna",
    "packaging",
    "yaml",
    # where break-it round 31 found false alarms (pip's vendored urllib3: socket.error beside a parameter
    # socket; numpy's test helper: locale.setlocale(locale=...)), and three more widely used ones
    "pip._vendor.urllib3",
    "numpy._core.tests._locales",
    "tqdm",
    "attr",
    "setuptools",
)
#: Test folders: a package's are left out; the standard library's are their own row.
TESTS = frozenset({"test", "tests", "idle_test", "testing"})
#: Folder names never entered: caches, site-packages.
SKIP = frozenset({"__pycache__", "site-packages"})
TARGET_PACKAGES = 0.5
STD, STD_TESTS = "standard library", "standard library: test folders"
#: Packages checked by the second pass, with themselves indexed (--indexed-home).
INDEXED = ("numpy", "pandas", "matplotlib")


def py_files(folder: Path, tests: bool = False) -> list[Path]:
    """The .py files under `folder`, sorted, SKIP and hidden folders left out, and TESTS folders unless
    `tests`."""
    if folder.is_file():  # one module named in PACKAGES
        return [folder]
    out: list[Path] = []
    for root, dirs, files in os.walk(folder):
        skip = SKIP if tests else SKIP | TESTS
        dirs[:] = sorted(d for d in dirs if d not in skip and not d.startswith("."))
        out += [Path(root) / f for f in sorted(files) if f.endswith(".py")]
    return out


def stdlib_files() -> tuple[list[Path], list[Path]]:
    """The standard library's .py files (sysconfig stdlib: top-level modules and packages): (those outside
    test folders, those inside one)."""
    root = Path(sysconfig.get_paths()["stdlib"])
    files = py_files(root, tests=True)
    inside = [p for p in files if TESTS & set(p.relative_to(root).parts[:-1])]
    return [p for p in files if p not in set(inside)], inside


def package_folder(name: str) -> Path | None:
    """The installed folder of package `name` (a module's file for a module: numpy's test helper
    ``numpy._core.tests._locales``), or None when it is not importable here (never imported; a dotted
    name's parent packages are)."""
    try:
        spec = importlib.util.find_spec(name)
    except ModuleNotFoundError:  # a parent package is not installed
        return None
    if (
        spec is not None
        and not spec.submodule_search_locations
        and spec.origin
        and spec.origin.endswith(".py")
    ):
        return Path(spec.origin)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def check_files(validator, files: list[Path]) -> tuple[int, list[lint.Finding], Counter]:
    """(non-blank lines, findings, notes per kind) of `files` checked as `check PATH` does: each read by
    its PEP 263 coding line (cli/source_text.py source_text; a file it refuses, e.g. Lib/test's deliberately
    bad encodings, is counted, as `check` reports it: exit 2), a file Python refuses is a note "not
    Python 3 syntax", calls past callsite.MAX_CALLS a note "calls not checked"."""
    lines, found, notes = 0, [], Counter()
    for path in files:
        try:
            text = source_text(path.read_bytes(), str(path))
        except (UsageError, OSError):  # as `check` (exit 2): a test's deliberately bad encoding
            notes["not read (bad encoding): error"] += 1
            continue
        lines += sum(1 for ln in text.split("\n") if ln.strip())
        said: list[str] = []
        for block in lint.blocks(str(path), text):
            found += lint.check_block(validator, str(path), block, notes=said, syntax_note=True)
        for n in said:
            notes[
                "not Python 3 syntax: skipped"
                if "not Python 3 syntax" in n
                else "calls past 2,000 not checked"
            ] += 1
        if any(n.endswith(callsite.LEFT_OUT_TAIL) for n in said):
            notes["findings among those calls, checked by this bench with the bound lifted"] += _all_calls(
                validator, str(path), text
            )
    return lines, found, notes


def _all_calls(validator, path: str, text: str) -> int:
    """Findings of `text` with every call checked (callsite.MAX_CALLS lifted for this one check): what
    the calls `check` leaves unchecked in a very large file would give."""
    bound = callsite.MAX_CALLS
    callsite.MAX_CALLS = 10**9
    try:
        return sum(
            len(lint.check_block(validator, path, b, syntax_note=True)) for b in lint.blocks(path, text)
        )
    finally:
        callsite.MAX_CALLS = bound


#: Standard-library modules not imported for the comparison (they open a browser, print, or are demos).
NOT_IMPORTED = frozenset(
    {"antigravity", "this", "idlelib", "turtledemo", "lib2to3", "pydoc_data", "ensurepip"}
)


def pool_coverage(pool) -> dict[str, int]:
    """How many public callables of the standard library's top-level public modules (dir() of each,
    imported here, never in the check path) the python-env docs name (api_name ``module.name``), and how
    many of the rest `check` accepts from the module's source (pool/pyenv/binds.py module_binds) or leaves
    unjudged (None: compiled, or a compiled module's star import)."""
    import importlib
    import types
    import warnings

    from gorilla_tui.pool.pyenv.binds import module_binds

    names = {d.api_name for d in pool if d.source == "python-env"}
    out = Counter()
    for mod_name in sorted(sys.stdlib_module_names):
        if mod_name.startswith("_") or mod_name in NOT_IMPORTED:
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                mod = importlib.import_module(mod_name)
        except Exception:  # noqa: BLE001 - a module this platform lacks (winreg, msvcrt...)
            continue
        out["modules"] += 1
        for n in dir(mod):
            value = getattr(mod, n, None)
            if n.startswith("_") or not callable(value) or isinstance(value, types.ModuleType):
                continue
            out["callables"] += 1
            if f"{mod_name}.{n}" in names:
                out["in pool"] += 1
                continue
            known = module_binds(mod_name, n)
            out["bound by source" if known else "unknown (compiled)" if known is None else "missed"] += 1
    return dict(out)


def _detection() -> str:
    """The detection rate beside the false alarms: the **all** row of the "False valid" section of
    docs/benchmarks.md (bench/false_valid.py: mutated hallucinations must never be valid), or ""."""
    report = ROOT / "docs" / "benchmarks.md"
    text = report.read_text(encoding="utf-8") if report.exists() else ""
    section = text.partition("<!-- begin: False valid -->")[2].partition("<!-- end: False valid -->")[0]
    row = next((ln for ln in section.splitlines() if ln.startswith("| **all** |")), "")
    cells = [c.strip() for c in row.strip("|").split("|")]
    if len(cells) < 4:
        return ""
    return (
        f"\nDetection beside it ([False valid](#false-valid), bench/false_valid.py): unmutated pool calls valid "
        f"{cells[1]}; mutated hallucinations (a digit, a hyphen, the owner, the loader or the method changed) "
        f"{cells[2]}, of which valid: **{cells[3]}**.\n"
    )


def per_10k(n: int, lines: int) -> float:
    return 10_000 * n / lines if lines else 0.0


def indexed_pass(args, index_class, validator_class) -> str:
    """The second pass (--indexed-home): INDEXED's sources checked against an index of them; its Markdown."""
    os.environ["GORILLA_TUI_HOME"] = args.indexed_home
    pool = index_class.load().pool(None)
    validator = validator_class(pool)
    rows, reasons = [], Counter()
    for name in INDEXED:
        folder = package_folder(name)
        if folder is None:
            continue
        files = py_files(folder)
        lines, found, _notes = check_files(validator, files)
        rows.append({"package": name, "files": len(files), "lines": lines, "findings": len(found)})
        reasons.update(f.reason for f in found)
        print(f"indexed {name}: {len(files)} files, {lines} lines, {len(found)} findings", file=sys.stderr)
        for f in found[: args.show]:
            print(f"  [{name}, indexed] {f.path}:{f.line}:{f.col}: {f.reason} {f.message}", file=sys.stderr)
    if args.indexed_results:
        Path(args.indexed_results).write_text(
            json.dumps({"rows": rows, "reasons": reasons}), encoding="utf-8"
        )
    before = (
        json.loads(Path(args.indexed_before).read_text(encoding="utf-8")) if args.indexed_before else None
    )
    old = {r["package"]: r for r in before["rows"]} if before else {}
    n_docs = sum(1 for d in pool if d.source == "python-env")
    text = (
        f"\nWith the packages themselves indexed (`--indexed-home`: python-env with "
        f"{', '.join(['the standard library', *INDEXED])}, {n_docs} docs; their own calls are judged against "
        "their docs): the same check over their installed sources"
        + (" (before: the same pass with the code and index before type stubs were read)" if before else "")
        + ".\n\n| package | files | lines | findings | per 10,000 lines |"
        + (
            " before: findings | before: per 10,000 lines |\n|---|---:|---:|---:|---:|---:|---:|\n"
            if before
            else "\n|---|---:|---:|---:|---:|\n"
        )
    )
    for r in rows:
        text += f"| {r['package']} | {r['files']} | {r['lines']} | {r['findings']} | {per_10k(r['findings'], r['lines']):.2f} |"
        if before:
            b = old.get(r["package"], {"findings": 0, "lines": 0})
            text += f" {b['findings']} | {per_10k(b['findings'], b['lines']):.2f} |"
        text += "\n"
    lines, found = sum(r["lines"] for r in rows), sum(r["findings"] for r in rows)
    text += f"| **all** | | {lines} | {found} | **{per_10k(found, lines):.2f}** |"
    if before:
        b_lines, b_found = sum(r["lines"] for r in before["rows"]), sum(r["findings"] for r in before["rows"])
        text += f" {b_found} | {per_10k(b_found, b_lines):.2f} |"
    text += "\n\nReason codes (indexed pass): " + (
        ", ".join(f"{c} {n}" for c, n in sorted(reasons.items())) or "none"
    )
    if before:
        text += "; before: " + (", ".join(f"{c} {n}" for c, n in sorted(before["reasons"].items())) or "none")
    return text + ".\n"


def main() -> int:
    ap = parser(__doc__)
    ap.add_argument(
        "--home", default=os.environ.get("GORILLA_TUI_HOME"), help="GORILLA_TUI_HOME of the default index"
    )
    ap.add_argument("--packages", default=",".join(PACKAGES), help="comma-separated installed packages")
    ap.add_argument("--no-stdlib", action="store_true", help="skip the standard library (quick runs)")
    ap.add_argument("--show", type=int, default=20, help="print the first N findings")
    ap.add_argument("--indexed-home", default=None, help="GORILLA_TUI_HOME of an index with INDEXED indexed")
    ap.add_argument("--indexed-results", default=None, help="write the second pass's rows here (JSON)")
    ap.add_argument("--indexed-before", default=None, help="an earlier --indexed-results file, shown beside")
    args = ap.parse_args()
    if args.home:
        os.environ["GORILLA_TUI_HOME"] = args.home
    from gorilla_tui.check.validator import Validator  # deferred: reads GORILLA_TUI_HOME set above
    from gorilla_tui.retrieve.index import ApiIndex

    pool = ApiIndex.load().pool(None)
    validator = Validator(pool)
    sources = Counter(d.source for d in pool)
    groups: list[tuple[str, list[Path]]] = []
    if not args.no_stdlib:
        outside, inside = stdlib_files()
        groups += [(STD, outside), (STD_TESTS, inside)]
    missing = []
    for name in filter(None, args.packages.split(",")):
        folder = package_folder(name)
        if folder is None:
            missing.append(name)
        else:
            groups.append((name, py_files(folder)))
    rows, reasons, shown, notes = [], Counter(), [], Counter()
    pkg_lines = pkg_findings = 0
    t0 = time.perf_counter()
    for name, files in groups:
        lines, found, said = check_files(validator, files)
        rows.append((name, len(files), lines, len(found)))
        kind = name if name in (STD, STD_TESTS) else "packages"
        reasons.update((kind, f.reason) for f in found)
        notes.update({(kind, k): n for k, n in said.items()})
        shown += [(name, f) for f in found]
        if kind == "packages":
            pkg_lines, pkg_findings = pkg_lines + lines, pkg_findings + len(found)
        print(
            f"{name}: {len(files)} files, {lines} lines, {len(found)} findings, notes {dict(said)}",
            file=sys.stderr,
        )
    took = time.perf_counter() - t0
    for name, f in shown[: args.show]:
        print(f"  [{name}] {f.path}:{f.line}:{f.col}: {f.reason} {f.message}", file=sys.stderr)
    std = [r for r in rows if r[0] in (STD, STD_TESTS)]
    text = (
        f"`python bench/false_alarms.py`: `check`'s linter (check/lint.py, as `gorilla-tui check PATH`) over real, shipped code, "
        f"on the default index ({', '.join(f'{s} {n}' for s, n in sorted(sources.items()))}); every finding is a false alarm. "
        f"Standard library: every .py of Python {sys.version.split()[0]}'s Lib/ (all of it), its test folders (test/, tests/, idle_test/, testing/) "
        "in their own row: their deliberate wrong calls (`with self.assertRaises(TypeError): sorted(iterable=[])`) are expected to fail, "
        "never findings (check/expected.py); "
        f"packages: their installed sources, test folders excluded{' (not installed: ' + ', '.join(missing) + ')' if missing else ''}. "
        f"Lines are non-blank lines. {took:.0f} s in one process.\n\n"
        "| code | files | lines | findings | per 10,000 lines |\n|---|---:|---:|---:|---:|\n"
    )
    for name, n_files, lines, n in rows:
        text += f"| {name} | {n_files} | {lines} | {n} | {per_10k(n, lines):.2f} |\n"
    text += f"| **installed packages** | | {pkg_lines} | {pkg_findings} | **{per_10k(pkg_findings, pkg_lines):.2f}** (target <= {TARGET_PACKAGES}) |\n"
    std_lines, std_found = sum(r[2] for r in std), sum(r[3] for r in std)
    if std:
        text += f"| **standard library, all of Lib/** | {sum(r[1] for r in std)} | {std_lines} | {std_found} | **{per_10k(std_found, std_lines):.2f}** (target 0 findings) |\n"
    cov = pool_coverage(pool)
    missing = cov.get("callables", 0) - cov.get("in pool", 0)
    text += (
        f"\nThe standard-library pool against the interpreter: of the {cov.get('callables', 0)} public callables that "
        f"dir() lists on the {cov.get('modules', 0)} public top-level standard-library modules importable here, the python-env docs "
        f"name {cov.get('in pool', 0)} as `module.name`; of the {missing} they miss (re-exports documented under their defining module, "
        f"names bound by assignment, left out of `__all__`, made in C), `check` takes {cov.get('bound by source', 0)} as real because the "
        f"module's source binds them (pool/pyenv/binds.py), {cov.get('unknown (compiled)', 0)} are unknown without importing "
        f"(compiled modules: judged by the pool's names of them) and **{cov.get('missed', 0)}** are names a module's source does not bind "
        "(made at run time: `globals().update`, `setattr`).\n"
    )
    text += _detection()
    kinds = (STD, STD_TESTS, "packages")
    text += (
        "\n| reason code | standard library | its test folders | installed packages |\n|---|---:|---:|---:|\n"
    )
    for code in sorted({c for _, c in reasons}):
        text += f"| {code} | {' | '.join(str(reasons[(k, code)]) for k in kinds)} |\n"
    if not reasons:
        text += "| (no finding) | 0 | 0 | 0 |\n"
    for note in sorted({n for _, n in notes}):
        text += f"| note: {note} | {' | '.join(str(notes[(k, note)]) for k in kinds)} |\n"
    text += (
        "\nNotes are not findings: a file Python refuses (lib2to3's Python 2 test data, a test's deliberately bad "
        "file) is skipped with one line saying so, and a file with more calls than one check reads (callsite.MAX_CALLS) "
        "says how many went unchecked; this bench checks those files again with every call read (the last row).\n\n"
        "Before this work (issue 39's last target), the same run of `check` over all of Lib/ gave 68 findings, all in test folders: "
        "30 deliberate wrong calls inside `assertRaises` / `assertRaisesRegex` or a `try` handling TypeError (or in a nested "
        "function used only there), 25 names a platform or a debug build lacks that the file probes (`hasattr(sys, "
        "'gettotalrefcount')`, Solaris' `select.devpoll`, `os.lchmod`, Windows' `os.set_handle_inheritable`), 6 files of "
        "Python 2 or deliberately bad syntax, and 7 linter errors fixed by their class (`bool()`: a builtin's docstring "
        "signature; `HTTPStatus(404)`: an enum looked up by value; `os.stat_result(seq, dict)`: a compiled type's inherited "
        "signature; `sqlite3.Date`: a star import through a Python module; `multiprocessing.current_process`: names made by "
        "`globals().update`). None was a true hallucination of CPython's code.\n"
    )
    if args.indexed_home:
        text += indexed_pass(args, ApiIndex, Validator)
    summary = [
        Figure(
            "`check` findings per 10k lines of installed packages",
            f"{per_10k(pkg_findings, pkg_lines):.2f}",
            "<= 0.5",
        ),
    ]
    if std:
        summary.append(
            Figure("`check` findings on the standard library's own code", str(std_found), "0 (all of Lib/)")
        )
    return publish(TITLE, text, not args.no_write, summary=summary)


if __name__ == "__main__":
    sys.exit(main())
