"""Find the calls in Python code with tree-sitter and normalise callee and argument values for matching."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from gorilla_tui.check.callnodes import (
    MAX_TEXT,
    CallSite,
    Value,
    bind_source,
    call_site,
    callee_of,
    name_text,
    node_text,
    string_value,
    value_of,
)
from gorilla_tui.check.scopes import SCOPE_NODES, Free, ScopeTracker
from gorilla_tui.check.wrappers import CALL_THROUGH, TARGET_WRAPPERS, WRAPPERS, called_wrapper, passed_call
from gorilla_tui.parsing import parse

if TYPE_CHECKING:
    from tree_sitter import Node

#: Importable from here too (the call nodes live in callnodes.py, calls passed as values in wrappers.py).
__all__ = [
    "CALL_THROUGH",
    "MAX_CALLS",
    "MAX_NESTING",
    "MAX_TEXT",
    "TARGET_WRAPPERS",
    "WRAPPERS",
    "CallSite",
    "Scan",
    "Value",
    "bound_names",
    "call_site",
    "callee_of",
    "LEFT_OUT_TAIL",
    "left_out_note",
    "nesting_error",
    "passed_call",
    "scan",
    "string_value",
    "syntax_errors",
    "value_of",
]

#: At most this many calls are read from one piece of code (1 MB of calls stays bounded).
MAX_CALLS = 2000

#: How left_out_note ends (check/lint.py finds the note by it).
LEFT_OUT_TAIL = "not checked"


def left_out_note(left_out: int) -> str:
    """The verdict's note for code with `left_out` calls past MAX_CALLS (scan lists the first MAX_CALLS
    only): "12,345 calls after the first 2,000 were not checked", "1 call after ... was not checked"."""
    calls, were = ("call", "was") if left_out == 1 else ("calls", "were")
    return f"{left_out:,} {calls} after the first {MAX_CALLS:,} {were} {LEFT_OUT_TAIL}"


#: CPython's tokenizer refuses more nested (), [] and {} than this ("too many nested parentheses";
#: MAXLEVEL in Parser/tokenizer.c); tree-sitter parses any depth, so scan() checks it separately.
MAX_NESTING = 200

_SPACE = re.compile(r"\s+")
# Strings and comments are skipped when counting brackets (prefixes such as r/b/f are just letters here).
_BRACKETS = re.compile(
    r"'''(?:\\.|[^\\])*?'''|\"\"\"(?:\\.|[^\\])*?\"\"\"|'(?:\\.|[^\\'\n])*'"
    r"|\"(?:\\.|[^\\\"\n])*\"|#[^\n]*|[(\[{]|[)\]}]|\n"
)


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
    #: a name the code binds once, to one call's result (``h = hashlib.sha256()``) -> that call's callee
    made_once: dict[str, str] = field(default_factory=dict)
    #: calls past MAX_CALLS: not listed in `calls`, so not checked (left_out_note says so)
    left_out: int = 0
    #: imported names the code also binds another way somewhere (check/scopes.py)
    shadowable: frozenset[str] = frozenset()
    #: call span -> those of them its scopes do not bind: the call sees the import (check/scopes.py)
    free: Free = field(default_factory=dict)

    def bound_at(self, call: CallSite) -> set[str]:
        """The names `call` (one of `calls`) sees bound by anything but an import: `assigned` less the
        imported names no scope of the call binds (a parameter ``socket`` of another method)."""
        free = self.free.get(call.span)
        return self.assigned - free if free else self.assigned

    def sees_import(self, call: CallSite, name: str) -> bool:
        """True when `name`, if imported, is the import where `call` is made (not rebound in its scopes)."""
        return name not in self.shadowable or name in self.free.get(call.span, ())


def _count(binds: dict[str, int], names: list[str]) -> None:
    """One more binding of each of `names` in `binds` (scan's count of how often a name is bound)."""
    for name in names:
        binds[name] = binds.get(name, 0) + 1


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
            snippet = _SPACE.sub(" ", node_text(n, 160))[:40]
            out.append(f"{row + 1}:{col + 1}: syntax error near {snippet!r}")
            continue
        stack.extend(reversed(n.children))
    if not out and root.has_error:
        out.append("1:1: syntax error")
    return out


@functools.lru_cache(maxsize=2048)  # asked twice per checked file: by scan, then before Python compiles it
def nesting_error(code: str) -> str | None:
    """ "line:col: nesting deeper than Python's limit of 200" at the first bracket past MAX_NESTING open
    (), [] or {} (strings and comments skipped), else None. One regex pass, no recursion; code with at most
    MAX_NESTING opening brackets is not scanned at all; the answers for the last 2,048 texts are kept."""
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


#: The nodes that read or open a scope in scan's walk (check/scopes.py ScopeTracker.enter).
_SCOPED = frozenset(
    {
        "call",
        "as_pattern",
        "parameters",
        "lambda_parameters",
        "global_statement",
        *_BINDING_FIELD,
        *SCOPE_NODES,
    }
)


def bound_names(target: Node) -> list[str]:
    """The names a binding target binds: ``x`` gives ["x"], ``a, (b, *c)`` gives ["a", "b", "c"], a
    parameter ``q: int = 2`` gives ["q"] (its annotation and default bind nothing); ``self.x`` and ``d[k]``
    give []. Iterative, so any nesting depth is fine."""
    names: list[str] = []
    stack = [target]
    while stack:
        node = stack.pop()
        if node.type == "identifier":
            names.append(name_text(node))
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
    bind_source(data)  # for node_text's bounded reads (one scan at a time per thread)
    result = Scan()
    if root.has_error:
        result.errors = syntax_errors(root)
    deep = nesting_error(code)
    if deep is not None:
        result.errors.insert(0, deep)
    calls: list[Node] = []
    alias_targets: dict[str, set[str]] = {}  # name -> the dotted names assigned to it
    other_bound: set[str] = set()  # names bound any other way too (not an alias then)
    binds: dict[str, int] = {}  # name -> how many times the code binds it (made_once: once)
    scopes = ScopeTracker(len(data))  # which imports each call sees (check/scopes.py)
    cursor = tree.walk()  # iterative pre-order walk: source order, outer calls first, any depth
    while True:
        node = cursor.node
        if node is not None:
            if node.type in _SCOPED:  # only where a scope is read: a method call per node costs
                scopes.enter(node)
            if node.type == "call" and len(calls) < MAX_CALLS:
                calls.append(node)
                scopes.call(node)
            elif node.type == "call":
                result.left_out += 1
            elif node.type in _BINDING_FIELD:
                target = node.child_by_field_name(_BINDING_FIELD[node.type])
                if target is not None:
                    names = bound_names(target)
                    result.assigned.update(names)
                    _count(binds, names)
                    scopes.bind(names, walrus=node.type == "named_expression")
                    right = node.child_by_field_name("right") if node.type == "assignment" else None
                    dotted = callee_of(right) if right is not None and target.type == "identifier" else ""
                    named = right is not None and right.type in ("identifier", "attribute")
                    if named and dotted and "()" not in dotted:  # `load = torch.hub.load`; not `self.m = x.y`
                        alias_targets.setdefault(names[0], set()).add(dotted)
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
                _count(binds, names)
                scopes.bind(names)
            elif node.type in ("parameters", "lambda_parameters"):  # def f(model): model.predict(x)
                for param in node.children:
                    names = bound_names(param)
                    result.assigned.update(names)
                    other_bound.update(names)
                    _count(binds, names)
                    scopes.bind(names)
            elif node.type in ("import_statement", "import_from_statement"):
                scopes.imported(node)
            elif node.type == "global_statement":
                scopes.declare_global(node)
            if node.type in SCOPE_NODES:
                scopes.open(node)
        if cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                break
        else:
            continue
        break
    result.shadowable, result.free = scopes.free()
    made = result.made_by.items()
    result.made_once = {n: m for n, (m, *more) in made if not more and m and binds.get(n) == 1}
    aliases = {n: t.pop() for n, t in alias_targets.items() if len(t) == 1 and n not in other_bound}
    called: dict[int, CallSite] = {}  # wrapper call node id -> the merged call when the wrapper is called
    for n in calls:
        if (merged := called_wrapper(n)) is not None:
            called[merged[0]] = merged[1]
    for n in calls:
        if n.id in called:  # partial(f, a) in partial(f, a)(b): checked once, as the merged f(a, b)
            result.calls.append(call_site(n))
            result.calls.append(called[n.id])
            continue
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
