"""The python-env reader's method resolution order (pool/pyenv/resolve.py Resolver.mro) on class lattices
read by the real module reader: the order Python computes, each class's order computed once (break-it
round 15: a 2.3 KB module of 4 bases per class over 10 levels held `index --refresh` for more than 300
s), and no order for a cycle of names."""

from __future__ import annotations

from gorilla_tui.pool.pyenv.module_api import read_module
from gorilla_tui.pool.pyenv.resolve import Resolver
from tests.pyenv_lattice import count_lookups, lattice, run


def _resolver(source: str) -> tuple[Resolver, object]:
    info = read_module(source.encode(), "lattice")
    return Resolver({"lattice": info}), info


def test_a_wide_deep_lattice_gets_pythons_order_with_each_class_merged_once(monkeypatch):
    width, levels = 4, 10
    source = lattice(width, levels)
    resolver, info = _resolver(source)
    calls = count_lookups(resolver, monkeypatch)
    order = resolver.mro("lattice", info.defs["C0_0"])

    expected = [c.__name__ for c in run(source)["C0_0"].__mro__ if c is not object]
    assert order is not None and [cls.name for _, cls in order] == expected
    # one lookup per base of each class reached (width classes per level below the first, width bases each);
    # without the memo: width ** levels
    assert calls[0] <= width * width * levels


def test_a_cycle_of_names_has_no_order_and_ends():
    source = "class A(B, C):\n    pass\nclass B(C, A):\n    pass\nclass C(A, B):\n    pass\n"
    resolver, info = _resolver(source)
    assert resolver.mro("lattice", info.defs["A"]) is None
    assert resolver.mro("lattice", info.defs["B"]) is None


def test_an_order_cut_by_depth_is_not_kept_for_a_shallower_walk():
    """A chain deeper than MRO_DEPTH has no order from its top; a class near its bottom still has one."""
    resolver, info = _resolver(lattice(1, 20))
    assert resolver.mro("lattice", info.defs["C0_0"]) is None
    near_bottom = resolver.mro("lattice", info.defs["C15_0"])
    assert near_bottom is not None
    assert [cls.name for _, cls in near_bottom] == [f"C{k}_0" for k in range(15, 21)]
