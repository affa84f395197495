"""Verdicts of several calls made one (rules 0 and 3 of check/validator.py's verdict rule): the running
Python's own refusal of the code (`python_error`), the worst verdict over the calls (`worst`), each call's
row in Verdict.calls (`call_row`), and the order in which one text's candidate verdicts compete (`RANK`)."""

from __future__ import annotations

import ast

from gorilla_tui.check.callsite import CallSite, nesting_error
from gorilla_tui.check.signature import canonical
from gorilla_tui.types import CallVerdict, Verdict, VerdictKind

#: How bad a verdict is when code holds several calls (worst decides).
_WORST = {"valid": 0, "wrong_args": 1, "hallucination": 2}
#: Which of one text's candidate verdicts wins (Validator.check): valid > wrong_args > hallucination >
#: unparseable > no_call.
RANK = {"valid": 0, "wrong_args": 1, "hallucination": 2, "unparseable": 3, "no_call": 4}


def python_error(code: str) -> tuple[str, str] | None:
    """(reason code, "line:col: message") when the running Python refuses `code`, else None.

    Bracket nesting beyond CPython's limit (MAX_NESTING) is reported first without parsing; then
    ``compile(code, "<code>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)`` (nothing is executed) gives
    Python's own message and position (``'(' was never closed`` at the bracket). NUL bytes, lone
    surrogates and code too deep for Python's AST construction are refused with a message too."""
    deep = nesting_error(code)
    if deep is not None:
        return "unparseable:nesting_limit", deep
    try:
        compile(code, "<code>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as e:  # IndentationError and TabError included
        line, col = e.lineno or 1, e.offset or 1
        return "unparseable:python_syntax", f"{line}:{col}: {e.msg}"
    except ValueError as e:  # "source code string cannot contain null bytes"
        return "unparseable:python_syntax", f"1:1: {e}"
    except UnicodeError:
        return "unparseable:python_syntax", "1:1: text holds a lone surrogate (not UTF-8 encodable)"
    except (RecursionError, MemoryError):
        return "unparseable:python_syntax", "1:1: too deeply nested for Python's parser"
    return None


def worst(
    found: list[tuple[CallSite, Verdict]], prefer: list[tuple[CallSite, Verdict]] | None = None
) -> Verdict:
    """The worst verdict of `found` (hallucination > wrong_args > valid), the first in source order among
    equals; a valid result is the first valid call of `prefer` (an API pool call rather than python-env)."""
    rank = max(_WORST.get(v.kind, 0) for _, v in found)
    if rank == 0 and prefer:
        return prefer[0][1] if prefer[0][1].kind == "valid" else next(v for _, v in prefer if v.ok)
    return next(v for _, v in found if _WORST.get(v.kind, 0) == rank)


def call_row(call: CallSite, role: str, verdict: Verdict | None) -> CallVerdict:
    """One call's row in Verdict.calls: incidental calls and calls inside a matched pool call (role "part")
    are not checked (kind no_call); an "other" call's
    callee is not in the pool (hallucination:unknown_callee; it decides only when no API call does)."""
    kind: VerdictKind = "no_call"
    reason = ""
    if verdict is not None:
        kind, reason = verdict.kind, verdict.reason
    elif role == "other":
        kind, reason = "hallucination", "hallucination:unknown_callee"
    return CallVerdict(
        call=call.text if not call.via else f"{call.callee}(...) via {call.via}",
        callee=canonical(call.callee),
        line=call.line,
        col=call.col,
        role=role,
        kind=kind,
        reason=reason,
        matched=verdict.matched.id if verdict is not None and verdict.matched is not None else None,
        via=call.via,
    )
