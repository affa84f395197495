"""A filled call written out: the call Python will run, positional where the signature wants it and keywords
otherwise (`render`; a method's receiver with its constructor's arguments inside its parentheses,
`render_target`), BFCL's decoded form of it (`decoded`, `decoded_calls`) and the code to copy
(`python_code`). fill/filler.py fill writes each call the model wrote with these; values are parsed, never
evaluated.
"""

from __future__ import annotations

import ast
import dataclasses
import keyword
import re
from collections.abc import Mapping, Sequence
from typing import Any

from gorilla_tui.fill.candidate import list_items, literal
from gorilla_tui.fill.file_objects import opened
from gorilla_tui.fill.receivers import Receiver, own_receiver
from gorilla_tui.fill.target import Target
from gorilla_tui.pool.apidoc import ApiDoc
from gorilla_tui.pool.params import Param
from gorilla_tui.pool.stub_cache import takes_command
from gorilla_tui.types import Argument


def python_code(doc: ApiDoc, call: str) -> str:
    """The code to copy and run for a filled `call` of `doc`: the doc's example code with its template call
    replaced by the filled one where the example holds it (python-env's ``import shutil`` + the call), else
    the call alone; ``import os`` first where the call expands a home path (`home_paths`) and the code does
    not import os."""
    template = doc.call.strip()
    code = doc.example_code.replace(template, call, 1) if template and template in doc.example_code else call
    if f"{EXPAND}(" in call and not re.search(r"^\s*import\s+os\s*$", code, re.MULTILINE):
        code = f"import os\n{code}"
    return code


#: The function that expands a path from the home folder (Python's file functions do not: open('~/x')
#: looks for a folder named "~").
EXPAND = "os.path.expanduser"
#: A path from the home folder as a task writes it: ~, ~/notes.txt, ~anna/x (POSIX shell, section 2.6.1).
_HOME_PATH = re.compile(r"~[\w.-]*(?:/\S*)?")


def home_paths(doc: ApiDoc, callee: str, given: dict[str, tuple[str, str]]) -> dict[str, tuple[str, str]]:
    """`given` (name -> (value source, origin)) where a string from the task that is a path from the home
    folder (_HOME_PATH: '~/notes.txt'), given as the value or as the file an ``open(...)`` opens
    (fill/file_objects.py opened), is passed expanded: ``open(os.path.expanduser('~/notes.txt'))``. Python's
    functions take ~ as a folder's name, so ``open('~/notes.txt')`` fails (break-it round 21, R21-2). Only
    for the standard library's calls (python-env; a function-calling source's tool gets the value as
    typed) other than os.path.expanduser itself; a command's list (subprocess) never holds one
    (fill/derived.py with_commands). Read with ast, never evaluated."""
    if doc.source != "python-env" or callee.endswith("expanduser"):
        return given
    out = dict(given)
    for name, (value, origin) in given.items():
        if origin != "task":
            continue
        try:
            node = ast.parse(value, mode="eval").body
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            continue
        if isinstance(node, ast.Call) and ast.unparse(node.func) == "open" and node.args:
            node = node.args[0]  # the path an open() of a file-object parameter opens
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str) and node.col_offset is not None
                and node.end_col_offset is not None and node.lineno == node.end_lineno == 1
                and _HOME_PATH.fullmatch(node.value)):  # fmt: skip
            continue
        start, end = node.col_offset, node.end_col_offset
        out[name] = (f"{value[:start]}{EXPAND}({value[start:end]}){value[end:]}", origin)
    return out


def decoded_calls(code: str) -> list[dict[str, dict[str, Any]]]:
    """Every call of `code` whose arguments are all literals given by keyword, in BFCL's decoded form
    ``[{"callee": {"param": value}}]`` (values as ast.literal_eval reads them; never evaluated). A call
    with a positional argument or a non-literal value is left out (its parameter names are not known here),
    and so is one with a bytes value (_has_bytes); [] for text Python cannot parse."""
    try:
        tree = ast.parse(code.strip())
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return []
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or node.args or any(k.arg is None for k in node.keywords):
            continue
        try:
            values = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        if not any(_has_bytes(v) for v in values.values()):
            out.append({ast.unparse(node.func): {k: _json_form(v) for k, v in values.items()}})
    return out


