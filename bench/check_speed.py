"""Cold `gorilla-tui check` / `search` start-up: whole-process medians next to `python -c pass` (issue 20).

Run: python bench/check_speed.py [--runs 7] [--home DIR] [--baseline ../main --baseline-home DIR]
(writes the "check speed" section of docs/benchmarks.md; --baseline adds `search` run by another
checkout's code on the index in --baseline-home, e.g. main before this work). Uses the index of
GORILLA_TUI_HOME (or --home; build it with `gorilla-tui index --refresh --from ../shared/apibench/api
--from ../shared`). Each row is a fresh process; wall time and CPU time (user + system of the child, from
os.wait4) are reported, the CPU figure being the one that does not move with the load of other processes
on a shared machine. The load average is printed with the figures.

Bytecode: an installed package has its .pyc files (pip compiles them). A checkout run with
PYTHONDONTWRITEBYTECODE=1 (as on the shared machine) compiles every module of gorilla_tui in every process,
so the rows run with a bytecode cache in a temporary PYTHONPYCACHEPREFIX, filled by one untimed run of each
row; one row shows `search` without it.
"""

# ruff: noqa: E501  (markdown table rows read better unwrapped)
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import publish  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO / "tests" / "data" / "lint_corpus"
#: Targets of issue 20 (median wall seconds of a cold process on this machine).
TARGET = {"check": 0.25, "search": 0.3, "tree": 10.0}


#: The large-file row: `check` of write_large's file (the break-it pass found 9 MB taking 1m43s).
LARGE_ROW = (
    "`check large.py` (generated: 20,000 lines, 0.8 MB, 20,000 calls of which the first 2,000 are checked)"
)


