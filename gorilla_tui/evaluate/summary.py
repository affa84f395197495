"""The end-of-run report of `eval run`: both metrics of the response file (evaluate.score_file), latency
percentiles, and how often the ground truth was among the hits and was picked."""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gorilla_tui.errors import UsageError
from gorilla_tui.evaluate.apibench_files import read_numbered
from gorilla_tui.evaluate.responses import answer_problem, damaged, rewrite
from gorilla_tui.evaluate.score import Score, score_file
from gorilla_tui.evaluate.tasks import EvalTask


def percentile(values: Sequence[float], q: float) -> float:
    """q-th percentile (0..100) by nearest rank; 0.0 for no values."""
    if not values:
        return 0.0
    s = sorted(values)
    return s[min(len(s) - 1, max(0, -(-len(s) * q // 100) - 1))]


def _squeeze(call: str) -> str:
    return "".join(call.split())


@dataclass
class Summary:
    """The end-of-run report over every line of the response file.

    gorilla, strict: evaluate.Score of each metric; n: lines; latency_p50/p95: seconds per task
    (timings.total); in_hits: tasks whose ground-truth api_call (whitespace ignored) is among the hits
    (api@k); picked: tasks whose answer is exactly the ground-truth api_call; picked_in_hits: of the
    in_hits tasks, how many the model picked (the select-mode choice quality); failed: error lines."""

    gorilla: Score
    strict: Score
    n: int
    latency_p50: float
    latency_p95: float
    in_hits: int
    picked: int
    picked_in_hits: int
    failed: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "gorilla": self.gorilla.to_dict(),
            "strict": self.strict.to_dict(),
            "latency_p50": round(self.latency_p50, 3),
            "latency_p95": round(self.latency_p95, 3),
            "api_at_k": round(self.in_hits / self.n, 6) if self.n else 0.0,
            "picked": round(self.picked / self.n, 6) if self.n else 0.0,
            "picked_when_in_hits": round(self.picked_in_hits / self.in_hits, 6) if self.in_hits else 0.0,
            "failed": self.failed,
        }


def summarise(
    out: str | Path, hub: str, tasks: Sequence[EvalTask], *, eval_path: Path, pool_path: Path
) -> Summary:
    """Score the lines of the response file that answer `tasks` with evaluate.score_file (both metrics; a
    file also holding other tasks is scored through a filtered temporary copy) and add latency and hit
    figures. Raises UsageError when no line answers any of the tasks, or when a line that does has a field
    of the wrong type (responses.answer_problem: "damaged answer file FILE, line N: ...")."""
    truth = {t.question_id: _squeeze(t.api_call) for t in tasks}
    every = read_numbered(out, "responses")
    lines = [x for _, x in every if x and x.get("question_id") in truth]
    for number, x in every:
        problem = answer_problem(x) if x and x.get("question_id") in truth else ""
        if problem:
            raise damaged(out, number, problem)
    if not lines:
        raise UsageError(f"{out} holds no answer to the selected tasks")
    if len(lines) != len(every):
        with tempfile.TemporaryDirectory(prefix="gorilla-tui-eval-") as tmp:
            part = Path(tmp) / "responses.jsonl"
            rewrite(part, lines)
            return summarise(part, hub, tasks, eval_path=eval_path, pool_path=pool_path)
    in_hits = picked = both = 0
    for x in lines:
        gt = truth.get(x.get("question_id"), None)
        hit = gt is not None and any(_squeeze(str(h[0])) == gt for h in x.get("hits") or [] if h)
        ok = gt is not None and _squeeze(str(x.get("api_call", ""))) == gt
        in_hits, picked, both = in_hits + hit, picked + ok, both + (hit and ok)
    totals = [
        float(x["timings"]["total"]) for x in lines if (x.get("timings") or {}).get("total") is not None
    ]
    kw = {"eval_path": eval_path, "pool_path": pool_path}
    return Summary(
        gorilla=score_file(hub, out, metric="gorilla", **kw),
        strict=score_file(hub, out, metric="strict", **kw),
        n=len(lines),
        latency_p50=percentile(totals, 50),
        latency_p95=percentile(totals, 95),
        in_hits=in_hits,
        picked=picked,
        picked_in_hits=both,
        failed=sum(1 for x in lines if x.get("error")),
    )
