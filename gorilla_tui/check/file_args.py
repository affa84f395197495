"""A path (a string literal written like one) passed where the matched entry takes a file object:
``pickle.load('x.pkl')`` fails when run (TypeError: file must have 'read' and 'readline' attributes;
``json.load('config.json')``: AttributeError: 'str' object has no attribute 'read';
``csv.reader('sales.csv')`` reads the path's characters as rows), so it is a wrong_args verdict
("wrong_args:wrong_type") with the call that opens the file as its did-you-mean: "pickle.load takes an
open file, not a path: pickle.load(open('x.pkl', 'rb'))".

Which parameters take a file object is pool/file_objects.py file_params's rule (the doc's description, else
its type stub), the one filling uses (fill/file_objects.py). It is asked only for a call that passes a
path (its stub lookup is cached, pool/stub_cache.py): a name, an attribute or a call may
be a file object, and a call with ``*args``/``**kwargs`` or passed through a wrapper (``partial``) binds
its arguments where this cannot see.
"""

from __future__ import annotations

import ast

from gorilla_tui.check.callsite import CallSite, Value
from gorilla_tui.pool.apidoc import ApiDoc
from gorilla_tui.pool.file_objects import PATH_SHAPED, file_params, open_call
from gorilla_tui.pool.params import params_of

#: The reason code of a path given for a file object (types.REASONS).
REASON = "wrong_args:wrong_type"


def file_arg_errors(doc: ApiDoc, call: CallSite) -> tuple[str, list[str], str]:
    """(reason, notes, the call with the files opened) when `call` passes a path (_path) for a parameter
    of `doc` that takes a file object, else ("", [], "").

    Returns:
        reason: REASON or "". notes: one line ("pickle.load takes an open file, not a path:
        pickle.load(open('x.pkl', 'rb'))"; "for fsrc and fdst" where the API takes more than one file).
        suggestion: `call`'s text with each such path opened, or the doc's call when the text cannot be
        parsed again.
    """
    if call.splat or call.via or not any(_path(v) for v in (*call.positional, *call.keywords.values())):
        return "", [], ""
    files = file_params(doc)
    if not files:
        return "", [], ""
    by_position = [p.name for p in params_of(doc) if p.kind in ("positional", "posonly")]
    given = [(by_position[i], v, i) for i, v in enumerate(call.positional) if i < len(by_position)]
    given += [(k, v, k) for k, v in call.keywords.items()]
    wrong = {at: files[name] for name, value, at in given if name in files and _path(value)}
    if not wrong:
        return "", [], ""
    names = [name for name, _value, at in given if at in wrong]
    suggestion = _opened(doc.api_name, call.text, wrong) or doc.call
    which = f" for {' and '.join(names)}" if len(files) > 1 else ""
    return REASON, [f"{doc.api_name} takes an open file{which}, not a path: {suggestion}"], suggestion


def _path(value: Value) -> bool:
    """Whether `value` is a plain string literal written like a file's path (a slash, or a file name's
    extension at its end: pool/file_objects.py PATH_SHAPED). Another string is left alone: test code
    passes placeholders (``pkgutil.ImpLoader("", "", "", "")`` in CPython's test_pkgutil, whose stub types
    its second parameter ``IO[str]``), and ``json.load('{}')`` is a str, not a path."""
    return value.literal and PATH_SHAPED.search(value.text) is not None


def _opened(api: str, text: str, wrong: dict[int | str, str]) -> str:
    """`text` (one call's source) with the arguments at `wrong`'s positions or keywords wrapped in the call
    that opens them (pool/file_objects.py open_call), or "" when it does not parse as one call."""
    try:
        node = ast.parse(f"(\n{text}\n)", mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return ""
    if not isinstance(node, ast.Call):
        return ""

    def wrap(value: ast.expr, mode: str) -> ast.expr:
        return ast.parse(open_call(api, mode, ast.unparse(value)), mode="eval").body

    try:
        node.args = [wrap(a, wrong[i]) if i in wrong else a for i, a in enumerate(node.args)]
        for kw in node.keywords:
            if kw.arg in wrong:
                kw.value = wrap(kw.value, wrong[kw.arg])
        return ast.unparse(node)
    except (SyntaxError, ValueError, RecursionError):  # pragma: no cover - unparse of a parsed call
        return ""