def write_large(path: Path) -> Path:
    """A valid Python file of 20,000 lines: imports, then torch.hub.load on every 10th line (pool models)
    and os.path.join on the others. Returns `path`."""
    models = ("resnet18", "resnet34", "resnet50")
    lines = ["import os", "import torch"]
    for i in range(20_000):
        if i % 10 == 0:
            lines.append(f'x{i} = torch.hub.load("pytorch/vision", "{models[i % 3]}", pretrained=True)')
        else:
            lines.append(f'y{i} = os.path.join("a", "b{i}")')
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds user+system, exit status) of one process, run in the checkout its
    PYTHONPATH names (`python -m` looks in the current folder first)."""
    start = time.perf_counter()
    cwd = env.get("PYTHONPATH") or None
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=cwd)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_utime + usage.ru_stime, proc.returncode


def as_store_version_1(folder: Path) -> bool:
    """Rewrite a copied version folder of store version 2 in the files of store version 1 (docs.json,
    tf.npz, vectors.npz), as an index refreshed before issue 20 has them. False when it is not version 2."""
    import numpy as np  # deferred: only this set-up needs numpy/scipy in the parent process
    from scipy import sparse  # deferred: see above

    meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    if meta.get("store_version") != 2:
        return False
    lines = (folder / "docs.jsonl").read_bytes().splitlines()
    (folder / "docs.json").write_bytes(b"[" + b",".join(lines) + b"]")
    with np.load(folder / "postings.npz") as npz:
        shape = (len(npz["lengths"]), len(npz["indptr"]) - 1)
        tf = sparse.csc_matrix((npz["tf"], npz["rows"], npz["indptr"]), shape=shape).tocsr()
    sparse.save_npz(folder / "tf.npz", tf, compressed=False)
    if (folder / "vectors.npy").is_file():
        np.savez(
            folder / "vectors.npz", vectors=np.load(folder / "vectors.npy"), mask=np.load(folder / "mask.npy")
        )
        for name in ("vectors.npy", "mask.npy"):
            (folder / name).unlink()
    for name in ("docs.jsonl", "postings.npz"):
        (folder / name).unlink()
    (folder / "meta.json").write_text(json.dumps(dict(meta, store_version=1)), encoding="utf-8")
    return True


#: The tree row: this many .py files of the installed packages bench/false_alarms.py reads (issue 39).
TREE_FILES = 1000


def write_tree(folder: Path, n: int = TREE_FILES) -> tuple[Path, int]:
    """Copy the first `n` .py files (sorted, test folders left out) of the installed packages that
    bench/false_alarms.py checks (its PACKAGES order) into `folder`; returns (folder, lines copied)."""
    from false_alarms import PACKAGES, package_folder, py_files

    copied = lines = 0
    for name in PACKAGES:
        src = package_folder(name)
        for path in py_files(src) if src is not None else []:
            if copied >= n:
                return folder, lines
            dest = folder / path.relative_to(src.parent)
            dest.parent.mkdir(parents=True, exist_ok=True)
            data = path.read_bytes()
            dest.write_bytes(data)
            copied, lines = copied + 1, lines + data.count(b"\n")
    return folder, lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--home", default=os.environ.get("GORILLA_TUI_HOME"))
    ap.add_argument(
        "--baseline", metavar="CHECKOUT", help="another checkout (e.g. main): one more search row"
    )
    ap.add_argument("--baseline-home", metavar="DIR", help="the home holding the index that checkout built")
    ap.add_argument(
        "--linter",
        action="store_true",
        help="only the linter rows (issue 39: one file, and a tree of 1,000 real files) beside `python -c pass`, "
        "with ratios to it, in their own section",
    )
    args = ap.parse_args()
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    pycache = Path(tempfile.mkdtemp(prefix="check-speed-pyc-"))
    env["PYTHONPYCACHEPREFIX"] = str(pycache)
    if args.home:
        env["GORILLA_TUI_HOME"] = args.home
    py = sys.executable
    gt = [py, "-m", "gorilla_tui"]
    home = Path(args.home) if args.home else None
    src = (home / "data" / "index") if home else None
    if src is None or not (src / "CURRENT").is_file():
        raise SystemExit("no index: set GORILLA_TUI_HOME (or --home) to a home holding one")
    live = (src / "CURRENT").read_text().strip()
    # (a row of the same index without its lookup, how check ran before issue 20, was dropped in session 15:
    # an index whose lookup is unusable is refused as damaged now, so that path no longer exists)
    # the same index in the files of store version 1 (with its lookup): how `search` reads an index
    # refreshed before issue 20 until it is refreshed again
    v1_home = Path(tempfile.mkdtemp(prefix="check-speed-v1-"))
    shutil.copytree(src / live, v1_home / "data" / "index" / live)
    (v1_home / "data" / "index" / "CURRENT").write_text(live)
    v1 = as_store_version_1(v1_home / "data" / "index" / live)
    v1_env = dict(env, GORILLA_TUI_HOME=str(v1_home))
    large = write_large(Path(tempfile.mkdtemp(prefix="check-speed-large-")) / "large.py")
    rows = [
        ("`python -c pass`", [py, "-c", "pass"], None, None),
        (
            '`check "<torch.hub.load call>" --json`',
            [*gt, "check", "torch.hub.load('pytorch/vision', 'resnet50', pretrained=True)", "--json"],
            "check",
            {0},
        ),
        (
            '`check "<os.path.join call>" --json`',
            [*gt, "check", "import os\nos.path.join('a', 'b')", "--json"],
            "check",
            {0},
        ),
        (
            "`check segment_and_report.py` (one file)",
            [*gt, "check", str(CORPUS / "segment_and_report.py")],
            "check",
            {1},
        ),
        ("`check tests/data/lint_corpus` (7 files)", [*gt, "check", str(CORPUS)], None, {1}),
        (LARGE_ROW, [*gt, "check", str(large)], None, {0}),
        (
            '`check --hub torchhub "<call>"`',
            [*gt, "check", "--hub", "torchhub", "torch.hub.load('pytorch/vision', 'resnet50')", "--json"],
            "check",
            {0},
        ),
        ('`search "classify images" --json`', [*gt, "search", "classify images", "--json"], "search", {0}),
        ('`search "classify images"` (table)', [*gt, "search", "classify images"], "search", {0}),
        (
            '`search --hub torchhub "detect objects in an image" --json`',
            [*gt, "search", "--hub", "torchhub", "detect objects in an image", "--json"],
            "search",
            {0},
        ),
        (
            '`search "read a csv file" --json` (python-env, BM25 alone)',
            [*gt, "search", "read a csv file", "--json"],
            "search",
            {0},
        ),
        *(
            [
                (
                    '`search "classify images" --json`, index of store version 1 (read whole)',
                    [*gt, "search", "classify images", "--json"],
                    None,
                    {0},
                )
            ]
            if v1
            else []
        ),  # fmt: skip
        (
            '`search "classify images" --json`, no bytecode cache (every module compiled)',
            [*gt, "search", "classify images", "--json"],
            None,
            {0},
        ),
    ]

    tree_lines = 0
    if args.linter:
        tree, tree_lines = write_tree(Path(tempfile.mkdtemp(prefix="check-speed-tree-")))
        n_tree = sum(1 for _ in tree.rglob("*.py"))
        rows = [
            rows[0],
            rows[4],
            (
                f"`check TREE` ({n_tree:,} .py files of installed packages, {tree_lines:,} lines)",
                [*gt, "check", str(tree)],
                "tree",
                {0, 1},
            ),
        ]
    no_pyc_env = dict(env, PYTHONDONTWRITEBYTECODE="1")
    no_pyc_env.pop("PYTHONPYCACHEPREFIX")

    if args.baseline:
        base_env = dict(env, PYTHONPATH=str(Path(args.baseline).resolve()))
        base_env["PYTHONPYCACHEPREFIX"] = str(pycache / "baseline")
        if args.baseline_home:
            base_env["GORILLA_TUI_HOME"] = args.baseline_home
    if args.baseline and args.linter:  # the tree row run by the baseline's code, beside this checkout's
        name, cmd, _, ok = rows[-1]
        rows.append((f"{name}, baseline: the code of {args.baseline}", cmd, None, ok))
    elif args.baseline:
        name = f'`search "classify images" --json`, baseline: the code of {args.baseline} on its index'
        rows.insert(-1, (name, [*gt, "search", "classify images", "--json"], None, {0}))
        name = f"{LARGE_ROW}, baseline: the code of {args.baseline} on its index"
        rows.insert(-1, (name, [*gt, "check", str(large)], None, {0}))

    def env_of(name: str) -> dict[str, str]:
        if "baseline:" in name:
            return base_env
        if "store version 1" in name:
            return v1_env
        return no_pyc_env if "no bytecode" in name else env

    times: dict[str, list[tuple[float, float]]] = {name: [] for name, *_ in rows}
    load_start = os.getloadavg()
    for name, cmd, _, _ in rows:  # untimed: fills the bytecode cache and the page cache
        timed(cmd, env_of(name))
    for _ in range(args.runs):  # interleaved: a burst of load hits every row alike
        for name, cmd, _, ok in rows:
            wall, cpu, code = timed(cmd, env_of(name))
            if ok is not None and code not in ok:
                raise SystemExit(f"{name} exited {code}; is there an index in GORILLA_TUI_HOME?")
            times[name].append((wall, cpu))
    load = os.getloadavg()
    lines = [
        f"`python bench/check_speed.py --runs {args.runs}`: cold processes on the default index (APIBench hubs and APIZoo hybrid, python-env BM25), "
        f"median of {args.runs} interleaved runs after one untimed run of each; {os.cpu_count()} shared CPU cores, load average {load_start[0]:.1f} at the start and {load[0]:.1f} at the end. "
        "CPU = user + system time of the process (what an idle machine's wall time approaches). "
        "Rows run with a bytecode cache, as an installed package has (see the script's docstring).",
        "",
        "| command | wall median s | wall min s | CPU median s | target (wall) |",
        "|---|---:|---:|---:|---|",
    ]
    for name, _, kind, _ in rows:
        walls = [w for w, _ in times[name]]
        cpus = [c for _, c in times[name]]
        target = f"<= {TARGET[kind]}" if kind else ""
        lines.append(
            f"| {name} | {statistics.median(walls):.3f} | {min(walls):.3f} | {statistics.median(cpus):.3f} | {target} |"
        )
    shutil.rmtree(v1_home, ignore_errors=True)
    shutil.rmtree(pycache, ignore_errors=True)
    shutil.rmtree(large.parent, ignore_errors=True)
    if args.linter:
        base = statistics.median(w for w, _ in times[rows[0][0]])
        lines[-len(rows) - 2 :] = [
            "| command | wall median s | CPU median s | wall / `python -c pass` wall | target |",
            "|---|---:|---:|---:|---|",
        ] + [
            f"| {name} | {statistics.median(w for w, _ in times[name]):.3f} | "
            f"{statistics.median(c for _, c in times[name]):.3f} | "
            f"{statistics.median(w for w, _ in times[name]) / base:.1f}x | "
            f"{f'<= {TARGET[kind]} s' if kind else ''} |"
            for name, _, kind, _ in rows
        ]
        lines.append(
            "\nThe tree is checked by one forked worker per core (check/batch.py): its CPU figure is the sum over "
            "the workers, so an idle machine's wall time approaches CPU / cores for it."
        )
        publish("check speed: the linter (issue 39)", "\n".join(lines), True)
        return
    text = "\n".join(lines)
    publish("check speed", text, True)


if __name__ == "__main__":
    main()
