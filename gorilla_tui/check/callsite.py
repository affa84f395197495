"""Find the calls in Python code with tree-sitter and normalise callee and argument values for matching."""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from gorilla_tui.parsing import parse

if TYPE_CHECKING:
    from tree_sitter import Node

#: Longest callee / argument text kept (characters); longer ones are cut (hostile input stays cheap).
MAX_TEXT = 400
#: At most this many calls are read from one piece of code (1 MB of calls stays bounded).
MAX_CALLS = 2000

#: CPython's tokenizer refuses more nested (), [] and {} than this ("too many nested parentheses";
#: MAXLEVEL in Parser/tokenizer.c); tree-sitter parses any depth, so scan() checks it separately.
MAX_NESTING = 200

_SPACE = re.compile(r"\s+")
# Strings and comments are skipped when counting brackets (prefixes such as r/b/f are just letters here).
_BRACKETS = re.compile(
    r"'''(?:\\.|[^\\])*?'''|\"\"\"(?:\\.|[^\\])*?\"\"\"|'(?:\\.|[^\\'\n])*'"
    r"|\"(?:\\.|[^\\\"\n])*\"|#[^\n]*|[(\[{]|[)\]}]|\n"
)
_STRING_PREFIX = re.compile(r"^[rRbBuUfF]{0,2}")
_local = threading.local()


@dataclass(frozen=True)
class Value:
    """One argument value, normalised for comparison.

    text: a plain string literal's content (quotes and prefix removed, ``\\'``/``\\"`` unescaped), else the
    source text with whitespace removed and double quotes turned into single quotes.
    literal: it is a plain string literal (no f-string interpolation). has_literal: a string literal occurs
    somewhere in it (e.g. ``cached_download(hf_hub_url('a/b'))``).
    """

    text: str
    literal: bool = False
    has_literal: bool = False


@dataclass(frozen=True)
class CallSite:
    """One call found in code. callee: the function expression with argument lists emptied and whitespace
    removed (``torch.hub.load``, ``service.users().list``); "" when it is not a name chain (a lambda, a
    subscript result...). positional / keywords: normalised argument values in source order; splat: the
    call has ``*args`` or ``**kwargs``. text: the call's source. line, col: 1-based start position.
    tail: the attribute read from the call's result (``dividends`` in ``Ticker(t).dividends``), or "".
    via: for a call passed as a value (``functools.partial(f, a)``, ``pool.submit(f, a)``), the wrapper's
    callee as written; the CallSite is then the call of ``f`` with the arguments given (see WRAPPERS).
    span: (start, end) byte offsets of the call in the code (a call inside another lies within its span)."""

    callee: str
    positional: tuple[Value, ...]
    keywords: dict[str, Value]
    text: str
    line: int
    col: int
    splat: bool = False
    tail: str = ""
    via: str = ""
    span: tuple[int, int] = (0, 0)


#: Calls that take a function as a value and call it with the arguments given after it: last name of the
#: wrapper's callee -> index of the function among its positional arguments (functools.partial,
#: concurrent.futures Executor.submit / map, asyncio.to_thread, loop.run_in_executor(executor, f, ...),
#: builtin map, multiprocessing Pool.apply / apply_async / map / starmap ...; docs.python.org/3/library).
#: threading.Thread / multiprocessing.Process pass it as target=f with args=(...) and kwargs={...}.
WRAPPERS = {
    "partial": 0, "partialmethod": 0, "submit": 0, "to_thread": 0, "map": 0, "starmap": 0, "imap": 0,
    "imap_unordered": 0, "apply": 0, "apply_async": 0, "map_async": 0, "starmap_async": 0,
    "call_soon": 0, "call_soon_threadsafe": 0, "run_in_executor": 1,
}  # fmt: skip
TARGET_WRAPPERS = frozenset({"Thread", "Process", "Timer"})


@dataclass
class Scan:
    """Everything the validator needs from one piece of code: the calls in pre-order (outer before inner;
    a call passed as a value follows its wrapper, see CallSite.via), the names the code binds at least once
    (``x = ...``, ``for x in``, ``with ... as x``, ``except E as x``, ``(x := ...)``, parameters, ``def x``,
    ``class x``; see bound_names), syntax errors as "line:col: message" strings, and made_by: for a name
    assigned a call's result (``classifier = pipeline(...)``), the callees of those calls ("" for a callee
    that is no name chain)."""

    calls: list[CallSite] = field(default_factory=list)
    assigned: set[str] = field(default_factory=set)
    errors: list[str] = field(default_factory=list)
    made_by: dict[str, set[str]] = field(default_factory=dict)


