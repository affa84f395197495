"""Callees of proposed code by qualified name (import aliases) and required parameters of python-env docs."""

from __future__ import annotations

import builtins
import contextlib
import contextvars
import dataclasses
import functools
import re
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from gorilla_tui.check.callnodes import python_name
from gorilla_tui.check.callsite import CallSite, Scan, bound_names, scan
from gorilla_tui.check.verdicts import later_note
from gorilla_tui.parsing import parse
from gorilla_tui.pool.pyenv import KEYWORD_ONLY_MARK, POSITIONAL_ONLY_MARK, SOURCE
from gorilla_tui.pool.stub_cache import required as stub_required

if TYPE_CHECKING:
    from tree_sitter import Node

    from gorilla_tui.pool.doc import ApiDoc

_HEAD = re.compile(r"^[A-Za-z_]\w*")


def _text(node: Node | None) -> str:
    """A name node's text as Python reads it (callnodes.python_name: NFKC, PEP 3131); "" for None."""
    return python_name((node.text or b"").decode("utf-8", "replace")) if node is not None else ""


#: Node types whose children can hold a statement (an import): only these are walked, so the
#: expressions of a large file (most of its nodes) are skipped. Any ERROR node is walked too.
HOLDS_STATEMENTS = frozenset({
    "module", "block", "decorated_definition", "function_definition", "class_definition", "if_statement",
    "for_statement", "while_statement", "try_statement", "with_statement", "match_statement",
    "elif_clause", "else_clause", "except_clause", "except_group_clause", "finally_clause", "case_clause",
    "ERROR",
})  # fmt: skip


#: Statements that bind a name another way than an import, and the field holding the target (a function's
#: parameters are read from its "parameters" field too; ``with ... as x`` and ``except E as x`` from their
#: as_pattern). Expressions are never entered: ``(x := ...)`` and comprehension variables are not read.
_REBINDING_FIELD = {
    "assignment": "left",
    "augmented_assignment": "left",
    "for_statement": "left",
    "function_definition": "name",
    "class_definition": "name",
}


@functools.lru_cache(maxsize=2048)  # `check` of a tree: the lookup, then the check, read each file
def _aliases_of_text(code: str) -> tuple[tuple[str, str], ...]:
    return tuple(import_aliases(parse(code).root_node).items())


#: The builtins' names: an import that rebinds one leaves it ambiguous (import_aliases).
_BUILTIN_NAMES = frozenset(dir(builtins))


def import_aliases(code: str | Node) -> dict[str, str]:
    """Local name -> qualified name for every absolute import in `code` (source text or a tree-sitter node).

    ``import x.y`` -> {"x": "x"}; ``import x.y as z`` -> {"z": "x.y"}; ``from x import y as z`` ->
    {"z": "x.y"}. Relative and star imports bind nothing here (their targets are unknown). Imports inside
    functions, if/try blocks count too (the proposal is a snippet). A later import of a name wins.

    A name the module also binds another way, before or after the import, is ambiguous and left out (a call
    through it is not the library's: ``import torch as t`` then ``t = other()`` then ``t.hub.load(...)``):
    an assignment target (plain, annotated, chained, augmented, unpacked), a ``for`` target, ``with ... as``,
    ``except ... as``, a ``def`` or ``class`` of that name, at module level or in its blocks; not in a class
    body (a class attribute or method is no module name) nor in a function (a parameter ``socket`` is local
    to its function: callsite.Scan.sees_import says which calls it shadows, check/scopes.py). Attribute and
    subscript targets (``t.x = 1``) bind no name. So is a builtin's name an import rebinds (``from itertools
    import imap as map``: a Python 2 shim). Only statements are walked (HOLDS_STATEMENTS), and the
    aliases of the last 2,048 texts are cached: `check` on a file of 20,000 lines asks for them several
    times, `check` of a tree twice per file (lookup, then check).
    """
    if isinstance(code, str):
        return dict(_aliases_of_text(code))
    aliases: dict[str, str] = {}
    rebound: set[str] = set()
    stack = [(code, False)]  # (node, whether it is a statement of a class body or a function)
    while stack:
        node, inner = stack.pop()
        kind = node.type
        if kind == "expression_statement":
            target = None if inner else node.child(0)
            while target is not None and target.type in ("assignment", "augmented_assignment"):
                _rebind(rebound, target.child(0))  # the "left" field (child(0): cheaper in a large file)
                target = target.child(target.child_count - 1)  # a = b = c: every target
            continue
        if kind in _REBINDING_FIELD:
            if not inner:  # a method's name, a class attribute or a function's local binds no module name
                _rebind(rebound, node.child_by_field_name(_REBINDING_FIELD[kind]))
        elif kind in ("with_statement", "except_clause") and not inner:
            items = [node] if kind == "except_clause" else [
                item for c in node.named_children if c.type == "with_clause" for item in c.named_children
            ]  # fmt: skip
            for item in items:  # with_item -> as_pattern; except_clause -> as_pattern
                for pattern in item.named_children:
                    if pattern.type == "as_pattern":
                        _rebind(rebound, pattern.child_by_field_name("alias"))
        if kind == "import_statement":
            for c in node.named_children:
                if c.type == "dotted_name":
                    head = _text(c).split(".")[0]
                    aliases[head] = head
                elif c.type == "aliased_import":
                    aliases[_text(c.child_by_field_name("alias"))] = _text(c.child_by_field_name("name"))
        elif kind == "import_from_statement":
            module = node.child_by_field_name("module_name")
            if module is None or module.type != "dotted_name":
                continue
            base = _text(module)
            for c in node.named_children:
                if c == module:
                    continue
                if c.type == "dotted_name":
                    aliases[_text(c)] = f"{base}.{_text(c)}"
                elif c.type == "aliased_import":
                    name, alias = _text(c.child_by_field_name("name")), _text(c.child_by_field_name("alias"))
                    aliases[alias] = f"{base}.{name}"
                    if alias in _BUILTIN_NAMES:
                        # a builtin's name rebound by an import is a compatibility shim ("from itertools
                        # import imap as map" under a Python 2 guard): the builtin runs elsewhere, so the
                        # name is ambiguous (break-it round 29, F7: 10 false alarms in sortedcontainers)
                        rebound.add(alias)
        elif kind in HOLDS_STATEMENTS or node is code:
            body = inner or kind in ("class_definition", "function_definition")
            stack.extend((c, body) for c in reversed(node.named_children))
    for name in rebound:
        aliases.pop(name, None)
    return aliases