def _has_bytes(value: Any) -> bool:
    """Whether `value` is or holds what JSON has no form for: bytes, a complex number, a dict key that is no
    str, number, bool or None. The decoded form (written with json.dumps by `ask --json`, MCP, the history
    and `eval bfcl --out`) leaves such a value out."""
    if isinstance(value, (bytes, bytearray, complex)):
        return True
    if isinstance(value, (list, tuple, set, frozenset)):
        return any(_has_bytes(v) for v in value)
    if isinstance(value, dict):
        return any(
            not isinstance(k, (str, int, float, bool, type(None))) or _has_bytes(v) for k, v in value.items()
        )
    return False


def _json_form(value: Any) -> Any:
    """`value` (no _has_bytes) as JSON can hold it: a set as the list of its items, sorted where they sort
    ("get the length of the set {1, 2, 3}" is ``{"len": {"obj": [1, 2, 3]}}``; the set made every such ask an
    "internal error" when its history row was written: break-it round 31), inside lists, tuples and dicts
    too."""
    if isinstance(value, (set, frozenset)):
        items = [_json_form(v) for v in value]
        try:
            return sorted(items)
        except TypeError:
            return sorted(items, key=repr)
    if isinstance(value, list):
        return [_json_form(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_json_form(v) for v in value)
    if isinstance(value, dict):
        return {k: _json_form(v) for k, v in value.items()}
    return value


#: Parameters that take a POSIX permission mode (os.chmod, os.mkdir, os.makedirs, pathlib.Path.chmod, ...):
#: a mode the task writes as three or four octal digits ("755", "0644") is octal, as chmod(1) reads it.
MODE_PARAMS = frozenset({"mode"})
_UNIX_MODE = re.compile(r"0?[0-7]{3}")


def render(
    callee: str, params: Sequence[Param], given: dict[str, tuple[str, str]]
) -> tuple[str, list[Argument]]:
    """The call's text and its arguments in call order.

    Args:
        callee: the dotted callee; params: the doc's parameters in declared order.
        given: name -> (value source text, origin) of the parameters filled or left as placeholders.

    Returns:
        (call text, [Argument]): parameters that may be given by position and come before any gap are
        positional (``os.renames('a', 'b')``), the rest by keyword (``**{'class': 3}`` for a name Python
        cannot write as a keyword); a positional-only parameter after a gap
        gets its default written out (origin "default"), or the placeholder when it has none; ``*args``
        given as a list is its items by position, left out after a gap.
    """
    positional: list[str] = []
    keywords: list[str] = []
    unnamed: list[str] = []
    args: list[Argument] = []
    gap = False
    for p in params:
        if p.name not in given:
            if p.kind in ("positional", "posonly"):
                gap = True
            continue
        value, origin = given[p.name]
        if p.kind == "var":  # *args: the list's items by position (call_grammar.with_varargs), after no gap
            items = list_items(value)
            if not gap and items:
                positional += items
                # one item as the call holds it: subprocess.run(['ls', '-la']) holds no [['ls', '-la']]
                args.append(Argument(p.name, items[0] if len(items) == 1 else value, origin))
            continue
        if p.name in MODE_PARAMS and origin == "task" and _UNIX_MODE.fullmatch(value):
            value = "0o" + value.lstrip("0")  # "chmod run.sh 755": the octal mode 0o755, not decimal 755
        if p.kind == "posonly" or (p.kind == "positional" and not gap):
            if p.kind == "posonly" and gap:  # cannot be given by keyword: fill the gap before it
                for q in params[: params.index(p)]:
                    if q.kind == "posonly" and q.name not in given and q.has_default:
                        positional.append(_default(q))
                        args.append(Argument(q.name, _default(q), "default"))
            positional.append(value)
        elif p.name.isidentifier() and not keyword.iskeyword(p.name):
            keywords.append(f"{p.name}={value}")
        else:  # a tool's parameter named "class" or "my-param": Python's own way to pass it
            unnamed.append(f"{literal(p.name)}: {value}")
        args.append(Argument(p.name, value, origin))
    if unnamed:
        keywords.append("**{" + ", ".join(unnamed) + "}")
    return f"{callee}({', '.join(positional + keywords)})", args


def _default(param: Param) -> str:
    try:
        return literal(param.default)
    except TypeError:
        return str(param.default)


def decoded(callee: str, given: dict[str, tuple[str, str]]) -> list[dict[str, dict[str, Any]]]:
    """The call in BFCL's decoded form: ``[{callee: {name: value}}]`` with the values Python reads from the
    literals; placeholders and bytes values (_has_bytes: no JSON form) are left out."""
    values = {}
    for name, (source, origin) in given.items():
        if origin == "missing":
            continue
        try:
            value = ast.literal_eval(source)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        if not _has_bytes(value):
            values[name] = _json_form(value)
    return [{callee: values}]


def _str_literal(source: str) -> bool:
    """True when `source` is the text of one str literal (``','``, ``'hello world'``), not a name or bytes."""
    try:
        return isinstance(ast.literal_eval(source), str)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False


def render_target(target: Target, given: dict[str, tuple[str, str]], receiver: Receiver | None = None,
                  stated: Mapping[str, str] | None = None, typed: dict[str, str] | None = None,
                  ) -> tuple[str, list[Argument], list[dict[str, dict[str, Any]]]]:  # fmt: skip
    """(call text, arguments, decoded calls) of one written call: `render` and `decoded`; with a
    `receiver`, its constructor's arguments inside the receiver's parentheses
    (``pathlib.Path('/var/log').iterdir()``), a str receiver given as a literal written as that literal
    (``','.join(parts)``: check/builtin_types.py reads it as str's), listed first, and the decoded form
    gives the method's call then the constructor's (``[{"pathlib.Path().iterdir": {}}, {"pathlib.Path":
    {...}}]``). A receiver that is the person's own variable is written as it is, not converted
    (fill/receivers.py own_receiver, with `stated`: the classes the task gives its variables): ``text.count(
    'the')``, not ``list(text).count('the')``; `typed` gets the variable -> the class the checker reads it
    as. A parameter that takes a file object gets the task's path opened (fill/file_objects.py:
    ``json.load(open(p))``); a path from the home folder is passed expanded (home_paths)."""
    given = home_paths(target.doc, target.callee, opened(target.doc, given))
    if receiver is None:
        call, arguments = render(target.callee, target.params, given)
        return call, *_command_named(target, arguments, decoded(target.callee, given))
    own = {p.name for p in receiver.params}
    first = {k: v for k, v in given.items() if k in own}
    rest = {k: v for k, v in given.items() if k not in own}
    method = [p for p in target.params if p.name not in own]
    made, made_args = render(receiver.callee, receiver.params, first)
    text = first.get("object", ("", "missing"))
    if receiver.callee == "str" and len(first) == 1 and text[1] != "missing" and _str_literal(text[0]):
        made = text[0]  # ','.join(parts), not str(',').join(parts): the checker reads a literal as str's
    own = own_receiver(receiver, first, stated or {})
    if own is not None:  # text.count('the'), not list(text).count('the'): the person's variable as it is
        made = own[0]
        if typed is not None:
            typed[own[0]] = own[1]
    call, arguments = render(f"{made}.{receiver.method}", method, rest)
    return call, made_args + arguments, decoded(target.callee, rest) + decoded(receiver.callee, first)


def _command_named(target: Target, arguments: list[Argument], calls: list[dict[str, dict[str, Any]]]
                   ) -> tuple[list[Argument], list[dict[str, dict[str, Any]]]]:  # fmt: skip
    """`arguments` and decoded `calls` where a standard-library function's ``*args`` that its stub names
    ``args`` and types as a command line (pool/stub_cache.py takes_command: ``subprocess.check_output(
    *popenargs, ...)``) is given by that name and as the one list the call holds, as the person writes it
    and the docs describe it: ``args=['ls', '-la']``, not ``popenargs=[['ls', '-la']]``."""
    var = {p.name for p in target.params if p.kind == "var"}
    if target.doc.source != "python-env" or not var & {a.name for a in arguments}:
        return arguments, calls
    if not takes_command(target.callee, "args"):
        return arguments, calls

    def one(value: Any) -> Any:
        return value[0] if isinstance(value, list) and len(value) == 1 else value

    named = [dataclasses.replace(a, name="args") if a.name in var else a for a in arguments]
    return named, [
        {
            f: {("args" if k in var else k): (one(v) if k in var else v) for k, v in c.items()}
            for f, c in d.items()
        }
        for d in calls
    ]