def _node_text(node: Node, limit: int | None = None) -> str:
    """A node's source text; with limit, at most that many bytes are read (node.text copies them all, so
    a huge node would cost its full size every time)."""
    if limit is not None and node.end_byte - node.start_byte > limit:
        end = node.start_byte + limit
        src = _local.source
        return src[node.start_byte : end].decode("utf-8", "replace") if src else ""
    return (node.text or b"").decode("utf-8", "replace")


def string_value(node: Node) -> str | None:
    """Content of a plain string literal node (or an implicit concatenation of them); None if it is an
    f-string with interpolation, a bytes literal or not a string."""
    if node.type == "concatenated_string":
        parts = [string_value(c) for c in node.children if c.type == "string"]
        return None if any(p is None for p in parts) else "".join(p or "" for p in parts)
    if node.type != "string":
        return None
    if any(c.type == "interpolation" for c in node.children):
        return None
    text = _node_text(node, MAX_TEXT * 4)
    prefix = _STRING_PREFIX.match(text)
    if prefix is not None and "b" in prefix.group().lower():
        return None  # b'resnet50' is bytes: it never equals the str 'resnet50' an API takes
    body = _STRING_PREFIX.sub("", text, count=1)
    for q in ('"""', "'''", '"', "'"):
        if body.startswith(q) and body.endswith(q) and len(body) >= 2 * len(q):
            body = body[len(q) : -len(q)]
            break
    return body.replace("\\'", "'").replace('\\"', '"')


def value_of(node: Node) -> Value:
    """Normalise one argument value node (see Value)."""
    s = string_value(node)
    if s is not None:
        return Value(s[:MAX_TEXT], literal=True, has_literal=True)
    text = _node_text(node, MAX_TEXT * 4)
    squeezed = _SPACE.sub("", text).replace('"', "'")[:MAX_TEXT]
    return Value(squeezed, has_literal="'" in squeezed)


def _getattr_name(node: Node) -> tuple[Node, str] | None:
    """For a ``getattr(obj, "name")`` call node with a plain string literal and no default: (obj, name);
    else None."""
    function = node.child_by_field_name("function")
    args = node.child_by_field_name("arguments")
    if function is None or args is None or _node_text(function) != "getattr":
        return None
    items = [c for c in args.named_children if c.type != "comment"]
    if len(items) != 2 or items[0].type not in ("identifier", "attribute"):
        return None
    name = string_value(items[1])
    return (items[0], name) if name and name.isidentifier() else None


def callee_of(function: Node) -> str:
    """Canonical callee text of a call's function node, built iteratively (no recursion on long chains):
    identifiers and attributes as dotted names, inner calls as ``()``; "" for anything else."""
    parts: list[str] = []
    node: Node | None = function
    while node is not None:
        if len(parts) > 64:
            return ""
        if node.type == "identifier":
            parts.append(_node_text(node))
            break
        if node.type == "attribute":
            attr = node.child_by_field_name("attribute")
            parts.append("." + (_node_text(attr) if attr is not None else ""))
            node = node.child_by_field_name("object")
        elif node.type == "call":
            named = _getattr_name(node)
            if named is not None:  # getattr(torch.hub, "load")(...) is torch.hub.load(...)
                obj, attr = named
                parts.append("." + attr)
                node = obj
                continue
            parts.append("()")
            node = node.child_by_field_name("function")
        else:
            return ""
    return "".join(reversed(parts))[:MAX_TEXT]


def call_site(node: Node) -> CallSite:
    """Build a CallSite from a tree-sitter ``call`` node."""
    function = node.child_by_field_name("function")
    callee = callee_of(function) if function is not None else ""
    positional: list[Value] = []
    keywords: dict[str, Value] = {}
    splat = False
    args = node.child_by_field_name("arguments")
    if args is not None and args.type == "argument_list":
        for child in args.named_children:
            if child.type == "comment":
                continue
            if child.type == "keyword_argument":
                name = child.child_by_field_name("name")
                value = child.child_by_field_name("value")
                if name is not None and value is not None:
                    keywords.setdefault(_node_text(name), value_of(value))
            elif child.type in ("list_splat", "dictionary_splat"):
                splat = True
            else:
                positional.append(value_of(child))
    elif args is not None:  # generator_expression as the only argument: f(x for x in y)
        positional.append(value_of(args))
    tail = ""
    parent = node.parent
    if parent is not None and parent.type == "attribute":
        obj, attr = parent.child_by_field_name("object"), parent.child_by_field_name("attribute")
        if obj is not None and attr is not None and obj.id == node.id:
            tail = _node_text(attr)
    row, col = node.start_point
    return CallSite(
        callee,
        tuple(positional),
        keywords,
        _node_text(node, MAX_TEXT * 4),
        row + 1,
        col + 1,
        splat,
        tail,
        span=(node.start_byte, node.end_byte),
    )


