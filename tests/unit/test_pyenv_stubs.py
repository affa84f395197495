"""Type stubs in the python-env source and the checker's names of installed packages (issue 39's follow-up:
``np.array`` was ``hallucination:unknown_callee`` with numpy indexed, as numpy's C functions are not in its
.py sources).

The real numpy installed here (a dependency of the project) goes through the real python-env build (its
``__init__.pyi`` and ``_core/multiarray.pyi``, its ``_add_newdocs.py`` docstrings) and the real Validator;
pool/pyenv/stubs.py's rules on small stubs; the "not judged" rule on a package written to a temporary
folder whose module takes names from a compiled module it cannot list."""

from __future__ import annotations

import sys

import pytest

from gorilla_tui.check.validator import Validator
from gorilla_tui.pool.doc import ApiDoc
from gorilla_tui.pool.pyenv.module_api import FuncDef, Param, description
from gorilla_tui.pool.pyenv.source import load_python_env
from gorilla_tui.pool.pyenv.stubs import merge_overloads, newdoc_docs, read_stub


@pytest.fixture(scope="module")
def numpy_docs() -> dict[str, ApiDoc]:
    return {d.api_name: d for d in load_python_env("numpy").docs}


@pytest.fixture(scope="module")
def numpy_validator(numpy_docs) -> Validator:
    return Validator(list(numpy_docs.values()))


def test_numpy_compiled_functions_are_docs_with_signatures(numpy_docs):
    """numpy.array, zeros, arange, empty, frombuffer, ndarray.reshape: C code, known from the stubs."""
    assert numpy_docs["numpy.array"].api_call == "numpy.array(object)"
    assert numpy_docs["numpy.zeros"].api_call == "numpy.zeros(shape)"  # zeros: Final[_ConstructorEmpty]
    assert numpy_docs["numpy.empty"].api_call == "numpy.empty(shape)"
    assert numpy_docs["numpy.frombuffer"].api_call == "numpy.frombuffer(buffer)"
    assert "numpy.arange" in numpy_docs and "numpy.ndarray.reshape" in numpy_docs
    # ufuncs: ``sqrt: _UFunc_Nin1_Nout1[...]``, a class of numpy._typing._ufunc with a __call__
    assert numpy_docs["numpy.sqrt"].api_call == "numpy.sqrt(x1)"
    assert numpy_docs["numpy.maximum"].api_call == "numpy.maximum(x1, x2)"
    # overloads merged: subok is required in one of numpy.array's overloads, optional in the doc
    assert numpy_docs["numpy.array"].api_arguments["subok"] != "required"
    assert {"dtype", "copy", "order", "ndmin"} <= set(numpy_docs["numpy.array"].api_arguments)
    # descriptions from numpy's add_newdoc calls, their signature lines and "--" left out
    assert numpy_docs["numpy.array"].description == "Create an array."
    assert numpy_docs["numpy.zeros"].description.startswith("Return a new array of given shape")
    assert numpy_docs["numpy.concatenate"].description.startswith("Join a sequence of arrays")
    assert numpy_docs["numpy.array"].framework == "numpy"


def test_real_numpy_calls_are_valid_and_a_typo_is_not(numpy_validator):
    for code in (
        "import numpy as np\na = np.array([1, 2])",
        "import numpy as np\nz = np.zeros((2, 3), dtype=float)",
        "import numpy as np\nr = np.arange(10)",
        "import numpy as np\nr = np.sqrt(np.arange(10))",
    ):
        assert numpy_validator.check(code).kind == "valid", code
    typo = numpy_validator.check("import numpy as np\na = np.arrray([1, 2])")
    assert typo.kind == "hallucination" and typo.reason == "hallucination:unknown_callee"
    assert typo.suggestions and typo.suggestions[0].startswith("numpy.array")
    assert numpy_validator.check("import numpy as np\nnp.zeros(1, 2, 3, 4, 5)").kind == "wrong_args"


def test_merge_overloads_keeps_every_parameter_required_only_where_all_require_it():
    a = FuncDef("f", [Param("x", "poskw"), Param("flag", "kwonly")])
    b = FuncDef("f", [Param("x", "poskw"), Param("y", "poskw", "None"), Param("args", "var")], "Doc.")
    merged = merge_overloads([a, b])
    assert [(p.name, p.kind, p.required) for p in merged.params] == [
        ("x", "poskw", True),
        ("y", "poskw", False),
        ("args", "var", False),
        ("flag", "kwonly", False),
    ]
    assert merged.doc == "Doc."


def test_read_stub_callable_objects_bound_methods_and_reexports():
    stub = b"""from typing import Final, overload, Protocol
from ._impl import helper as helper
from ._impl import private_only

class _Maker(Protocol):
    @overload
    def __call__(self, shape: int, /) -> int: ...
    @overload
    def __call__(self, shape: int, dtype: str = ..., /) -> int: ...

class State:
    def draw(self, low: int, high: int = ...) -> int: ...

make: Final[_Maker] = ...
_state: State
draw = _state.draw
"""
    info = read_stub(stub, "pkg", True)
    make, draw = info.defs["make"], info.defs["draw"]
    assert isinstance(make, FuncDef) and [p.name for p in make.params] == ["shape", "dtype"]
    assert [p.required for p in make.params] == [True, False]
    assert isinstance(draw, FuncDef) and [p.name for p in draw.params] == ["low", "high"]
    names = [alias for imp in info.imports for _, alias in imp.names]
    assert names == ["helper"]  # PEP 484: only ``import a as a`` re-exports


def test_newdoc_docs_and_description():
    src = b'''add_newdoc('pkg.core', 'thing', """
    thing(object, dtype=None,
          *, copy=True)
    --

    Make a thing.

    More.
    """)
add_newdoc('pkg.core', 'Box', ('open', """b.open(mode)\\n\\nOpen the box."""))
'''
    docs = newdoc_docs(src)
    assert description("thing", docs[("thing", "")]) == "Make a thing."
    assert description("open", docs[("Box", "open")]) == "Open the box."


def test_a_module_that_cannot_list_its_names_is_not_judged(tmp_path, monkeypatch):
    """Rule 5 of check/judged.py: pkgstubtest takes names from a compiled module it has no stub of, so an
    unknown name of it is not judged (neither valid nor a hallucination), and the explanation says why;
    a name it binds is valid."""
    pkg = tmp_path / "pkgstubtest"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(
        "from ._speedups import *\n\ndef known(x):\n    return x\n\nother = known\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    pool = [ApiDoc(id="python-env:pkgstubtest.known", source="python-env", api_call="pkgstubtest.known(x)",
                   api_name="pkgstubtest.known", api_arguments={"x": "required"})]  # fmt: skip
    validator = Validator(pool)
    assert validator.check("import pkgstubtest\npkgstubtest.known(1)").kind == "valid"
    assert validator.check("import pkgstubtest\npkgstubtest.other(1)").kind == "valid"  # bound by source
    unknown = validator.check("import pkgstubtest\npkgstubtest.fast_path(1)")
    assert unknown.kind != "hallucination"
    assert any("not judged" in d and "cannot list its names" in d for d in unknown.diagnostics)
    assert sys.modules.get("pkgstubtest") is None  # never imported
