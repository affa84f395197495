"""The package's import graph: the layers of ARCHITECTURE.md (import-linter), no import cycles (grimp), and
imports inside functions only where they defer a heavy import, each with its reason."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "gorilla_tui"


def _strongly_connected(edges: dict[str, set[str]]) -> list[list[str]]:
    """Components of more than one node of the directed graph `edges` (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def _edges(package: str = "gorilla_tui") -> dict[str, set[str]]:
    """module -> modules of `package` it imports (grimp), imports under `if TYPE_CHECKING:` included: a
    cycle that only type checkers follow still ties the modules together for a reader (issue 41)."""
    graph = grimp.build_graph(package, exclude_type_checking_imports=False, cache_dir=None)
    return {m: set(graph.find_modules_directly_imported_by(m)) for m in graph.modules}


def test_the_cycle_finder_finds_a_cycle():
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _strongly_connected(edges) == [["a", "b", "c"]]
    assert _strongly_connected({"a": {"b"}, "b": set()}) == []


def test_a_cycle_under_type_checking_is_counted(tmp_path, monkeypatch):
    """Two modules that import each other only under `if TYPE_CHECKING:` (as retrieve/fit.py, index.py and
    routing.py did before issue 41) make a cycle for _edges."""
    pkg = tmp_path / "cyclepkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    for me, other in (("a", "b"), ("b", "a")):
        guarded = f"if TYPE_CHECKING:\n    from cyclepkg.{other} import X\n"
        (pkg / f"{me}.py").write_text(f"from typing import TYPE_CHECKING\n{guarded}X = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert _strongly_connected(_edges("cyclepkg")) == [["cyclepkg.a", "cyclepkg.b"]]


def test_no_folder_holds_more_than_twelve_modules_of_the_rooms():
    """The rooms of issue 41 (building, the store, searching, constraints) stay small enough to read by
    name: at most 12 modules each, __init__ aside."""
    for room in ("build", "store", "retrieve", "constraints"):
        modules = [p for p in (PACKAGE / room).glob("*.py") if p.name != "__init__.py"]
        assert 2 <= len(modules) <= 12, (room, len(modules))


def test_no_import_cycle_between_modules():
    edges = _edges()
    assert len(edges) > 80  # the whole package was read
    assert _strongly_connected(edges) == []


def test_no_import_cycle_between_packages():
    """Stage packages and top-level modules (gorilla_tui.X): no two of them import each other, even through
    others."""
    edges = _edges()
    top: dict[str, set[str]] = {}
    for module, imported in edges.items():
        source = ".".join(module.split(".")[:2])
        top.setdefault(source, set()).update(
            ".".join(m.split(".")[:2]) for m in imported if ".".join(m.split(".")[:2]) != source
        )
    assert {
        "gorilla_tui.pool",
        "gorilla_tui.store",
        "gorilla_tui.retrieve",
        "gorilla_tui.constraints",
        "gorilla_tui.build",
        "gorilla_tui.model",
        "gorilla_tui.check",
    } <= set(top)
    assert _strongly_connected(top) == []


def test_lint_imports_keeps_every_contract():
    """`lint-imports` with the contracts of pyproject.toml [tool.importlinter] (the layers, `model` never
    imports check or retrieve, only the UI imports textual or rich)."""
    run = subprocess.run(
        [sys.executable, "-c", "from importlinter.cli import lint_imports_command; lint_imports_command()"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Contracts: 3 kept, 0 broken." in run.stdout


#: A line of an import statement: its start, or a name of a parenthesised list.
_IMPORT_PART = re.compile(r"^(from |import )|^[A-Za-z_][\w.]*( as \w+)?,?$")


def _explained(lines: list[str], start: int, end: int) -> bool:
    """True when the import on lines[start:end] (0-based) or one of the imports right above it (a group of
    deferred imports says why once) has a comment."""
    if any("#" in line for line in lines[start:end]):
        return True
    above = start - 1
    while above >= 0 and (_IMPORT_PART.match(lines[above].strip()) or lines[above].strip() == ")"):
        if "#" in lines[above]:
            return True
        above -= 1
    return False


def test_imports_inside_functions_say_why():
    """An import inside a function defers a heavy import (llama_cpp, huggingface_hub, numpy/scipy and rich
    for the CLI's --help, ...) and says so in a comment on its line (or on the import group's first line)."""
    unexplained = []
    for path in sorted(PACKAGE.rglob("*.py")):
        lines = path.read_text(encoding="utf-8").splitlines()
        seen: set[int] = set()
        for node in ast.walk(ast.parse("\n".join(lines))):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for inner in ast.walk(node):
                if not isinstance(inner, (ast.Import, ast.ImportFrom)) or inner.lineno in seen:
                    continue
                seen.add(inner.lineno)
                if not _explained(lines, inner.lineno - 1, inner.end_lineno or inner.lineno):
                    unexplained.append(
                        f"{path.relative_to(ROOT)}:{inner.lineno}: {lines[inner.lineno - 1].strip()}"
                    )
    assert unexplained == []


def test_an_import_without_a_reason_is_caught():
    lines = ["def f():", "    import os", "    return os"]
    assert not _explained(lines, 1, 2)
    lines = ["def f():", "    from a import (  # deferred: a is slow", "        b,", "    )", "    import c"]
    assert _explained(lines, 4, 5) and _explained(lines, 1, 4)


def test_only_services_opens_a_backend_or_builds_a_pipeline():
    """The composition root is the one caller of model.backend.open_backend and of Pipeline(...) in the
    package and the benches (tests build their own, e.g. with a ScriptedBackend)."""
    callers = set()
    for path in sorted([*PACKAGE.rglob("*.py"), *(ROOT / "bench").glob("*.py")]):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
                if name in ("open_backend", "Pipeline"):
                    callers.add((path.relative_to(ROOT).as_posix(), name))
    assert callers == {("gorilla_tui/services.py", "open_backend"), ("gorilla_tui/services.py", "Pipeline")}
