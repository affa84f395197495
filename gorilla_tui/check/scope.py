"""What a callee of a checked file is, through the file's own bindings (issue 39: judge only what resolves).

`check PATH` reports a call only when its callee resolves, through the file's imports, to the module or
class the API pool entry it was judged against belongs to. A file's names are read once with tree-sitter
(bindings): absolute imports (``import x.y as z``, ``from x import y``), names bound by relative imports (a
package's own modules: huggingface_hub's ``from .utils import logging`` is not the standard library's
``logging``), star imports, and names the file binds any other way (def, class, assignment, parameter,
``for``/``with``/``except`` target; callsite.Scan.assigned). resolve() then says what a callee written in
the file is: its import-qualified name, or None with the reason it is not judged. A name bound nowhere in
the file (no import, no definition) keeps its spelling: a snippet's ``torch.hub.load(...)`` without its
import, as APIBench answers are written.

jedi (0.20) was measured for this and is far too slow for `check` (0.42 s to import, 26.5 s for 200 goto()
calls on logging/__init__.py; bench target 0.25 s per file), so this is our own, on the parse `check`
already makes.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gorilla_tui.check.callnodes import python_name
from gorilla_tui.check.callsite import bound_names
from gorilla_tui.check.imports import HOLDS_STATEMENTS, import_aliases
from gorilla_tui.check.scopes import Free
from gorilla_tui.parsing import parse

if TYPE_CHECKING:
    from tree_sitter import Node

_BUILTINS = frozenset(dir(builtins))


@dataclass
class Bindings:
    """The names of one file. absolute: local name -> qualified name of its absolute import (names also
    bound another way left out, imports.import_aliases); relative: names bound by relative imports;
    local: names bound by anything but an import, or imported from two different places (``try: from
    typing import TypeVar`` / ``except ImportError: from typing_extensions import TypeVar``); star: the
    file has ``from X import *``; root: the file's tree-sitter root node (None for a Bindings built by
    hand)."""

    absolute: dict[str, str] = field(default_factory=dict)
    relative: set[str] = field(default_factory=set)
    local: set[str] = field(default_factory=set)
    star: bool = False
    root: Node | None = None
    #: the absolute imports of names also in `local` (the file binds them another way somewhere), and
    #: for each call span the names of them its scopes leave to the import (callsite.Scan.free)
    imports: dict[str, str] = field(default_factory=dict)
    free: Free = field(default_factory=dict)


def _text(node: Node | None) -> str:
    """A name node's text as Python reads it (callnodes.python_name: NFKC, PEP 3131); "" for None."""
    return python_name((node.text or b"").decode("utf-8", "replace")) if node is not None else ""


def bindings(
    code: str, assigned: set[str] | frozenset[str] = frozenset(), free: Free | None = None
) -> Bindings:
    """The Bindings of `code` (Python source). assigned: the names callsite.scan found bound (parameters,
    comprehension variables, walrus targets...), added to `local`; free: its Scan.free (which calls see
    which of those as their import, check/scopes.py). Never raises for any text."""
    root = parse(code).root_node
    out = Bindings(absolute=import_aliases(root), local=set(assigned), root=root, free=free or {})
    targets: dict[str, set[str]] = {}  # name -> every module path it is imported from
    stack: list[Node] = [root]
    while stack:
        node = stack.pop()
        kind = node.type
        if kind == "import_from_statement":
            module = node.child_by_field_name("module_name")
            is_relative = module is not None and module.type == "relative_import"
            for c in node.named_children:
                if c.type == "wildcard_import":
                    out.star = True
                elif c != module:
                    alias = c.child_by_field_name("alias") if c.type == "aliased_import" else c
                    name = _text(alias).split(".")[0]
                    targets.setdefault(name, set()).add(_text(module))
                    if is_relative:
                        out.relative.add(name)
        elif kind == "import_statement":
            for c in node.named_children:
                alias = c.child_by_field_name("alias") if c.type == "aliased_import" else c
                real = c.child_by_field_name("name") if c.type == "aliased_import" else c
                name = _text(alias).split(".")[0]
                targets.setdefault(name, set()).add(_text(real) if alias is not c else name)
        elif kind in ("function_definition", "class_definition"):
            out.local.add(_text(node.child_by_field_name("name")))
            stack.extend(node.named_children)
        elif kind == "expression_statement":
            target = node.child(0)
            while target is not None and target.type in ("assignment", "augmented_assignment"):
                left = target.child_by_field_name("left")
                out.local.update(bound_names(left) if left is not None else ())
                target = target.child_by_field_name("right")
        elif kind in HOLDS_STATEMENTS:  # statements whose children hold imports or bindings
            stack.extend(node.named_children)
    out.local.update(n for n, where in targets.items() if len(where) > 1)
    out.local -= {""}
    ambiguous = {n for n, where in targets.items() if len(where) > 1} | out.relative
    for name in out.local | out.relative:
        q = out.absolute.pop(name, None)
        if q is not None and name not in ambiguous:
            out.imports[name] = q
    return out


def resolve(callee: str, names: Bindings, span: tuple[int, int] | None = None) -> tuple[str | None, str]:
    """(qualified callee, "") when `callee` (as written in the file: ``np.array``, ``logging.get_logger``,
    ``self.load``) resolves through the file's names `names`, else (None, why it is not judged).

    The first name decides: bound by a relative import -> the package's own module; bound by the file
    otherwise (def, class, assignment, parameter) and not imported -> a local object; imported -> the
    import's qualified name plus the rest (``np.linalg.norm`` -> ``numpy.linalg.norm``); a builtin -> as
    written; bound nowhere, in a file with a star import -> may come from it (not judged); bound nowhere
    else -> as written (a snippet without its imports). span: the call's (CallSite.span): an imported
    name the file binds elsewhere (a parameter ``socket`` of another function, a class attribute) is the
    import where the call's scopes do not bind it (check/scopes.py)."""
    head = callee.split(".", 1)[0].split("(", 1)[0]
    if not head.isidentifier():
        return None, f"{callee}: the callee is not a name"
    if head in names.absolute:
        return names.absolute[head] + callee[len(head) :], ""
    if span is not None and head in names.imports and head in names.free.get(span, ()):
        return names.imports[head] + callee[len(head) :], ""
    if head in names.relative:
        return None, f"{head} is the package's own module or name (relative import)"
    if head in names.local:
        return None, f"{head} is a name the file binds itself (def, class, assignment or parameter)"
    if head in _BUILTINS:
        return callee, ""
    if names.star:
        return None, f"{head} may come from a star import (from ... import *)"
    return callee, ""