def _rebind(rebound: set[str], target: Node | None) -> None:
    """Add the names binding `target` binds (callsite.bound_names) to `rebound`; None binds nothing."""
    if target is None:
        return
    if target.type == "identifier":  # most targets: one name, read without bound_names' walk
        rebound.add(_text(target))
    else:
        rebound.update(bound_names(target))


def qualify(callee: str, aliases: dict[str, str]) -> str:
    """Rewrite a callee's first name through `aliases`: ("np.array", {"np": "numpy"}) -> "numpy.array";
    ("loads", {"loads": "json.loads"}) -> "json.loads"; ("Path().read_text", {"Path": "pathlib.Path"}) ->
    "pathlib.Path().read_text". Names not imported are returned unchanged."""
    m = _HEAD.match(callee)
    if not m or m.group() not in aliases:
        return callee
    return aliases[m.group()] + callee[m.end() :]


def resolve_calls(code: str, calls: Sequence[CallSite], scanned: Scan | None = None) -> list[CallSite]:
    """`calls` (from callsite.scan(code)) with each callee rewritten through the code's imports (see
    :func:`qualify`): ``from json import loads; loads(s)`` has callee ``json.loads``. Code without imports
    gets its calls back unchanged. scanned: the scan of `code`; a call whose scopes bind its first name
    (a parameter ``socket`` of its function, Scan.sees_import) keeps it as written. Without it every call
    is qualified (the lookup's use: which entries to load)."""
    if "import" not in code:
        return list(calls)
    aliases = import_aliases(code)
    out = []
    for c in calls:  # a copy only for a callee the imports qualify (most are not: 187k copies per tree)
        head = _HEAD.match(c.callee) if c.callee and scanned is not None else None
        if head is not None and not scanned.sees_import(c, head.group()):  # type: ignore[union-attr]
            out.append(c)
            continue
        callee = qualify(c.callee, aliases) if c.callee else c.callee
        out.append(dataclasses.replace(c, callee=callee) if callee != c.callee else c)
    return out


@functools.lru_cache(maxsize=4096)  # a doc's api_call template, read for every call of that doc
def _calls_of(api_call: str) -> tuple[CallSite, ...]:
    return tuple(scan(api_call).calls)


