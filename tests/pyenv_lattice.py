"""Class lattices for the python-env reader's tests (tests/unit/test_pyenv_mro.py, test_pyenv_bounds.py): a
module's source, the classes Python makes of it, and a count of the reader's class lookups."""

from __future__ import annotations

import pytest

from gorilla_tui.pool.pyenv.resolve import Resolver


def lattice(width: int, levels: int) -> str:
    """Source of classes C{k}_{j} (k = 0..levels, j < width): each of level k takes every class of level k+1
    as bases, in one order (so every C3 linearization exists); C{levels}_{j} defines a method m{j}."""
    lines = [f"class C{levels}_{j}:\n    def m{j}(self, x):\n        return x\n" for j in range(width)]
    for k in range(levels - 1, -1, -1):
        bases = ", ".join(f"C{k + 1}_{j}" for j in range(width))
        lines += [f"class C{k}_{j}({bases}):\n    pass\n" for j in range(width)]
    return "\n".join(lines)


def run(source: str) -> dict[str, object]:
    """The namespace Python makes of `source` (the test's own generated source, never model output)."""
    namespace: dict[str, object] = {}
    exec(compile(source, "lattice.py", "exec"), namespace)
    return namespace


def count_lookups(resolver: Resolver, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A one-item list counting the calls of resolver.class_where from now on."""
    calls = [0]
    where = resolver.class_where

    def counted(*args, **kwargs):
        calls[0] += 1
        return where(*args, **kwargs)

    monkeypatch.setattr(resolver, "class_where", counted)
    return calls