def passed_call(node: Node, wrapper: str) -> CallSite | None:
    """The call of a function passed as a value to `wrapper` (a callee whose last name is in WRAPPERS or
    TARGET_WRAPPERS), as a CallSite of that function with the arguments given after it, at the wrapper's
    position and text (via = wrapper). None when the function is not a plain dotted name."""
    name = wrapper.rsplit(".", 1)[-1]
    args = node.child_by_field_name("arguments")
    if args is None or args.type != "argument_list":
        return None
    items = [c for c in args.named_children if c.type != "comment"]
    plain = [c for c in items if c.type not in ("keyword_argument", "list_splat", "dictionary_splat")]
    keywords = {}
    for c in items:
        if c.type == "keyword_argument" and c.child_by_field_name("name") is not None:
            keywords[_node_text(c.child_by_field_name("name"))] = c.child_by_field_name("value")
    given: list[Node] = []
    named: dict[str, Value] = {}
    if name in TARGET_WRAPPERS:
        function = keywords.get("target")
        packed = keywords.get("args")
        if packed is not None and packed.type in ("tuple", "list"):
            given = [c for c in packed.named_children if c.type != "comment"]
        extra = keywords.get("kwargs")
        if extra is not None and extra.type == "dictionary":
            for pair in extra.named_children:
                key, value = pair.child_by_field_name("key"), pair.child_by_field_name("value")
                key_text = string_value(key) if key is not None else None
                if pair.type == "pair" and key_text and value is not None:
                    named[key_text] = value_of(value)
    else:
        index = WRAPPERS.get(name)
        if index is None or len(plain) <= index:
            return None
        function, given = plain[index], plain[index + 1 :]
        named = {k: value_of(v) for k, v in keywords.items() if v is not None}
    if function is None or function.type not in ("identifier", "attribute"):
        return None
    callee = callee_of(function)
    if not callee or "()" in callee:
        return None
    row, col = node.start_point
    splat = any(c.type in ("list_splat", "dictionary_splat") for c in items)
    positional = tuple(value_of(c) for c in given)
    text = _node_text(node, MAX_TEXT * 4)
    return CallSite(callee, positional, named, text, row + 1, col + 1, splat, via=wrapper,
                    span=(node.start_byte, node.end_byte))  # fmt: skip


def syntax_errors(root: Node, limit: int = 3) -> list[str]:
    """Up to `limit` syntax errors as "line:col: unexpected text" / "line:col: missing X" (iterative walk)."""
    out: list[str] = []
    stack = [root]
    while stack and len(out) < limit:
        n = stack.pop()
        if not n.has_error and not n.is_missing:
            continue
        row, col = n.start_point
        if n.is_missing:
            out.append(f"{row + 1}:{col + 1}: missing {n.type!r}")
            continue
        if n.type == "ERROR":
            snippet = _SPACE.sub(" ", _node_text(n, 160))[:40]
            out.append(f"{row + 1}:{col + 1}: syntax error near {snippet!r}")
            continue
        stack.extend(reversed(n.children))
    if not out and root.has_error:
        out.append("1:1: syntax error")
    return out


def nesting_error(code: str) -> str | None:
    """ "line:col: nesting deeper than Python's limit of 200" at the first bracket past MAX_NESTING open
    (), [] or {} (strings and comments skipped), else None. One regex pass, no recursion; code with at most
    MAX_NESTING opening brackets is not scanned at all."""
    if code.count("(") + code.count("[") + code.count("{") <= MAX_NESTING:
        return None
    depth, line, line_start = 0, 1, 0
    for m in _BRACKETS.finditer(code):
        token = m.group()
        if token == "\n":
            line, line_start = line + 1, m.end()
        elif token in "([{":
            depth += 1
            if depth > MAX_NESTING:
                col = m.start() - line_start + 1
                return f"{line}:{col}: nesting deeper than Python's limit of {MAX_NESTING}"
        elif token in ")]}":
            depth = max(depth - 1, 0)
        elif "\n" in token:  # a triple-quoted string spanning lines
            line += token.count("\n")
            line_start = m.start() + token.rindex("\n") + 1
    return None


