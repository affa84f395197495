"""The python-env reader's work stays bounded by the size of the module it reads (break-it round 16):
inherited methods over a lattice of bases, the C3 merge of a wide class, an ``__all__`` of thousands of
``+`` terms, lists that double per line, and star imports that import each other (pool/pyenv/resolve.py,
module_api.py, binds.py). Work is counted in calls and items, never timed."""

from __future__ import annotations

import random

import pytest

from gorilla_tui.pool.pyenv import binds, module_api
from gorilla_tui.pool.pyenv.module_api import read_module
from gorilla_tui.pool.pyenv.resolve import Resolver, _c3_merge
from gorilla_tui.pool.pyenv.surface import ClassDef
from tests.pyenv_lattice import count_lookups, lattice, run


def test_inherited_methods_walk_each_class_of_a_lattice_once(monkeypatch):
    width, levels = 6, 6
    source = lattice(width, levels)
    info = read_module(source.encode(), "lattice")
    resolver = Resolver({"lattice": info})
    calls = count_lookups(resolver, monkeypatch)
    names = [m.name for m in resolver.methods("lattice", info.defs["C0_0"])]
    top = run(source)["C0_0"]
    assert sorted(names) == sorted(n for n in dir(top) if not n.startswith("_"))
    # one lookup per base of each class (width bases, width * levels classes); every path: width ** levels
    assert calls[0] <= width * width * levels


def test_inherited_methods_of_a_cycle_of_names_end():
    source = "class A(B):\n    def a(self):\n        pass\nclass B(A):\n    def b(self):\n        pass\n"
    info = read_module(source.encode(), "m")
    assert [m.name for m in Resolver({"m": info}).methods("m", info.defs["A"])] == ["a", "b"]


def _random_classes(seed: int, count: int) -> tuple[str, dict[str, list[str] | None]]:
    """Source of `count` classes with random bases among earlier ones, and each class's __mro__ names as
    Python builds it (None where Python raises TypeError: no consistent order; such a class is no base)."""
    rng = random.Random(seed)
    made: dict[str, type] = {}
    lines, expected = [], {}
    for i in range(count):
        pool = list(made)
        bases = rng.sample(pool, rng.randint(0, min(4, len(pool))))
        name = f"K{i}"
        lines.append(f"class {name}({', '.join(bases)}):\n    pass\n")
        try:
            made[name] = type(name, tuple(made[b] for b in bases), {})
            expected[name] = [c.__name__ for c in made[name].__mro__ if c is not object]
        except TypeError:
            expected[name] = None
    return "\n".join(lines), expected


@pytest.mark.parametrize("seed", range(8))
def test_c3_merge_gives_pythons_order_or_none_on_random_class_graphs(seed):
    source, expected = _random_classes(seed, 40)
    info = read_module(source.encode(), "g")
    resolver = Resolver({"g": info})
    for name, want in expected.items():
        order = resolver.mro("g", info.defs[name])
        assert (None if order is None else [c.name for _, c in order]) == want, name
    assert None in expected.values()  # each seed also makes classes Python refuses (TypeError)


class _Counted(ClassDef):
    """A ClassDef that counts reads of its name (_c3_merge compares classes by (module, name))."""

    reads = 0

    def __getattribute__(self, attr: str):
        if attr == "name":
            type(self).reads += 1
        return super().__getattribute__(attr)


def test_c3_merge_reads_each_item_a_bounded_number_of_times():
    width, depth = 30, 10  # 30 bases, each with a chain of 10 classes of its own over one common root
    root = ("m", _Counted("Root", [], ""))
    chains = [[("m", _Counted(f"B{j}_{k}", [], "")) for k in range(depth)] + [root] for j in range(width)]
    seqs = [*chains, [chain[0] for chain in chains]]
    _Counted.reads = 0
    merged = _c3_merge(seqs)
    assert merged is not None and [c.name for _, c in merged][-1] == "Root"
    assert len(merged) == width * depth + 1
    total = sum(len(s) for s in seqs)
    # each item's name read once (plus the check above); a rebuilt set of tails per candidate: ~width * total
    assert _Counted.reads <= total + len(merged) + 1


def test_an_all_of_thousands_of_plus_terms_is_read_without_recursion():
    source = '__all__ = ["f"]' + ' + ["f"]' * 3000 + '\n__all__ += (["g"]) + ["g"]\ndef f(x):\n    return x\n'
    assert read_module(source.encode(), "deepall").all_names == ["f", "g"]


def test_lists_doubling_per_line_are_capped_and_a_plain_concatenation_is_kept(monkeypatch):
    trackers = []

    class Spy(module_api._AllTracker):
        def __init__(self) -> None:
            super().__init__()
            trackers.append(self)

    monkeypatch.setattr(module_api, "_AllTracker", Spy)
    lines = ["if False:", '    A0 = ["f"]'] + [f"    A{i} = A{i - 1} + A{i - 1}" for i in range(1, 21)]
    lines += [
        'PUBLIC = ["f"]',
        '__all__ = PUBLIC + ["g"]',
        "def f(x):\n    return x",
        "def g(x):\n    return x",
    ]
    info = read_module("\n".join(lines).encode(), "dbl")
    assert info.all_names == ["f", "g"]
    held = trackers[0].env
    assert "A20" not in held and held["PUBLIC"] == ["f"]  # 2**20 names: unknown, not held
    assert sum(len(v) for v in held.values()) <= module_api.MAX_HELD_NAMES
    assert max(len(v) for v in held.values()) <= module_api.MAX_SEQUENCE_NAMES


@pytest.fixture
def installed(tmp_path, monkeypatch):
    """A folder on sys.path for fake installed modules, with binds' caches cleared around the test."""
    monkeypatch.syspath_prepend(str(tmp_path))
    for cached in (binds.installed_file, binds.installed_names):
        cached.cache_clear()
    yield tmp_path
    for cached in (binds.installed_file, binds.installed_names):
        cached.cache_clear()


def test_star_imports_of_each_other_end_with_names_of_both(installed):
    pkg = installed / "gt_r16_cycpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from gt_r16_cycpkg.x import *\n\ndef fetch(url):\n    return url\n")
    (pkg / "x.py").write_text("from gt_r16_cycpkg import *\n\ndef other(a):\n    return a\n")
    found = binds.installed_names("gt_r16_cycpkg")
    assert found is not None and {"fetch", "other", "x"} <= found.names
    assert not found.complete  # the cycle's star import is not followed round again: not all names known


def test_a_long_chain_of_star_imports_is_cut_not_a_recursion_error(installed):
    count = 400  # about 4 frames a link: past Python's recursion limit of 1000
    for i in range(count):
        star = f"from gt_r16_chain{i + 1} import *\n" if i + 1 < count else ""
        (installed / f"gt_r16_chain{i}.py").write_text(f"{star}def f{i}():\n    pass\n")
    found = binds.installed_names("gt_r16_chain0")
    assert found is not None and {"f0", f"f{binds.MAX_STAR_CHAIN - 1}"} <= found.names
    assert not found.complete
