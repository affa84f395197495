"""`eval bfcl`: the Berkeley Function Calling Leaderboard's single-turn Python questions answered through the
pipeline and scored by BFCL's AST checker (evaluate/bfcl_checker.py).

The data (BFCL v4, as the PyPI package bfcl-eval ships it in bfcl_eval/data/; not a dependency): a folder of
question files ``BFCL_v4_<category>.json`` and their ground truth in ``possible_answer/`` (JSON Lines;
irrelevance has none), by default the bfcl/ folder of the shared data (apibench_files.shared_dir). Each
question is answered with its own functions as the API pool (BFCL's setting: an in-memory BM25 index over
their pool.functions.function_doc ApiDocs), or, pooled, with every function of the requested categories
beside the live index's sources. The answer file holds one JSON line per question (its id, the proposed
calls, whether BFCL's checker finds them right and why not) and is resumable like `eval run`'s
(evaluate/responses.py load_resumable). Ids with an even number are the dev half, odd ones the test half
(choose settings on dev, report both: ../shared/bfcl/README.md).
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gorilla_tui.errors import UsageError
from gorilla_tui.evaluate.apibench_files import read_jsonl, read_numbered, shared_dir
from gorilla_tui.evaluate.bfcl_checker import check_calls
from gorilla_tui.evaluate.responses import Resumable, damaged, fields_problem, load_resumable
from gorilla_tui.evaluate.run import RunStats, answer_in_turn
from gorilla_tui.evaluate.summary import percentile
from gorilla_tui.pool.apidoc import ApiDoc
from gorilla_tui.pool.functions import function_doc
from gorilla_tui.retrieve.index import ApiIndex

if TYPE_CHECKING:
    from gorilla_tui.pipeline import Pipeline
    from gorilla_tui.types import Proposal

#: Our short names of the five categories in the shared data -> BFCL's category names.
CATEGORIES = {
    "simple": "simple_python",
    "multiple": "multiple",
    "parallel": "parallel",
    "parallel_multiple": "parallel_multiple",
    "irrelevance": "irrelevance",
}
#: A category's question file; its ground truth has the same name in ANSWERS.
FILE = "BFCL_v4_{}.json"
ANSWERS = "possible_answer"
#: Words of the BFCL categories the AST checker here cannot score (other languages, several turns, agents).
UNSUPPORTED = ("java", "javascript", "multi_turn", "memory", "web_search", "format_sensitivity")
#: The source name of the questions' function docs (ApiDoc.source).
SOURCE = "bfcl"
#: The two halves of the ids: "dev" (even numbers, where settings are chosen) and "test" (odd numbers).
SPLITS = ("dev", "test")


def default_data_dir() -> Path:
    """The bfcl/ folder of the shared data ($GORILLA_TUI_SHARED or ../shared beside the checkout)."""
    return shared_dir() / "bfcl"


def category_name(name: str) -> str:
    """BFCL's name of a category: one of CATEGORIES' short names or a BFCL category name (e.g.
    "simple_python"). Raises UsageError for an empty or malformed name or one of the UNSUPPORTED kinds."""
    name = name.strip().lower()
    full = CATEGORIES.get(name, name)
    if not re.fullmatch(r"[a-z][a-z0-9_]*", full):
        raise UsageError(f"unknown BFCL category {name!r} (expected one of {', '.join(CATEGORIES)})")
    if any(word in full for word in UNSUPPORTED):
        raise UsageError(f"BFCL category {name!r} is not scored here: only the single-turn Python "
                         f"categories ({', '.join(CATEGORIES)}, live_simple, ...)")  # fmt: skip
    return full


@dataclass(frozen=True)
class BfclQuestion:
    """One BFCL question. id: BFCL's ("simple_python_12"); category: BFCL's category name; text: what the
    pipeline is asked (question_text); functions: its function definitions (BFCL's JSON); truth: the
    ground truth, ``[{func_name: {param: [acceptable values]}}]``, None for the relevance categories."""

    id: str
    category: str
    text: str
    functions: list[dict[str, Any]]
    truth: list[dict[str, Any]] | None

    @property
    def number(self) -> int:
        """The number the id ends with (12 for "simple_python_12"); -1 when it ends with none."""
        m = re.search(r"(\d+)$", self.id)
        return int(m.group(1)) if m else -1

    @property
    def split(self) -> str:
        """ "dev" for an even id number, "test" for an odd one (SPLITS)."""
        return "dev" if self.number % 2 == 0 else "test"


def question_text(turns: Any) -> str:
    """The text to ask for a question's ``question`` field (a list of turns, each a list of {role,
    content} messages): the system messages first, then the user messages, one per line."""
    messages = [m for turn in turns if isinstance(turn, list) for m in turn if isinstance(m, dict)]
    system = [str(m.get("content", "")) for m in messages if m.get("role") == "system"]
    user = [str(m.get("content", "")) for m in messages if m.get("role") == "user"]
    return "\n".join(t.strip() for t in system + user if t.strip())


def load_questions(data_dir: str | Path, category: str) -> list[BfclQuestion]:
    """The questions of one category (category_name) in file order, with their ground truth.

    Raises:
        UsageError: the folder or the category's question file is missing (an unknown category), a file
            is unreadable, a line is not a question, or a question has no ground truth (except in the
            relevance categories, which have none).
    """
    folder = Path(data_dir)
    if not folder.is_dir():
        raise UsageError(f"BFCL data folder {folder} not found: pass --data DIR (a folder of BFCL_v4_*.json)")
    category = category_name(category)
    path = folder / FILE.format(category)
    if not path.is_file():
        known = sorted(p.name[len("BFCL_v4_") : -len(".json")] for p in folder.glob(FILE.format("*")))
        raise UsageError(f"unknown BFCL category {category!r}: no {path.name} in {folder} "
                         f"(there: {', '.join(known) or 'none'})")  # fmt: skip
    truth: dict[str, list[dict[str, Any]]] = {}
    if "relevance" not in category:
        answers = folder / ANSWERS / path.name
        if not answers.is_file():
            raise UsageError(f"no ground truth for {category}: {answers} is missing")
        for number, row in enumerate(read_jsonl(answers, "BFCL ground truth"), start=1):
            if row and isinstance(row.get("id"), str) and isinstance(row.get("ground_truth"), list):
                if not all(_truth_call(call) for call in row["ground_truth"]):
                    raise UsageError(
                        f"{answers}:{number}: not a BFCL ground truth ([{{name: {{param: [values]}}}}])"
                    )
                truth[row["id"]] = row["ground_truth"]
    questions = []
    for number, row in enumerate(read_jsonl(path, "BFCL question"), start=1):
        if (
            not row
            or not isinstance(row.get("id"), str)
            or not isinstance(row.get("function"), list)
            or not all(_function(f) for f in row["function"])
        ):
            raise UsageError(f"{path}:{number}: not a BFCL question ({{id, question, function}})")
        if "relevance" not in category and row["id"] not in truth:
            raise UsageError(f"{path}:{number}: question {row['id']} has no ground truth in {ANSWERS}/")
        text = question_text(row.get("question") or [])
        questions.append(BfclQuestion(row["id"], category, text, row["function"], truth.get(row["id"])))
    return questions


def _function(f: object) -> bool:
    """Whether `f` has the shape of a BFCL function definition: an object with a string name and, when
    given, parameters that are an object whose properties are an object (break-it round 16: a string or a
    list there was an AttributeError deep in the pipeline)."""
    if not isinstance(f, dict) or not isinstance(f.get("name"), str):
        return False
    params = f.get("parameters", {})
    return isinstance(params, dict) and isinstance(params.get("properties", {}), dict)


def _truth_call(call: object) -> bool:
    """Whether `call` has the shape of one call of a BFCL ground truth: {function name: {param: values}}."""
    return isinstance(call, dict) and all(isinstance(k, str) and isinstance(v, dict) for k, v in call.items())


def select_questions(
    questions: Sequence[BfclQuestion], limit: int | None, stride: int = 1
) -> list[BfclQuestion]:
    """Every `stride`-th question from the first (positions 0, S, 2S, ...), then at most `limit` of those.
    Raises UsageError for a limit or stride below 1."""
    if limit is not None and limit < 1:
        raise UsageError(f"--limit must be at least 1, not {limit}")
    if stride < 1:
        raise UsageError(f"--stride must be at least 1, not {stride}")
    return list(questions[::stride][:limit])


def question_docs(functions: Sequence[dict[str, Any]], start: int = 1) -> list[ApiDoc]:
    """The ApiDocs of function definitions (pool.functions.function_doc, source SOURCE, ids from `start`);
    a function without a usable name is left out (nothing could call it)."""
    docs = []
    for function in functions:
        try:
            docs.append(function_doc(function, source=SOURCE, index=start + len(docs)))
        except ValueError:
            continue
    return docs


def question_index(question: BfclQuestion) -> ApiIndex:
    """An in-memory BM25 index over the question's own functions (BFCL's setting).

    Raises GorillaError when none of them has a usable name or an indexable word."""
    return ApiIndex.build(question_docs(question.functions))


def pooled_index(questions: Sequence[BfclQuestion], live: ApiIndex | None = None) -> ApiIndex:
    """The API pool of `--pooled`: every distinct function of `questions` (the same definition in several
    questions once) among a large API pool.

    When `live` (the live index) already holds each of them as a doc with the same name and call (the
    person indexed them: `index --refresh --source bfcl=BFCL_v4_simple_python.json`), `live` itself is the
    pool, hybrid when it has vectors: the setting a person gets. Otherwise one in-memory BM25 index over
    live's docs and the functions (no vectors for them). On simple at stride 5, the hybrid live index
    answered 55.0 % (dev 62.5) against 53.75 % (dev 57.5) for the BM25 one (docs/benchmarks.md, "BFCL end
    to end")."""
    seen: dict[str, dict[str, Any]] = {}
    for question in questions:
        for function in question.functions:
            seen.setdefault(json.dumps(function, sort_keys=True), function)
    docs = question_docs(list(seen.values()))
    if live is not None:
        held = {(d.api_name, d.api_call) for d in live.docs}
        if all((d.api_name, d.api_call) in held for d in docs):
            return live
    return ApiIndex.build([*(live.docs if live is not None else ()), *docs])


@dataclass(frozen=True)
class BfclRun:
    """What identifies a run; every line of an answer file carries it and a resume must match it."""

    model: str
    mode: str
    select_by: str
    k: int
    pooled: bool

    def key(self) -> dict[str, Any]:
        return {"model": self.model, "mode": self.mode, "select_by": self.select_by, "k": self.k,
                "pooled": self.pooled}  # fmt: skip


def _plain(value: Any) -> Any:
    """`value` as JSON can hold it: tuples as lists, dict keys as strings, other values JSON has no
    type for (sets, bytes, complex numbers) as their repr."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return repr(value)


def answer_line(question: BfclQuestion, proposal: Proposal, run: BfclRun) -> dict[str, Any]:
    """One line of the answer file: id, category, the proposal's calls (Proposal.calls, [] when none),
    whether BFCL's checker finds them right (checked as the pipeline gave them, before JSON turns tuples
    into lists), its error and error_type ("" when right), the proposed api_call, the seconds the ask
    took, and the run's identity."""
    result = check_calls(question.category, question.functions, proposal.calls, question.truth)
    return {"id": question.id, "category": question.category, "calls": _plain(proposal.calls),
            "valid": result.valid, "error": result.error, "error_type": result.error_type,
            "api_call": proposal.api_call, "seconds": round(proposal.timings.get("total", 0.0), 3),
            **run.key()}  # fmt: skip


