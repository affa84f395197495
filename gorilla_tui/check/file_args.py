"""A string literal passed where the matched entry's doc says a file object goes: ``json.load('config.json')``
fails when run (AttributeError: 'str' object has no attribute 'read'), so it is a wrong_args verdict
("wrong_args:wrong_type") with the call that opens the file as its did-you-mean,
``json.load(open('config.json'))``, the mode the doc implies written out (``open('a.plist', 'rb')``).

Which parameters take a file object is pool/file_objects.py file_params's rule, read from the doc's
description (the same rule filling uses, fill/file_objects.py). Only a plain string literal is held to it:
a name, an attribute or a call may be a file object, and a call with ``*args``/``**kwargs`` or passed
through a wrapper (``partial``) binds its arguments where this cannot see.
"""

from __future__ import annotations

import ast

from gorilla_tui.check.callsite import CallSite
from gorilla_tui.pool.apidoc import ApiDoc
from gorilla_tui.pool.file_objects import file_params
from gorilla_tui.pool.params import params_of

#: The reason code of a path given for a file object (types.REASONS).
REASON = "wrong_args:wrong_type"


def file_arg_errors(doc: ApiDoc, call: CallSite) -> tuple[str, list[str], str]:
    """(reason, notes, the call with the files opened) when `call` passes a string literal for a parameter
    of `doc` that takes a file object, else ("", [], "").

    Returns:
        reason: REASON or "". notes: one per such argument ("json.load's fp takes a file object, not the
        path 'config.json': open it"). suggestion: `call`'s text with each such literal opened, or the
        doc's call when the text cannot be parsed again.
    """
    files = file_params(doc)
    if not files or call.splat or call.via:
        return "", [], ""
    by_position = [p.name for p in params_of(doc) if p.kind in ("positional", "posonly")]
    given = [(by_position[i], v, i) for i, v in enumerate(call.positional) if i < len(by_position)]
    given += [(k, v, k) for k, v in call.keywords.items()]
    wrong = {at: files[name] for name, value, at in given if name in files and value.literal}
    if not wrong:
        return "", [], ""
    notes = [
        f"{doc.api_name}'s {name} takes a file object, not the path {value.text!r}: open it"
        for name, value, at in given
        if at in wrong
    ]
    return REASON, notes, _opened(call.text, wrong) or doc.call


def _opened(text: str, wrong: dict[int | str, str]) -> str:
    """`text` (one call's source) with the arguments at `wrong`'s positions or keywords wrapped in
    ``open(value, mode)`` (the mode left out when "r"), or "" when it does not parse as one call."""
    try:
        node = ast.parse(f"(\n{text}\n)", mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return ""
    if not isinstance(node, ast.Call):
        return ""

    def wrap(value: ast.expr, mode: str) -> ast.expr:
        args = [value] if mode == "r" else [value, ast.Constant(mode)]
        return ast.Call(ast.Name("open", ast.Load()), args, [])

    node.args = [wrap(a, wrong[i]) if i in wrong else a for i, a in enumerate(node.args)]
    for kw in node.keywords:
        if kw.arg in wrong:
            kw.value = wrap(kw.value, wrong[kw.arg])
    try:
        return ast.unparse(node)
    except (ValueError, RecursionError):  # pragma: no cover - unparse of a parsed call
        return ""
