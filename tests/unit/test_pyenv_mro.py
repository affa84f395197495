"""The python-env reader's method resolution order (pool/pyenv/resolve.py Resolver.mro) on class lattices
read by the real module reader: the order Python computes, each class's order computed once (break-it
round 15: a 2.3 KB module of 4 bases per class over 10 levels held `index --refresh` for more than 300
s), and no order for a cycle of names."""

from __future__ import annotations

from gorilla_tui.pool.pyenv.module_api import read_module
from gorilla_tui.pool.pyenv.resolve import Resolver


def _lattice(width: int, levels: int) -> str:
    """Source of a module whose classes C{k}_{j} (k = 0..levels) each take every class of the next level as
    bases, in one order (so every C3 linearization exists)."""
    lines = [f"class C{levels}_{j}:\n    def run(self, x):\n        return x\n" for j in range(width)]
    for k in range(levels - 1, -1, -1):
        bases = ", ".join(f"C{k + 1}_{j}" for j in range(width))
        lines += [f"class C{k}_{j}({bases}):\n    pass\n" for j in range(width)]
    return "\n".join(lines)


def _resolver(source: str) -> tuple[Resolver, object]:
    info = read_module(source.encode(), "lattice")
    return Resolver({"lattice": info}), info


def test_a_wide_deep_lattice_gets_pythons_order_with_each_class_merged_once(monkeypatch):
    width, levels = 4, 10
    source = _lattice(width, levels)
    resolver, info = _resolver(source)
    calls = 0
    where = resolver.class_where

    def counted(*args, **kwargs):
        nonlocal calls
        calls += 1
        return where(*args, **kwargs)

    monkeypatch.setattr(resolver, "class_where", counted)
    order = resolver.mro("lattice", info.defs["C0_0"])

    namespace: dict[str, object] = {}
    # the test's own generated source, not model output
    exec(compile(source, "lattice.py", "exec"), namespace)
    expected = [c.__name__ for c in namespace["C0_0"].__mro__ if c is not object]
    assert order is not None and [cls.name for _, cls in order] == expected
    # one lookup per base of each class reached (width classes per level below the first, width bases each);
    # without the memo: width ** levels
    assert calls <= width * width * levels


def test_a_cycle_of_names_has_no_order_and_ends():
    source = "class A(B, C):\n    pass\nclass B(C, A):\n    pass\nclass C(A, B):\n    pass\n"
    resolver, info = _resolver(source)
    assert resolver.mro("lattice", info.defs["A"]) is None
    assert resolver.mro("lattice", info.defs["B"]) is None


def test_an_order_cut_by_depth_is_not_kept_for_a_shallower_walk():
    """A chain deeper than MRO_DEPTH has no order from its top; a class near its bottom still has one."""
    resolver, info = _resolver(_lattice(1, 20))
    assert resolver.mro("lattice", info.defs["C0_0"]) is None
    near_bottom = resolver.mro("lattice", info.defs["C15_0"])
    assert near_bottom is not None
    assert [cls.name for _, cls in near_bottom] == [f"C{k}_0" for k in range(15, 21)]