def missing_required(doc: ApiDoc, call: CallSite) -> list[str]:
    """Required parameters of a python-env doc (pool/pyenv/source.py: api_arguments value "required") that
    `call` does not pass, in signature order; [] for other sources (their api_arguments are free text),
    for calls with ``*args`` / ``**kwargs``, and when every required parameter is given. A signature that
    takes its positional arguments as ``*args`` alone requires what typeshed's stub requires
    (_stub_required: ``subprocess.check_output()`` lacks ``args``).

    The doc's api_call template passes required positional parameters by position and required
    keyword-only ones as ``name=name``; a call may give a positional one by keyword too.
    """
    if doc.source != SOURCE or call.splat:
        return []
    if "required" not in doc.api_arguments.values():
        return _stub_required(doc, call)
    template = next(
        (
            c
            for c in _calls_of(doc.api_call)
            if c.callee and c.callee.endswith(doc.api_name.rsplit(".", 1)[-1])
        ),
        None,
    )
    if template is None:
        return []
    missing = [
        v.text
        for i, v in enumerate(template.positional)
        if i >= len(call.positional) and v.text not in call.keywords
    ]
    return missing + [k for k in template.keywords if k not in call.keywords]


#: A call with no argument (needed_call asks what such a call lacks).
_NO_ARGUMENTS = CallSite("", (), {}, "", 1, 1)


def _stub_required(doc: ApiDoc, call: CallSite) -> list[str]:
    """For a python-env doc whose signature takes positional arguments only as ``*args`` (``subprocess
    .run(*popenargs, ...)``, break-it round 22, R22-4): the positional parameters typeshed's stub requires
    in every overload (pool/stub_cache.py required: ``args``) that `call` gives neither by position nor by
    keyword, in the stub's order; [] for other signatures and where no stub says."""
    if not doc.api_arguments:
        return []
    _, positional, _, var, _ = _given_names(doc)
    if not var or positional:
        return []
    need = stub_required(doc.api_name)
    return [n for n in need[len(call.positional) :] if n not in call.keywords]


def needed_call(doc: ApiDoc) -> str:
    """The call a wrong_args verdict suggests for python-env doc `doc`: its call with the positional
    parameters its stub requires written in (_stub_required: ``subprocess.run(args)`` for the doc call
    ``subprocess.run()``), else the doc's call as it is."""
    need = _stub_required(doc, _NO_ARGUMENTS) if doc.source == SOURCE else []
    if need and doc.call.endswith("()"):
        return f"{doc.call[:-1]}{', '.join(need)})"
    return doc.call


def _given_names(doc: ApiDoc) -> tuple[list[str], list[str], list[str], bool, bool]:
    """(the names that may be given by keyword, the names that may be given by position, the positional-only
    names, has ``*args``, has ``**kwargs``) of a python-env doc's api_arguments (pool/pyenv/names.py: name
    -> default or "required"; "*name" / "**name" -> "optional"; the separators "/" and "*" where the
    signature has them; in signature order, so the names after ``*args`` or "*" are keyword-only and
    those before "/" positional-only)."""
    names: list[str] = []
    positional: list[str] = []
    var = varkw = keyword_only = False
    for k in doc.api_arguments:
        if k == POSITIONAL_ONLY_MARK:
            names.clear()  # every name so far is positional-only
        elif k == KEYWORD_ONLY_MARK:
            keyword_only = True
        elif k.startswith("**"):
            varkw = True
        elif k.startswith("*"):
            var = keyword_only = True
        else:
            names.append(k)
            if not keyword_only:
                positional.append(k)
    only = [k for k in positional if k not in names]
    return names, positional, only, var, varkw


#: True while the code checked is a JSON tool call's rendering: positional-only parameters named by the
#: schema are taken by position (by_schema_names). A context variable: check() stays thread-safe.
_SCHEMA_NAMED: contextvars.ContextVar[bool] = contextvars.ContextVar("schema_named", default=False)


@contextlib.contextmanager
def named_by_schema(on: bool = True) -> Iterator[None]:
    """Within the block (this thread or task), calls checked are JSON tool calls' renderings when `on`
    (Validator.check does it for format "json"; `check '{"name": ...}' --format json` through the
    linter)."""
    token = _SCHEMA_NAMED.set(on)
    try:
        yield
    finally:
        _SCHEMA_NAMED.reset(token)


def by_schema_names(doc: ApiDoc, call: CallSite) -> CallSite:
    """`call` with the keywords that name positional-only parameters of python-env doc `doc` moved to their
    positions, in the signature's order, when they are the next positions after the call's positional
    arguments (``math.sqrt(x=4)`` -> ``math.sqrt(4)``); else `call` as is. A JSON tool call (OpenAI, BFCL:
    ``{"name": "math.sqrt", "arguments": {"x": 4}}``) names every argument by its schema, positional-only
    ones too, so its rendered call is judged by this (Validator.check of format "json")."""
    if doc.source != SOURCE or not doc.api_arguments or call.splat:
        return call
    position_only = _given_names(doc)[2]
    moved = [k for k in position_only if k in call.keywords]
    start = len(call.positional)
    if not moved or position_only[start : start + len(moved)] != moved:
        return call
    keywords = {k: v for k, v in call.keywords.items() if k not in moved}
    positional = (*call.positional, *(call.keywords[k] for k in moved))
    return dataclasses.replace(call, positional=positional, keywords=keywords)