def failed_line(question: BfclQuestion, run: BfclRun, message: str) -> dict[str, Any]:
    """The line of a question the pipeline failed on: wrong, and answered again by the next resume."""
    return {"id": question.id, "category": question.category, "calls": [], "valid": False,
            "error": message, "error_type": "failed", "failed": message, **run.key()}  # fmt: skip


def answer_problem(line: dict[str, Any]) -> str:
    """What is wrong with the fields of an answered line (answer_line), in words, or "" when nothing:
    seconds a finite number (or absent), valid true or false, calls a list, error_type a string or null
    (responses.fields_problem)."""
    kinds = {"seconds": "seconds or null", "valid": "boolean", "calls": "list",
             "error_type": "string or null"}  # fmt: skip
    return fields_problem(line, kinds)


def load_done(out: str | Path, run: BfclRun) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """The answered lines of an existing answer file by id, and notes on what was repaired (a partial last
    line, failed lines: evaluate/responses.py load_resumable). Raises UsageError for another run's file,
    one that is not an answer file, or a line in it that is not an answer or has a field of the wrong type
    (answer_problem; kept: nothing is changed)."""
    kind = Resumable(key="id", key_type=str, identity=lambda line: {k: line.get(k) for k in run.key()},
                     expected=run.key(), shape="{id, calls, valid, ...}", failed="failed",
                     problem=answer_problem)  # fmt: skip
    return load_resumable(out, kind)


