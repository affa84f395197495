"""Verdicts of several calls made one (rules 0 and 3 of check/validator.py's verdict rule): the running
Python's own refusal of the code (`python_error`), the worst verdict over the calls (`worst`), each call's
row in Verdict.calls (`call_row`), the order in which one text's candidate verdicts compete (`RANK`), and a
valid verdict made `incomplete` when the proposed call still holds placeholders."""

from __future__ import annotations

import ast
import dataclasses
import sys

from gorilla_tui.check.callsite import CallSite, nesting_error
from gorilla_tui.check.signature import canonical
from gorilla_tui.types import NEEDS_NOTE, CallVerdict, Verdict, VerdictKind

#: How bad a verdict is when code holds several calls (worst decides).
_WORST = {"valid": 0, "wrong_args": 1, "hallucination": 2}
#: Which of one text's candidate verdicts wins (Validator.check): valid > wrong_args > hallucination >
#: unparseable > no_call. incomplete (never given by the Validator, see `incomplete`) ranks after valid.
RANK = {"valid": 0, "incomplete": 1, "wrong_args": 2, "hallucination": 3, "unparseable": 4, "no_call": 5}
#: The reason code of an incomplete verdict.
INCOMPLETE_REASON = "incomplete:missing_value"


def later_note(later: str) -> str:
    """ " (added in Python 3.12; the pool is Python 3.11's)" for a name or keyword a later Python's stubs
    first have (`later`: "3.12", pool/typeshed.py added_in), else "" (`later` empty): the name is real,
    only not in the Python the pool was built from."""
    here = f"{sys.version_info[0]}.{sys.version_info[1]}"
    return f" (added in Python {later}; the pool is Python {here}'s)" if later else ""


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
    except UnicodeError as e:  # before ValueError, which it is: Python's codec message at 1:1 was shown
        at = min(getattr(e, "start", 0), len(code))
        line, col = code.count("\n", 0, at) + 1, at - code.rfind("\n", 0, at)
        found = f", U+{ord(code[at]):04X}" if at < len(code) else ""
        return "unparseable:python_syntax", f"{line}:{col}: not UTF-8 text (a lone surrogate{found})"
    except ValueError as e:  # "source code string cannot contain null bytes"
        return "unparseable:python_syntax", f"1:1: {e}"
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


def incomplete(verdict: Verdict, needs: list[str]) -> Verdict:
    """A valid verdict made ``incomplete`` when the proposed call still holds placeholders the task gave no
    value for (Proposal.needs: the parameters' names in call order; the pipeline calls this). The call is
    an API of the pool with arguments its schema accepts, but it cannot run as it is. The result keeps the
    verdict's call, matched doc and per-call rows; its reason is "incomplete:missing_value" and its first
    diagnostic "needs: src, dst" (types.NEEDS_NOTE, the names once each, in order).

    A verdict that is not valid, or an empty `needs`, is returned as it is: a worse verdict says more
    than the placeholders do.
    """
    names = list(dict.fromkeys(n for n in needs if n))
    if verdict.kind != "valid" or not names:
        return verdict
    note = NEEDS_NOTE + ", ".join(names)
    return dataclasses.replace(
        verdict, kind="incomplete", reason=INCOMPLETE_REASON, diagnostics=[note, *verdict.diagnostics]
    )
