"""Calls passed as values: a function given to a wrapper (``functools.partial(f, a)``, ``pool.submit(f,
a)``, ``Thread(target=f, args=(a,))``) or called through one (``partial(f, a)(b)``, ``lru_cache(f)(b)``) is
read as the call of that function with the arguments it gets."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from gorilla_tui.check.callnodes import (
    MAX_TEXT,
    CallSite,
    Value,
    call_site,
    callee_of,
    node_text,
    string_value,
    value_of,
)

if TYPE_CHECKING:
    from tree_sitter import Node

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
#: Wrappers that return the function itself, cached: ``functools.lru_cache(f)(a)`` / ``cache(f)(a)`` is a call
#: of f with (a) (docs.python.org/3/library/functools.html).
CALL_THROUGH = frozenset({"lru_cache", "cache"})


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
            keywords[node_text(c.child_by_field_name("name"))] = c.child_by_field_name("value")
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
    text = node_text(node, MAX_TEXT * 4)
    return CallSite(callee, positional, named, text, row + 1, col + 1, splat, via=wrapper,
                    span=(node.start_byte, node.end_byte))  # fmt: skip


def called_wrapper(node: Node) -> tuple[int, CallSite] | None:
    """For ``partial(f, a, k=1)(b, k=2)`` (or ``lru_cache(f)(b)``): (id of the inner wrapper call, the call
    of f with the wrapper's arguments followed by the later call's, keywords of the later call winning, as
    functools.partial does); else None."""
    inner = node.child_by_field_name("function")
    if inner is None or inner.type != "call" or inner.child_by_field_name("function") is None:
        return None
    wrapper = callee_of(inner.child_by_field_name("function"))
    last = wrapper.rsplit(".", 1)[-1]
    outer = call_site(node)
    if last in ("partial", "partialmethod"):
        passed = passed_call(inner, wrapper)
    elif last in CALL_THROUGH:
        args = inner.child_by_field_name("arguments")
        items = [c for c in args.named_children if c.type != "comment"] if args is not None else []
        if len(items) != 1 or items[0].type not in ("identifier", "attribute"):
            return None
        passed = replace(outer, callee=callee_of(items[0]), positional=(), keywords={})
    else:
        return None
    if passed is None:
        return None
    return inner.id, replace(
        outer,
        callee=passed.callee,
        positional=passed.positional + outer.positional,
        keywords={**passed.keywords, **outer.keywords},
        splat=passed.splat or outer.splat,
        via=wrapper,
    )
