"""Benchmark: false alarms of `check` (the linter) on real code that runs, on the default index (issue 39).

Run: python bench/false_alarms.py [--home DIR] [--packages a,b,...] [--no-write] [--show N].
Checks, with the linter of `gorilla-tui check PATH` (check/lint.py: blocks, check_block) and one Validator
over the whole default index (GORILLA_TUI_HOME or --home; copy a built one, never rebuild per run):
- every .py file of the running interpreter's standard library (sysconfig's "stdlib" folder, all of Lib/),
  except test folders (``test/``, ``tests/``, ``idle_test/``: test code calls private and broken APIs on
  purpose) and site-packages;
- the installed sources of widely used packages (PACKAGES, those importable here; test folders excluded
  likewise).
Every finding on this code is a false alarm: the code is the library itself, shipped and run. Prints
findings per 10,000 lines (non-blank), per reason code and per package, the first --show findings, and
writes the "False alarms" section of docs/benchmarks.md. Targets (issue 39): 0 findings on the standard
library, <= 0.5 per 10,000 lines of the installed packages.

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
from gorilla_tui.check import lint  # noqa: E402

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
)
#: Folder names not entered: tests (they call private or wrong APIs on purpose), caches, site-packages.
SKIP = frozenset({"test", "tests", "idle_test", "testing", "__pycache__", "site-packages"})
TARGET_PACKAGES = 0.5
#: Packages checked by the second pass, with themselves indexed (--indexed-home).
INDEXED = ("numpy", "pandas", "matplotlib")


def py_files(folder: Path) -> list[Path]:
    """The .py files under `folder`, sorted, SKIP folders and hidden folders left out."""
    out: list[Path] = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d not in SKIP and not d.startswith("."))
        out += [Path(root) / f for f in sorted(files) if f.endswith(".py")]
    return out


def stdlib_files() -> list[Path]:
    """The standard library's .py files (sysconfig stdlib: top-level modules and packages)."""
    return py_files(Path(sysconfig.get_paths()["stdlib"]))


def package_folder(name: str) -> Path | None:
    """The installed folder of package `name`, or None when it is not importable here (never imported)."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def check_files(validator, files: list[Path]) -> tuple[int, list[lint.Finding]]:
    """(non-blank lines, findings) of `files` checked as `check PATH` does (files that are not UTF-8 or
    that Python refuses are skipped: a few stdlib files are deliberately broken encodings)."""
    lines, found = 0, []
    for path in files:
        try:
            text = path.read_bytes().decode("utf-8-sig")
        except (UnicodeDecodeError, OSError):
            continue
        if "\0" in text:
            continue
        lines += sum(1 for ln in text.split("\n") if ln.strip())
        for block in lint.blocks(str(path), text):
            found += [
                f
                for f in lint.check_block(validator, str(path), block)
                if not f.reason.startswith("unparseable")
            ]
    return lines, found


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
        lines, found = check_files(validator, files)
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
    groups: list[tuple[str, list[Path]]] = [] if args.no_stdlib else [("standard library", stdlib_files())]
    missing = []
    for name in filter(None, args.packages.split(",")):
        folder = package_folder(name)
        if folder is None:
            missing.append(name)
        else:
            groups.append((name, py_files(folder)))
    rows, reasons, shown = [], Counter(), []
    pkg_lines = pkg_findings = 0
    t0 = time.perf_counter()
    for name, files in groups:
        lines, found = check_files(validator, files)
        rows.append((name, len(files), lines, len(found)))
        reasons.update((name == "standard library", f.reason) for f in found)
        shown += [(name, f) for f in found]
        if name != "standard library":
            pkg_lines, pkg_findings = pkg_lines + lines, pkg_findings + len(found)
        print(f"{name}: {len(files)} files, {lines} lines, {len(found)} findings", file=sys.stderr)
    took = time.perf_counter() - t0
    for name, f in shown[: args.show]:
        print(f"  [{name}] {f.path}:{f.line}:{f.col}: {f.reason} {f.message}", file=sys.stderr)
    std = next((r for r in rows if r[0] == "standard library"), None)
    text = (
        f"`python bench/false_alarms.py`: `check`'s linter (check/lint.py, as `gorilla-tui check PATH`) over real, shipped code, "
        f"on the default index ({', '.join(f'{s} {n}' for s, n in sorted(sources.items()))}); every finding is a false alarm. "
        f"Standard library: every .py of Python {sys.version.split()[0]}'s Lib/ except test folders (test/, tests/, idle_test/); "
        f"packages: their installed sources, test folders excluded{' (not installed: ' + ', '.join(missing) + ')' if missing else ''}. "
        f"Lines are non-blank lines. {took:.0f} s in one process.\n\n"
        "| code | files | lines | findings | per 10,000 lines |\n|---|---:|---:|---:|---:|\n"
    )
    for name, n_files, lines, n in rows:
        text += f"| {name} | {n_files} | {lines} | {n} | {per_10k(n, lines):.2f} |\n"
    text += f"| **installed packages** | | {pkg_lines} | {pkg_findings} | **{per_10k(pkg_findings, pkg_lines):.2f}** (target <= {TARGET_PACKAGES}) |\n"
    if std is not None:
        text += f"| **standard library** | | {std[2]} | {std[3]} | **{per_10k(std[3], std[2]):.2f}** (target 0 findings) |\n"
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
    text += "\n| reason code | standard library | installed packages |\n|---|---:|---:|\n"
    for code in sorted({c for _, c in reasons}):
        text += f"| {code} | {reasons[(True, code)]} | {reasons[(False, code)]} |\n"
    if not reasons:
        text += "| (none) | 0 | 0 |\n"
    if args.indexed_home:
        text += indexed_pass(args, ApiIndex, Validator)
    summary = [
        Figure(
            "`check` findings per 10k lines of installed packages",
            f"{per_10k(pkg_findings, pkg_lines):.2f}",
            "<= 0.5",
        ),
    ]
    if std is not None:
        summary.append(Figure("`check` findings on the standard library's own code", str(std[3]), "0"))
    return publish(TITLE, text, not args.no_write, summary=summary)


if __name__ == "__main__":
    sys.exit(main())