# Nodes that bind names, and the field holding the target: ``x = ...``, ``x += ...``, ``for x in``,
# ``[... for x in ...]``, ``(x := ...)``, ``def x``, ``class x`` (tree-sitter-python's grammar field names).
_BINDING_FIELD = {
    "assignment": "left",
    "augmented_assignment": "left",
    "for_statement": "left",
    "for_in_clause": "left",
    "named_expression": "name",
    "function_definition": "name",
    "class_definition": "name",
}
# Target shapes whose identifiers are all bound (``a, (b, *c) = ...``); an attribute or subscript target
# (``self.x = ...``, ``d[k] = ...``) binds no name.
_TARGET_SHAPES = frozenset(
    {
        "pattern_list", "tuple_pattern", "list_pattern", "tuple", "list", "parenthesized_expression",
        "as_pattern_target", "list_splat_pattern", "dictionary_splat_pattern", "default_parameter",
        "typed_parameter", "typed_default_parameter",
    }
)  # fmt: skip


def bound_names(target: Node) -> list[str]:
    """The names a binding target binds: ``x`` gives ["x"], ``a, (b, *c)`` gives ["a", "b", "c"], a
    parameter ``q: int = 2`` gives ["q"] (its annotation and default bind nothing); ``self.x`` and ``d[k]``
    give []. Iterative, so any nesting depth is fine."""
    names: list[str] = []
    stack = [target]
    while stack:
        node = stack.pop()
        if node.type == "identifier":
            names.append(_node_text(node))
        elif node.type in ("default_parameter", "typed_default_parameter"):
            name = node.child_by_field_name("name")
            if name is not None:
                stack.append(name)
        elif node.type in _TARGET_SHAPES:
            stack.extend(c for c in node.children if c.type != "type")
    return names


def scan(code: str) -> Scan:
    """Parse `code` once and return its calls (pre-order), assigned names and syntax errors (nesting deeper
    than CPython accepts, MAX_NESTING, is an error too). Never raises for any input text (NUL bytes, lone
    surrogates and deep nesting included)."""
    data = code.encode("utf-8", "surrogatepass")
    tree = parse(data)
    root = tree.root_node
    _local.source = data  # for _node_text's bounded reads (one scan at a time per thread)
    result = Scan()
    if root.has_error:
        result.errors = syntax_errors(root)
    deep = nesting_error(code)
    if deep is not None:
        result.errors.insert(0, deep)
    calls: list[Node] = []
    alias_targets: dict[str, set[str]] = {}  # name -> the dotted names assigned to it
    other_bound: set[str] = set()  # names bound any other way too (not an alias then)
    cursor = tree.walk()  # iterative pre-order walk: source order, outer calls first, any depth
    while True:
        node = cursor.node
        if node is not None:
            if node.type == "call" and len(calls) < MAX_CALLS:
                calls.append(node)
            elif node.type in _BINDING_FIELD:
                target = node.child_by_field_name(_BINDING_FIELD[node.type])
                if target is not None:
                    names = bound_names(target)
                    result.assigned.update(names)
                    right = node.child_by_field_name("right") if node.type == "assignment" else None
                    dotted = callee_of(right) if right is not None and target.type == "identifier" else ""
                    if right is not None and right.type in ("identifier", "attribute") and "()" not in dotted:
                        alias_targets.setdefault(names[0], set()).add(dotted)  # load = torch.hub.load
                    else:
                        other_bound.update(names)
                    if right is not None and right.type == "call" and target.type == "identifier":
                        made = right.child_by_field_name("function")  # classifier = pipeline(...)
                        maker = callee_of(made) if made is not None else ""
                        result.made_by.setdefault(names[0], set()).add(maker)
            elif node.type == "as_pattern":  # with open(p) as f: / except E as e:
                names = [n for c in node.children if c.type == "as_pattern_target" for n in bound_names(c)]
                result.assigned.update(names)
                other_bound.update(names)
            elif node.type in ("parameters", "lambda_parameters"):  # def f(model): model.predict(x)
                for param in node.children:
                    names = bound_names(param)
                    result.assigned.update(names)
                    other_bound.update(names)
        if cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                break
        else:
            continue
        break
    aliases = {n: t.pop() for n, t in alias_targets.items() if len(t) == 1 and n not in other_bound}
    for n in calls:
        site = call_site(n)
        root, dot, rest = site.callee.partition(".")
        if aliases.get(root):  # f = torch.hub.load; f(...) is checked as torch.hub.load(...)
            site = replace(site, callee=aliases[root] + dot + rest, via=site.via or root)
        result.calls.append(site)
        last = site.callee.rsplit(".", 1)[-1]
        if last in WRAPPERS or last in TARGET_WRAPPERS:
            passed = passed_call(n, site.callee)
            if passed is not None:
                result.calls.append(passed)
    return result