def answer_questions(
    questions: Sequence[BfclQuestion],
    out: str | Path,
    run: BfclRun,
    pipeline_for: Callable[[BfclQuestion], Pipeline],
    *,
    stop: threading.Event | None = None,
    cancel: threading.Event | None = None,
    on_answer: Callable[[dict[str, Any]], None] | None = None,
) -> RunStats:
    """Answer the questions not yet in `out`, one at a time, appending one flushed line each (answer_line).

    pipeline_for(question): the pipeline to ask it with (one over question_index(question), or one
    pipeline over a pooled_index for all); it is asked question.text in run.mode. stop, cancel, on_answer:
    as evaluate.run.answer_in_turn. Raises UsageError (load_done), remote.EndpointDownError, GorillaError
    after run.MAX_FAILURES_IN_A_ROW failures in a row."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    done, notes = load_done(out, run)
    stats = RunStats(notes=notes)
    todo = [q for q in questions if q.id not in done]
    stats.skipped = len(questions) - len(todo)

    def answer(question: BfclQuestion) -> dict[str, Any]:
        proposal = pipeline_for(question).ask(question.text, cancel=cancel, mode=run.mode)
        return answer_line(question, proposal, run)

    started = time.perf_counter()
    try:
        answer_in_turn(todo, out, stats, answer=answer, failed=lambda q, why: failed_line(q, run, why),
                       stop=stop, cancel=cancel, on_answer=on_answer)  # fmt: skip
    finally:
        stats.seconds = time.perf_counter() - started
    return stats


@dataclass
class CategoryScore:
    """One category's figures over the answered questions: n and right (BFCL's checker), the same for the
    dev (even ids) and test (odd ids) halves, failed (the pipeline failed: wrong), the wrong answers per
    error_type, and the seconds per question (p50)."""

    category: str
    n: int = 0
    right: int = 0
    split_n: dict[str, int] = field(default_factory=lambda: dict.fromkeys(SPLITS, 0))
    split_right: dict[str, int] = field(default_factory=lambda: dict.fromkeys(SPLITS, 0))
    failed: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    seconds_p50: float = 0.0

    def accuracy(self, split: str = "") -> float:
        """right / n (0..1) over every answered question, or over one split ("dev", "test"); 0.0 for none."""
        n, right = (self.split_n[split], self.split_right[split]) if split else (self.n, self.right)
        return right / n if n else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"category": self.category, "n": self.n, "right": self.right,
                "accuracy": round(self.accuracy(), 6),
                **{f"{s}_n": self.split_n[s] for s in SPLITS},
                **{f"{s}_right": self.split_right[s] for s in SPLITS},
                **{f"{s}_accuracy": round(self.accuracy(s), 6) for s in SPLITS},
                "failed": self.failed, "errors": dict(self.errors.most_common()),
                "seconds_p50": round(self.seconds_p50, 3)}  # fmt: skip


def score_answers(out: str | Path, questions: Sequence[BfclQuestion]) -> list[CategoryScore]:
    """The figures of the answer file's lines for `questions` (other lines are ignored), per category in
    the questions' order, then "all" when there are several. A line counts as right when its "valid" is
    true (the checker's verdict on the calls as the pipeline gave them). Raises UsageError when the file
    cannot be read or an answered line's field has the wrong type (answer_problem: "damaged answer file
    FILE, line N: ...")."""
    wanted = {q.id: q for q in questions}
    lines = {}
    for number, row in read_numbered(out, "BFCL answers"):
        if row and row.get("id") in wanted:
            problem = "" if row.get("failed") else answer_problem(row)
            if problem:
                raise damaged(out, number, problem)
            lines.setdefault(row["id"], row)
    scores: dict[str, CategoryScore] = {}
    total = CategoryScore("all")
    seconds: dict[str, list[float]] = {}
    for question in questions:
        line = lines.get(question.id)
        if line is None:
            continue
        right = line.get("valid") is True and not line.get("failed")
        score = scores.setdefault(question.category, CategoryScore(question.category))
        for s in (score, total):
            s.n += 1
            s.right += right
            s.split_n[question.split] += 1
            s.split_right[question.split] += right
            s.failed += bool(line.get("failed"))
            if not right:
                s.errors[str(line.get("error_type") or "unknown")] += 1
            seconds.setdefault(s.category, []).append(float(line.get("seconds") or 0.0))
    for s in (*scores.values(), total):
        s.seconds_p50 = percentile(seconds.get(s.category, []), 50)
    return [*scores.values(), *([total] if len(scores) > 1 else [])]