def _stub_keyword(function: str, keyword: str) -> bool:
    """True when the running Python's typeshed stub of `function` takes keyword `keyword` (a keyword the
    stub accepts is never unknown: pool/stub_members.py stub_takes_keyword)."""
    from gorilla_tui.pool.stub_members import (
        stub_takes_keyword,
    )  # deferred: typeshed_client, on a finding only

    return stub_takes_keyword(function, keyword)


def _later_keyword(function: str, keyword: str) -> str:
    """check/verdicts.py later_note for a keyword a later Python added to standard-library `function`
    (``shutil.rmtree(onexc=...)``: 3.12; pool/stub_members.py keyword_added_in), else ""."""
    from gorilla_tui.pool.stub_members import keyword_added_in  # deferred: typeshed_client, on a finding only

    return later_note(keyword_added_in(function, keyword))


def argument_errors(doc: ApiDoc, call: CallSite) -> tuple[str, list[str]]:
    """(reason code, one note per problem) when `call` passes arguments that a python-env doc's signature
    cannot bind, else ("", []), by Python's binding rule (inspect.Signature.bind): more positional
    arguments than parameters (no ``*args``), a keyword that names no parameter or one already given by
    position (no ``**kwargs``), a required parameter not given (:func:`missing_required`).

    Too many and unknown arguments are not looked for in docs of other sources, docs without parameters
    (a C function without a text signature: its parameters are unknown, pool/pyenv/compiled.py), calls
    with ``*args`` / ``**kwargs`` of their own and calls passed through a wrapper (``partial``,
    ``submit``, ``Thread``: call.via); missing ones as missing_required says. Keyword-only and
    positional-only parameters are told by the signature's own separators, recorded in api_arguments
    ("*" and "/", pool/pyenv/__init__.py): ``json.loads('x', 1)`` gives too many positional arguments
    (``json.loads(s, *, cls=None, ...)``), ``math.sqrt(x=4)`` a positional-only parameter given by
    keyword (``math.sqrt(x, /)``: Python's TypeError "got some positional-only arguments passed as keyword
    arguments"), reported as unknown_keyword. A signature read from a docstring's first line (C functions
    without a text signature) has no separators: each named parameter counts as positional-or-keyword,
    so the check can miss such an error, never invent one. Inside named_by_schema() the call is a JSON tool
    call's rendering (by_schema_names first).

    Returns:
        reason: "wrong_args:too_many_arguments", "wrong_args:unknown_keyword",
        "wrong_args:duplicate_argument" or "wrong_args:missing_argument" (the first problem found, in
        that order), or "".
        notes: one sentence per problem, e.g. "math.sqrt takes at most 1 positional argument, 2 given".
    """
    if _SCHEMA_NAMED.get():  # a JSON tool call: positional-only parameters named by its schema
        call = by_schema_names(doc, call)
    reasons: list[str] = []
    notes: list[str] = []
    if doc.source == SOURCE and not call.splat and not call.via and doc.api_arguments:
        names, by_position, position_only, var, varkw = _given_names(doc)
        if not var and len(call.positional) > len(by_position):
            reasons.append("wrong_args:too_many_arguments")
            n = len(by_position)
            notes.append(
                f"{doc.api_name} takes at most {n} positional argument{'s' if n != 1 else ''}, "
                f"{len(call.positional)} given"
            )
        if not varkw:
            unknown = [k for k in call.keywords if k not in names and not _stub_keyword(doc.api_name, k)]
            if unknown:
                reasons.append("wrong_args:unknown_keyword")
                known = ", ".join(names) or "none"
                notes += [
                    f"{doc.api_name} got a positional-only argument passed as keyword: {k!r}"
                    if k in position_only
                    else f"{doc.api_name} has no parameter {k!r} (parameters: {known})"
                    + _later_keyword(doc.api_name, k)
                    for k in unknown
                ]
            taken = set(by_position[: len(call.positional)])
            twice = [k for k in call.keywords if k in taken and k not in position_only]
            if twice:
                reasons.append("wrong_args:duplicate_argument")
                notes += [f"{doc.api_name} got multiple values for argument {k!r}" for k in twice]
    missing = missing_required(doc, call)
    if missing:
        reasons.append("wrong_args:missing_argument")
        notes += [f"argument {m!r} is required by {doc.api_name}" for m in missing]
    return (reasons[0] if reasons else ""), notes
