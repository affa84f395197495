"""Generate mode's proposal: the one judged call, never the rest of the model's text (break-it R24-5).

An endpoint (or the model) may answer ``__import__('os').system(...); shutil.copy('a.txt', 'b.txt')``: the
check judged the copy valid and the proposal kept the whole text as its call and code, so `ask --run` and
the TUI offered to run the os.system under a valid verdict. Here the proposal's call is one judged call
alone when the answer's call field is not one call statement (each statement judged alone, the best kept:
a valid one that runs no command before one that does); the model's separate code is left out when
it runs code or a command (check/runs_code.py) the call does not; and a call of that kind inside the
proposed call's arguments makes the verdict ``wrong_args:runs_code``. Each step leaves a warning.
Besides callees by name, code that reaches running code another way (getattr, vars, sys.modules, dunder
attributes, pickle, ctypes, a decorator; runs_code.reaches_code, break-it R25-1) counts the same.
"""

from __future__ import annotations

import ast
import dataclasses
import warnings as _warnings
from typing import Any

from gorilla_tui.check.extract import extract
from gorilla_tui.check.runs_code import RUNS_CODE_NOTE, reaches_code, runs_code
from gorilla_tui.check.verdicts import RANK
from gorilla_tui.types import Verdict

__all__ = ["one_call", "proposed"]


#: At most this many statements of an api_call field are judged one by one (the rest are left out too).
MAX_STATEMENTS = 20


def _body(text: str) -> list[ast.stmt]:
    """The statements of `text` as Python parses them ([] for text it does not parse)."""
    try:
        with _warnings.catch_warnings():
            _warnings.simplefilter("ignore")  # "invalid escape sequence" in the model's text: not ours
            return ast.parse(text).body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return []


def one_call(text: str) -> bool:
    """True when `text` is one statement that is a call, or assigns or awaits one (``torch.hub.load(...)``,
    ``model = pipeline(...)``); False for more statements, any other statement, or text Python does not
    parse."""
    body = _body(text)
    if len(body) != 1 or not isinstance(body[0], ast.Expr | ast.Assign | ast.AnnAssign):
        return False
    value = body[0].value
    value = value.value if isinstance(value, ast.Await) else value
    return isinstance(value, ast.Call)


def _running(verdict: Verdict) -> list[tuple[str, str]]:
    """(callee, call text) of each call of the checked code that runs code or a command."""
    return [(c.callee, c.call) for c in verdict.calls if runs_code(c.callee)]


def _best_statement(checker: Any, text: str) -> Verdict | None:
    """The verdict of the best statement of `text` judged alone (valid first, then wrong_args... as
    check.verdicts.RANK; a statement that runs code or a command after one that does not; then the first),
    None when no statement has a call that decides."""
    scored = []
    for i, node in enumerate(_body(text)[:MAX_STATEMENTS]):
        part = ast.get_source_segment(text, node) or ""
        verdict = checker.check(part) if part.strip() else None
        if verdict is not None and verdict.api_call:
            scored.append((RANK[verdict.kind], bool(_running(verdict)), i, verdict))
    return min(scored, key=lambda s: s[:3])[3] if scored else None


def proposed(
    checker: Any, api_call: str, code: str, verdict: Verdict, warnings: list[str]
) -> tuple[str, str, Verdict]:
    """(api_call, code, verdict) of a generate-mode answer, from the extracted call and code and the check's
    verdict on them (see the module doc); warnings gets a line for each part left out or judged.

    Args:
        checker: the pipeline's validator (check, check_code).
        api_call: the answer's call field (or the judged call when it had none); code: its code field, or
            the call field when it had none.
        verdict: the check's verdict on `api_call` (or `code`).
        warnings: the proposal's warnings, appended to.

    Returns:
        The call to propose, the code to show and run, and the verdict on them."""
    judged = (verdict.api_call or "").strip()
    if api_call.strip() and judged and not one_call(api_call.strip()):
        left = api_call.strip()
        warnings.append(
            "the model's call held more than one call statement: only the judged call is proposed, the rest"
            " is left out of the call and the code"
        )
        verdict = _best_statement(checker, left) or verdict
        api_call = (verdict.api_call or judged).strip()
        code = api_call if code.strip() in ("", left) else code
    if code.strip() and code.strip() != api_call.strip():
        own = {callee for callee, _ in _running(checker.check_code(api_call))} if api_call.strip() else set()
        extra = sorted({callee for callee, _ in _running(checker.check_code(code)) if callee not in own})
        reached = set(reaches_code(api_call))  # R25-1: other routes (getattr, sys.modules, pickle, ...)
        extra += [said for said in reaches_code(code) if said not in reached and said not in extra]
        if extra:
            warnings.append(
                f"the model's code was left out: it calls or reaches {', '.join(extra[:3])}, which"
                f" {RUNS_CODE_NOTE} outside the proposed call"
            )
            code = api_call
    if api_call.strip() and verdict.kind not in ("hallucination", "unparseable", "no_call"):
        judged = (verdict.api_call or "").strip()
        inner = [(c, t) for c, t in _running(checker.check_code(api_call)) if t.strip() != judged]
        inner = inner or [(said, api_call) for said in reaches_code(api_call, skip_outer=True)][:1]
        if inner:  # said first whatever else is wrong (an unknown repo_or_dir too)
            callee, text = inner[0]
            note = f"an argument calls {callee}, which {RUNS_CODE_NOTE}: {text}"
            said = [note, *verdict.diagnostics]
            kind, reason = (
                ("wrong_args", "wrong_args:runs_code") if verdict.ok else (verdict.kind, verdict.reason)
            )
            verdict = dataclasses.replace(verdict, kind=kind, diagnostics=said, reason=reason)
    return api_call, code, verdict


def extracted(text: str) -> tuple[str, str, str, str]:
    """(api_call, code, code_source, explanation) pulled out of a generate-mode answer (check/extract)."""
    ex = extract(text)
    api_call = (ex.api_call or "").strip()
    return api_call, (ex.code or api_call), "model", ex.explanation or ""


def generated(
    checker: Any, api_call: str, code: str, verdict: Verdict, warnings: list[str]
) -> tuple[str, str, Verdict]:
    """(api_call, code, verdict) of a generate-mode answer as proposed: an answer without an api_call field
    (free text, a bare call) proposes the call that decided the verdict (`ask` printed "call (none)" above a
    valid verdict); then `proposed` (the one judged call, the code's other calls said); a valid call whose
    code shown fails the check takes the code's verdict (the code the person copies and runs must pass too).
    Arguments as `proposed`'s."""
    if not api_call and verdict.api_call:
        api_call = verdict.api_call
    api_call, code, verdict = proposed(checker, api_call, code, verdict, warnings)
    if verdict.ok and code.strip() and code.strip() != api_call.strip():
        shown = checker.check_code(code)
        if shown.kind not in ("valid", "no_call"):
            shown.diagnostics.insert(0, "the api_call is valid, but the code shown is not")
            verdict = shown
    return api_call, code, verdict
