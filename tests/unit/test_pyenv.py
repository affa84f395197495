"""The python-env source: the real standard library and an installed distribution, read with tree-sitter."""

from __future__ import annotations

import platform
from importlib import metadata

import pytest

from gorilla_tui.check.imports import import_aliases, qualify
from gorilla_tui.errors import UsageError
from gorilla_tui.pool.doc import ApiDoc
from gorilla_tui.pool.pyenv.module_api import read_module
from gorilla_tui.pool.pyenv.source import SOURCE, configured_spec, load_python_env, parse_spec


@pytest.fixture(scope="module")
def stdlib() -> dict[str, ApiDoc]:
    result = load_python_env("stdlib")
    assert not [d for d in result.diagnostics if d.severity == "skipped"]
    return {d.api_name: d for d in result.docs}


def test_function_doc_has_call_template_signature_and_provenance(stdlib):
    d = stdlib["json.loads"]
    assert d.api_call == "json.loads(s)"
    assert d.api_arguments["s"] == "required"
    assert d.api_arguments["object_hook"] == "None"
    assert d.api_arguments["**kw"] == "optional"
    assert d.description.startswith("Deserialize ``s``") and "\n" not in d.description
    assert (d.source, d.id, d.framework, d.api_version) == (
        SOURCE,
        "python-env:json.loads",
        "python",
        platform.python_version(),
    )
    assert d.domain == "Python standard library" and d.kind == "python" and d.flagged is None
    assert d.example_code == "import json\njson.loads(s)"


def test_required_keyword_only_and_positional_only(stdlib):
    # shutil.copyfile(src, dst, *, follow_symlinks=True); os.walk(top, topdown=True, ...)
    assert stdlib["shutil.copyfile"].api_call == "shutil.copyfile(src, dst)"
    assert stdlib["os.walk"].api_arguments["topdown"] == "True"
    assert stdlib["hashlib.file_digest"].api_call == "hashlib.file_digest(fileobj, digest)"


def test_methods_classmethods_and_classes(stdlib):
    assert stdlib["pathlib.Path.read_text"].api_call == "pathlib.Path().read_text()"
    assert stdlib["datetime.datetime.strptime"].api_call == "datetime.datetime.strptime(date_string, format)"
    assert stdlib["zipfile.ZipFile"].api_call == "zipfile.ZipFile(file)"
    assert stdlib["zipfile.ZipFile.extractall"].api_call == "zipfile.ZipFile(file).extractall()"
    assert "pathlib.Path.name" not in stdlib  # a property, not a call


def test_reexports_get_the_public_short_name(stdlib):
    assert "asyncio.gather" in stdlib and "asyncio.tasks.gather" not in stdlib
    assert "json.JSONDecoder" in stdlib and "json.decoder.JSONDecoder" not in stdlib
    assert stdlib["os.path.join"].api_call == "os.path.join(a)"  # posixpath, named as people call it
    assert stdlib["random.shuffle"].api_call == "random.shuffle(x)"  # a bound method of a module instance
    assert stdlib["bisect.insort"].api_call == "bisect.insort(a, x)"  # insort = insort_right


def test_compiled_modules_are_included(stdlib):
    assert stdlib["math.sqrt"].api_call == "math.sqrt(x)"
    assert stdlib["time.sleep"].api_call == "time.sleep(seconds)"  # from the docstring's signature line
    assert stdlib["os.listdir"].description.startswith("Return a list containing the names")
    assert stdlib["sqlite3.connect"].functionality == "function in sqlite3"
    assert stdlib["open"].api_call == "open(file)"  # builtins by bare name


def test_private_tests_vendored_and_all_are_respected(stdlib):
    names = list(stdlib)
    assert len(names) > 5000
    assert not [n for n in names if any(p.startswith("_") for p in n.split(".")[:-1])]
    # a last part with one underscore only for a function of a public compiled module (sys._getframe)
    private = {n for n in names if n.rsplit(".", 1)[-1].startswith("_")}
    assert {"os._exit", "sys._getframe", "sys._current_frames"} <= private
    assert not {n for n in private if n.rsplit(".", 1)[-1].startswith("__")}
    assert (
        "abc._abc_init" not in private and "tracemalloc._get_traces" not in private
    )  # from _abc, _tracemalloc
    assert not [
        n for n in names if n.split(".")[0] in ("test", "idlelib", "lib2to3", "distutils", "ensurepip")
    ]
    assert "json.detect_encoding" not in stdlib  # defined in json/__init__.py but not in its __all__
    assert "hashlib.sha256" in stdlib  # in hashlib.__all__ (built as a + of literals), made at run time


def test_read_module_parses_without_importing():
    src = b'''"""Doc."""
__all__ = ["f"]
__all__.append("K")
from .sub import g as h
import os

def f(a, /, b, *args, c, d=1, **kw):
    """First line
    continues.

    Second paragraph."""

class K:
    def __init__(self, x, y=2): ...
    @classmethod
    def make(cls, z): ...
    @property
    def p(self): ...

raise SystemExit("never run")
'''
    info = read_module(src, "pkg.mod")
    assert info.all_names == ["f", "K"]
    assert info.imports[0].module == "pkg.sub" and info.imports[0].names == [("g", "h")]
    f = info.defs["f"]
    assert [(p.name, p.kind, p.required) for p in f.params] == [
        ("a", "posonly", True),
        ("b", "poskw", True),
        ("args", "var", False),
        ("c", "kwonly", True),
        ("d", "kwonly", False),
        ("kw", "varkw", False),
    ]
    k = info.defs["K"]
    assert [p.name for p in k.init.params] == ["x", "y"]
    assert [(m.name, m.kind) for m in k.methods] == [("make", "classmethod"), ("p", "property")]


def test_a_decorator_that_may_change_the_signature_leaves_it_open():
    """Issue 19 (the checker binds python-env calls to their signature): after ``@overload`` stubs the
    implementation def is kept (its signature is the real one: pandas.read_csv's first overload made
    ``iterator`` required), ``@click.command()`` calls the function itself; only the standard library's
    signature-keeping decorators (SIGNATURE_KEEPING) leave the parameters closed."""
    src = b"""import functools, typing, click

@typing.overload
def f(a: int) -> int: ...
@typing.overload
def f(a: str, b: str) -> str: ...
def f(a, b=None): return a

@click.command()
@click.option("--name")
def hello(name): ...

@functools.lru_cache(maxsize=None)
def cached(x, *, y=1): ...
"""
    info = read_module(src, "pkg.mod")
    kinds = {name: [(p.name, p.kind) for p in info.defs[name].params] for name in ("f", "hello", "cached")}
    assert kinds["f"] == [("a", "poskw"), ("b", "poskw")]
    assert kinds["hello"] == [("name", "poskw"), ("args", "var"), ("kwargs", "varkw")]
    assert kinds["cached"] == [("x", "poskw"), ("y", "kwonly")]


def test_a_distribution_is_indexed_by_name():
    version = metadata.version("rich")
    result = load_python_env("rich")
    by = {d.api_name: d for d in result.docs}
    console = by["rich.console.Console"]
    assert console.framework == "rich" and console.api_version == version
    assert console.env_requirements == [f"rich=={version}"] and console.domain == "rich"
    assert "rich.print" in by
    assert not [n for n in by if not n.startswith("rich.")]


def test_unknown_distribution_and_spec():
    with pytest.raises(UsageError, match="neither an installed distribution nor an importable module"):
        load_python_env("no-such-distribution-xyz")
    assert parse_spec("python:stdlib, rich,rich") == ["stdlib", "rich"]
    assert parse_spec("") == ["stdlib"]


def test_a_loose_importable_module_is_named_with_its_file(tmp_path, monkeypatch):
    """python:NAME for a module on PYTHONPATH that no distribution provides said "'b9ok' is neither an
    installed distribution nor an importable module", though `import b9ok` works: the message names the
    file and why it is not read (only distributions and the standard library)."""
    (tmp_path / "b9_loose_mod.py").write_text("def f(x):\n    return x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(UsageError) as raised:
        load_python_env("b9_loose_mod")
    message = str(raised.value)
    assert f"'b9_loose_mod' is importable ({tmp_path / 'b9_loose_mod.py'})" in message, message
    assert "no installed distribution provides it" in message and "neither" not in message


@pytest.mark.slow  # five loads of the whole standard library (a module's docs come from the whole of it)
def test_a_standard_library_module_is_indexed_by_name(stdlib):
    """python:json read "Python distribution 'json' is not installed" (json is a module of the standard
    library, not a distribution). A module name, stdlib or not, now indexes that module's docs, exactly as
    the whole standard library (or distribution) gives them: csv.reader keeps the signature of the compiled
    _csv it is re-exported from, collections.abc its names from _collections_abc."""
    calls = {}
    for name in ("json", "csv", "collections", "xml.etree"):
        result = load_python_env(name)
        assert not result.diagnostics, result.diagnostics
        calls[name] = got = {d.api_name: d.api_call for d in result.docs}
        want = {n: d.api_call for n, d in stdlib.items() if n.startswith(name + ".")}
        assert got == want and got, name
    assert {"csv.reader(iterable)", "csv.DictWriter(f, fieldnames)"} <= set(calls["csv"].values())
    # the standard library and one of its modules: no doc twice
    both = load_python_env("json,stdlib")
    assert sorted(d.api_name for d in both.docs) == sorted(stdlib)


def test_a_module_of_a_distribution_is_indexed_as_that_distribution():
    """llama_cpp is no distribution's name (llama-cpp-python provides it): its docs require the
    distribution, and only the module's docs are kept."""
    version = metadata.version("llama-cpp-python")
    with pytest.raises(metadata.PackageNotFoundError):
        metadata.distribution("llama_cpp")
    by = {d.api_name: d for d in load_python_env("llama_cpp").docs}
    assert "llama_cpp.Llama" in by and all(n.startswith("llama_cpp.") for n in by)
    assert by["llama_cpp.Llama"].env_requirements == [f"llama_cpp_python=={version}"]


def test_user_config_adds_distributions(gorilla_home):
    cfg = gorilla_home / "config" / "config.toml"
    cfg.parent.mkdir(parents=True)
    cfg.write_text('sources = ["python:rich", "some/docs.jsonl"]\n')
    assert configured_spec("stdlib") == "stdlib,rich"


@pytest.mark.slow  # the whole standard library
def test_manifest_loads_through_sources_and_skips_missing_distributions(gorilla_home):
    from gorilla_tui.pool.sources import FetchContext, fetch, load_manifests

    cfg = gorilla_home / "config" / "config.toml"
    cfg.parent.mkdir(parents=True)
    cfg.write_text('sources = ["python:no-such-distribution-xyz"]\n')
    manifest = {m.name: m for m in load_manifests()}["python-env"]
    load = fetch(manifest, FetchContext())
    assert load.status == "ok" and len(load.result.docs) > 5000
    assert [d.file for d in load.result.diagnostics] == ["python:no-such-distribution-xyz"]


def test_progress_reports_every_file():
    seen = []
    load_python_env("rich", progress=lambda done, total, name: seen.append((done, total)))
    assert seen[-1][0] == seen[-1][1] == len(seen) > 10


def test_import_aliases_resolve_callees():
    code = "import numpy as np\nfrom json import loads as L\nfrom os import path\n"
    code += "import xml.etree.ElementTree as ET\n"
    aliases = import_aliases(code)
    assert qualify("np.array", aliases) == "numpy.array"
    assert qualify("L", aliases) == "json.loads"
    assert qualify("path.join", aliases) == "os.path.join"
    assert qualify("ET.parse", aliases) == "xml.etree.ElementTree.parse"
    assert qualify("print", aliases) == "print"


@pytest.mark.slow  # the whole standard library
def test_first_launch_builds_the_offline_pool_and_says_how_to_add_hubs():
    from gorilla_tui.build.first_launch import first_launch_index
    from gorilla_tui.retrieve.index import ApiIndex

    events = []
    message = first_launch_index(lambda kind, name, load: events.append((kind, name)))
    assert "python-env" in message and "gorilla-tui index --refresh" in message
    assert ("done", "python-env") in events
    # each step of the build is said with its counts (issue 40: a first launch was silent for 11 s)
    stages = [name for kind, name in events if kind == "stage"]
    assert stages[0].startswith("building the BM25 index: ") and stages[1].startswith("writing the index")
    index = ApiIndex.load()
    assert [h.doc.api_name for h in index.search("parse a JSON string", k=5, hub="python-env")]
    assert first_launch_index() is None  # an index exists now: nothing is done


@pytest.fixture(scope="module")
def validator(stdlib):
    from gorilla_tui.check.validator import Validator

    return Validator(list(stdlib.values()))


def test_validator_knows_stdlib_callees(validator):
    assert validator.check("json.loads(s)").kind == "valid"
    v = validator.check("json.load_string(s)")
    assert v.kind == "hallucination" and "json.loads" in v.suggestions


def test_validator_resolves_import_aliases(validator):
    assert validator.check("import json as j\nj.loads(text)").matched.api_name == "json.loads"
    assert validator.check("from json import loads\nloads(data)").matched.api_name == "json.loads"
    assert validator.check("from os import path\npath.join(a, b)").matched.api_name == "os.path.join"
    assert validator.check("from pathlib import Path\nPath('x').read_text()").kind == "valid"
    assert validator.check("from json import load_string\nload_string(s)").kind == "hallucination"


def test_validator_checks_required_parameters(validator):
    v = validator.check("shutil.copyfile('a.txt')")
    assert v.kind == "wrong_args" and v.suggestions == ["shutil.copyfile(src, dst)"]
    assert "'dst' is required" in v.diagnostics[0]
    assert validator.check("shutil.copyfile('a.txt', dst='b.txt')").kind == "valid"
    assert validator.check("shutil.copyfile(*paths)").kind == "valid"  # *args may hold them


def test_validator_binds_python_env_calls_to_their_signature(validator):
    """Issue 19: `import math; math.sqrt(1, 2)` was valid. Too many positional arguments, an unknown or
    repeated keyword, a missing required argument: wrong_args with a one-line reason, as for APIBench."""
    cases = {
        "import math\nmath.sqrt(1, 2)": (
            "wrong_args:too_many_arguments",
            "math.sqrt takes at most 1 positional argument, 2 given",
        ),
        "import shutil\nshutil.copyfile('a', 'b', overwrite=True)": (
            "wrong_args:unknown_keyword",
            "shutil.copyfile has no parameter 'overwrite' (parameters: src, dst, follow_symlinks)",
        ),
        "import shutil\nshutil.copyfile('a', 'b', src='c')": (
            "wrong_args:duplicate_argument",
            "shutil.copyfile got multiple values for argument 'src'",
        ),
        "from json import loads\nloads()": (
            "wrong_args:missing_argument",
            "argument 's' is required by json.loads",
        ),
        "import time\ntime.sleep(1, 2)": (  # a signature from the docstring's first line (C function)
            "wrong_args:too_many_arguments",
            "time.sleep takes at most 1 positional argument, 2 given",
        ),
    }
    for code, (reason, note) in cases.items():
        v = validator.check(code)
        assert (v.kind, v.reason, v.diagnostics[0]) == ("wrong_args", reason, note), code
        assert "\n" not in v.diagnostics[0]
    for code in (
        "import math\nmath.sqrt(2)",
        "import math\nmath.log(8, 2)",  # optional base from the docstring
        "print(1, 2, 3, sep='', end='')",  # keyword-only after *args
        "import json\njson.dumps({}, indent=2, custom=1)",  # **kw takes any keyword
        "import os\nos.path.join('a', 'b', 'c', 'd')",  # *p
        "range(1, 10, 2)",  # C type whose docstring shows several forms: parameters not bound
        "bytes('abc', 'ascii')",
        "filter(None, [0, 1])",  # an unreadable parameter in the docstring ("function or None")
        "import struct\nstruct.pack('<II', 1, 2)",  # "..." in the docstring
        "import struct\nstruct.pack('<')",  # v1, v2, ... may be none
        "bytearray()",  # one of its docstring's forms
        "import shutil\nshutil.copyfile(*paths, follow_symlinks=False)",  # *args may hold them
        "def input(inplace=False):\n    return inplace\ninput(inplace=True)",  # the code's own function
        "from posix import *\nopen('f', 0, dir_fd=3)",  # a star import may shadow the builtin
        "import functools, math\nf = functools.partial(math.pow, 2)\nf(3)",
    ):
        v = validator.check(code)
        assert v.kind == "valid", (code, v.reason, v.diagnostics)


def test_keyword_only_and_positional_only_parameters_bind_as_python_binds_them(stdlib, validator):
    """`check "json.loads('x', 1, 2, 3)"` said valid: json.loads(s, *, cls=None, ..., **kw) takes one
    positional argument, but api_arguments did not say which parameters are keyword-only. The signature's
    own separators are kept ("*", "/": Python source read with tree-sitter, C functions with
    inspect.signature / __text_signature__), and every verdict below is what calling it in Python gives."""
    assert list(stdlib["json.loads"].api_arguments)[:3] == ["s", "*", "cls"]  # Python source
    assert list(stdlib["len"].api_arguments) == ["obj", "/"]  # C: len(obj, /)
    assert list(stdlib["sorted"].api_arguments)[:3] == [
        "iterable",
        "/",
        "*",
    ]  # C: sorted(iterable, /, *, ...)
    assert "*" not in stdlib["print"].api_arguments  # print(*args, sep=' ', ...): *args says it already
    wrong = {
        "import json\njson.loads('x', 1, 2, 3)": (
            "wrong_args:too_many_arguments",
            "json.loads takes at most 1 positional argument, 4 given",
        ),
        "import shutil\nshutil.copyfile('a', 'b', True)": (  # follow_symlinks is keyword-only
            "wrong_args:too_many_arguments",
            "shutil.copyfile takes at most 2 positional arguments, 3 given",
        ),
        "sorted([2, 1], len)": (
            "wrong_args:too_many_arguments",
            "sorted takes at most 1 positional argument, 2 given",
        ),
        "import math\nmath.sqrt(x=4)": (
            "wrong_args:unknown_keyword",
            "math.sqrt got a positional-only argument passed as keyword: 'x'",
        ),
        "len(obj=[1])": (
            "wrong_args:unknown_keyword",
            "len got a positional-only argument passed as keyword: 'obj'",
        ),
        "len([1], 2)": ("wrong_args:too_many_arguments", "len takes at most 1 positional argument, 2 given"),
    }
    for code, (reason, note) in wrong.items():
        v = validator.check(code)
        assert (v.kind, v.reason, v.diagnostics[0]) == ("wrong_args", reason, note), code
        with pytest.raises(
            TypeError, match="argument"
        ):  # Python refuses it when it binds it: no file is touched
            exec(code, {})  # noqa: S102 - the test's own literal code, not model output
    for code in (
        "import json\njson.loads('[1]', cls=None, object_hook=None)",
        "import json\njson.loads('[1]', strict=False)",  # **kw
        "import os\nos.path.join('a', 'b', 'c', 'd', 'e')",  # *p: any count
        "import math\nmath.sqrt(4)",
        "len([1])",
        "sorted([2, -1], key=abs, reverse=True)",
    ):
        v = validator.check(code)
        assert v.kind == "valid", (code, v.reason, v.diagnostics)
        exec(code, {})  # noqa: S102 - the test's own literal code: Python accepts it


def test_hashlib_constructors_made_at_import_have_their_compiled_signature(stdlib, validator):
    """hashlib binds md5, sha256, blake2b... only at import time (``globals()[name] = __get_hash(name)``,
    from OpenSSL or the _md5, _sha256, _blake2 modules it imports): their docs had no description and no
    parameters. Each now has those of the compiled constructor of its name in a private module hashlib
    imports; turtle.degrees (turtle imports the public math) is turtle's own, never math.degrees."""
    import hashlib

    for name in hashlib.algorithms_guaranteed:
        d = stdlib[f"hashlib.{name}"]
        assert d.description.startswith("Return a new ") and "hash object" in d.description, name
        assert "usedforsecurity" in d.api_arguments and d.functionality in (
            "function in hashlib",
            "class in hashlib",
        )
    assert stdlib["hashlib.md5"].api_arguments == {"string": "b''", "*": "", "usedforsecurity": "True"}
    assert (
        stdlib["hashlib.md5"].description
        == "Return a new MD5 hash object; optionally initialized with a string."
    )
    assert stdlib["turtle.degrees"].description.startswith("Set angle measurement units to degrees")
    assert stdlib["math.degrees"].functionality == "function in math"
    assert (
        validator.check("import hashlib\nhashlib.md5(b'x', usedforsecurity=False).hexdigest()").kind
        == "valid"
    )
    v = validator.check("import hashlib\nhashlib.md5(b'x', b'y')")
    assert (v.kind, v.reason) == ("wrong_args", "wrong_args:too_many_arguments")


def test_docstring_signatures_with_several_forms_stay_open() -> None:
    from gorilla_tui.pool.pyenv.compiled import doc_signature

    def kinds(name: str, doc: str) -> list[tuple[str, str]]:
        return [(p.name, p.kind) for p in doc_signature(name, doc)[0]]

    assert kinds("sleep", "sleep(seconds)\n\nDelay execution.") == [("seconds", "poskw")]
    assert kinds("range", range.__doc__) == [("stop", "poskw"), ("args", "var"), ("kwargs", "varkw")]
    assert kinds("filter", filter.__doc__)[-2:] == [("args", "var"), ("kwargs", "varkw")]
    required = {  # as many required as the form with the fewest: bytearray() is a form; v1, v2, ... vary
        name: [p.name for p in doc_signature(name, doc)[0] if p.required]
        for name, doc in (("range", range.__doc__), ("bytearray", bytearray.__doc__),
                          ("pack", "pack(format, v1, v2, ...) -> bytes\n"))
    }  # fmt: skip
    assert required == {"range": ["stop"], "bytearray": [], "pack": ["format"]}
    assert kinds(
        "writer", "csv_writer = csv.writer(fileobj [, dialect='excel']\n  [optional keyword args])"
    ) == [
        ("fileobj", "poskw"),
        ("args", "var"),
        ("kwargs", "varkw"),
    ]
    assert kinds("writer", "writer.other(x)\n") == [] and kinds("writer", "rewriter(x)\n") == []
    assert kinds("reader", "reader(iterable [, dialect='excel'] [, **fmtparams])\n") == [
        ("iterable", "poskw"),
        ("dialect", "poskw"),
        ("fmtparams", "varkw"),
    ]


def test_a_text_signature_inspect_cannot_evaluate_is_read_with_ast(stdlib, validator) -> None:
    """sqlite3.connect's __text_signature__ has a default named by the C module (``factory=ConnectionType``)
    and dict.pop's one Argument Clinic cannot write (``default=<unrepresentable>``): inspect.signature
    refuses both, so their docs had no parameters ("open the database inventory.db" filled
    ``sqlite3.connect()``). The text signature is read with ast, never evaluated; the checker then binds
    calls as Python does."""
    import inspect
    import sqlite3

    from gorilla_tui.pool.pyenv.compiled import text_signature

    with pytest.raises(ValueError):
        inspect.signature(sqlite3.connect)
    d = stdlib["sqlite3.connect"]
    assert d.api_call == "sqlite3.connect(database)"
    assert list(d.api_arguments)[:3] == ["database", "timeout", "detect_types"]
    assert d.api_arguments["factory"] == "ConnectionType" and d.api_arguments["timeout"] == "5.0"
    assert stdlib["dict.pop"].api_arguments == {"key": "required", "default": "optional", "/": ""}
    assert list(stdlib["os.utime"].api_arguments) == ["path", "times", "*", "ns", "dir_fd", "follow_symlinks"]
    # the docstring's own signature line stays out of the description (and of the vector seed's text)
    assert stdlib["cmath.log"].api_call == "cmath.log(z)"
    assert stdlib["cmath.log"].description.startswith("If the base is not specified")
    # a compiled method without a text signature whose docstring starts with one (B.count(sub[, ...]))
    assert stdlib["bytes.count"].api_call == "bytes().count(sub)"
    assert validator.check("import sqlite3\nsqlite3.connect('inventory.db', timeout=2)").kind == "valid"
    v = validator.check("import sqlite3\nsqlite3.connect()")
    assert (v.kind, v.reason) == ("wrong_args", "wrong_args:missing_argument")
    assert text_signature("($module, /, x, *args, y=<unrepresentable>, **kw)") is not None
    assert [(p.name, p.kind, p.default) for p in text_signature("($self, a, b=[1, 2], /, *, c=x.y)")] == [
        ("a", "posonly", None), ("b", "posonly", "[1, 2]"), ("c", "kwonly", "x.y")
    ]  # fmt: skip
    assert text_signature("not a signature") is None and text_signature("(a, a=)") is None
    assert text_signature(None) is None


def test_a_compiled_function_whose_doc_names_its_module_gets_that_signature(stdlib, validator) -> None:
    """csv.writer (compiled _csv.writer: inspect.signature fails) documents itself as "csv_writer =
    csv.writer(fileobj [, dialect='excel'] ...)": the module before the name hid the signature, so the
    doc took any arguments and `csv.writer()` was valid. The qualified form is read like the bare one;
    a docstring with no signature line keeps today's behaviour (parameters unknown, any call valid)."""
    import _csv
    import inspect

    with pytest.raises(ValueError):
        inspect.signature(_csv.writer)
    assert stdlib["csv.writer"].api_call == "csv.writer(fileobj)"
    assert stdlib["csv.writer"].api_arguments["fileobj"] == "required"
    v = validator.check("import csv\ncsv.writer()")
    assert (v.kind, v.reason) == ("wrong_args", "wrong_args:missing_argument")
    assert "argument 'fileobj' is required by csv.writer" in v.diagnostics
    for ok in ("csv.writer(f)", "csv.writer(f, 'excel')", "csv.writer(f, dialect='excel', delimiter=';')"):
        assert validator.check(f"import csv\n{ok}").kind == "valid", ok
    # csv.register_dialect has no text signature and its docstring starts with none: unknown parameters to
    # the doc, so its calls are judged by the type stub alone (pool/stub_bind.py: at most 2 positionals, as
    # the running function says: "expected at most 2 arguments, got 3")
    assert stdlib["csv.register_dialect"].api_arguments == {}
    assert validator.check("import csv\ncsv.register_dialect('x', delimiter=';')").kind == "valid"
    v = validator.check("import csv\ncsv.register_dialect(1, 2, 3)")
    assert (v.kind, v.reason) == ("wrong_args", "wrong_args:too_many_arguments"), v


def test_cli_spec_replaces_the_configured_distributions(gorilla_home):
    from gorilla_tui.pool.pyenv.source import load_source, with_spec
    from gorilla_tui.pool.sources import load_manifests

    cfg = gorilla_home / "config" / "config.toml"
    cfg.parent.mkdir(parents=True)
    cfg.write_text('sources = ["python:no-such-distribution-xyz"]\n')
    manifest = next(m for m in with_spec(load_manifests(), "python:rich") if m.name == "python-env")
    origin, roots, result = load_source(manifest)
    assert roots == ["rich"] and "(rich)" in origin and not result.diagnostics
    assert {d.framework for d in result.docs} == {"rich"}


def test_the_rebuild_summary_gives_each_failed_source_its_own_fix():
    from gorilla_tui.tui.screens.index_setup import build_summary

    rows = [{"name": h, "status": "ok", "loaded": 9} for h in ("torchhub", "tensorflowhub", "huggingface")]
    msg, failed = build_summary(rows + [{"name": "apizoo", "status": "not in mirror"}], 27, 1.0)
    assert [r["name"] for r in failed] == ["apizoo"]
    assert (
        "apizoo: to add it: gorilla-tui index --refresh --source apizoo=DIR with DIR a local copy of " in msg
    )
    assert "APIBench" not in msg and "--from" not in msg  # the APIBench files hold no APIZoo
    msg, _ = build_summary([{"name": "torchhub", "status": "unreachable"}], 0, 1.0)
    assert "torchhub: to add it: gorilla-tui index --refresh when online" in msg and "--from DIR" in msg


class _Capture:
    """What a TUI or a test runner puts in place of sys.stdout / sys.stderr: a Python object with a few
    methods."""

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass


def test_sys_streams_and_hooks_are_indexed_as_the_interpreter_sets_them(monkeypatch, stdlib) -> None:
    """The TUI's first-launch build gave 8,885 python-env docs and `index --refresh` 8,919: Textual had
    replaced sys.stdout and sys.stderr, whose methods (sys.stdout.reconfigure, ...) are indexed."""
    from gorilla_tui.pool.pyenv.compiled import read_compiled

    real = read_compiled("sys")
    monkeypatch.setattr("sys.stdout", _Capture())
    monkeypatch.setattr("sys.stderr", _Capture())
    monkeypatch.setattr("sys.excepthook", lambda *args: None)
    captured = read_compiled("sys")
    assert captured == real
    assert {"reconfigure", "write", "readline"} <= {m.name for m in captured.objects["stderr"].methods}
    assert "sys.stderr.reconfigure" in stdlib and "sys.excepthook" in stdlib


def test_lint_messages_of_python_env_calls_inside_functions(validator):
    """A finding that is not the deciding call is checked alone with the block's imports: an indented
    import (or a docstring line starting with "from") made that a syntax error, and "syntax error at ..."
    the finding's message."""
    from gorilla_tui.check import lint

    code = '''def copy(a, b):
    """Copy a file
    from the source folder."""
    import math
    import shutil
    shutil.copyfile(a, b, overwrite=True)
    return math.sqrt(a, b)
'''
    found = [(f.line, f.reason, f.message) for f in lint.check_block(validator, "x.py", lint.Block(code))]
    assert found == [
        (
            6,
            "wrong_args:unknown_keyword",
            "shutil.copyfile has no parameter 'overwrite' (parameters: src, dst, follow_symlinks)",
        ),
        (7, "wrong_args:too_many_arguments", "math.sqrt takes at most 1 positional argument, 2 given"),
    ]


def test_a_function_known_to_take_no_argument_is_wrong_args_with_one(stdlib, validator):
    """`check "os.getcwd(1)"` said valid: a signature with no parameter was stored as an empty
    api_arguments, which also means "parameters unknown" (a C function without a text signature). A
    signature read as empty (inspect.signature, a docstring's "getcwd()" line, a def without parameters)
    now keeps the separator "/" alone; an unknown one stays empty and is never counted against."""
    for name in ("os.getcwd", "time.time", "uuid.uuid4", "datetime.date.today"):
        assert stdlib[name].api_arguments == {"/": ""}, name
    assert stdlib["threading.Lock"].api_arguments == {}  # a class: an __init__ it inherits may take any
    for code in ("import os\nos.getcwd(1)", "import time\ntime.time(5)", "import uuid\nuuid.uuid4('x')"):
        v = validator.check(code)
        assert (v.kind, v.reason) == ("wrong_args", "wrong_args:too_many_arguments"), code
        with pytest.raises(TypeError, match="argument"):
            exec(code, {})  # noqa: S102 - the test's own literal code, not model output
    for code in ("import os\nos.getcwd()", "import time\ntime.time()", "import threading\nthreading.Lock()"):
        assert validator.check(code).kind == "valid", code


def test_constants_of_an_all_list_are_not_docs_called_like_functions(stdlib, validator) -> None:
    """A name of a literal __all__ bound outside the module's own source was indexed as a "compiled
    callable" with the call ``NAME()``: csv.QUOTE_ALL (an int of _csv), concurrent.futures.FIRST_COMPLETED
    (a str of concurrent.futures._base), calendar.MONDAY (``(MONDAY, ...) = range(7)``), re.IGNORECASE,
    unittest.defaultTestLoader (a TestLoader instance). ``csv.QUOTE_ALL()`` was a `valid` verdict for a
    call Python refuses (TypeError: 'int' object is not callable). Functions made at import stay."""
    for name in (
        "csv.QUOTE_ALL",
        "concurrent.futures.FIRST_COMPLETED",
        "calendar.MONDAY",
        "re.IGNORECASE",
        "lzma.FORMAT_XZ",
        "inspect.CO_COROUTINE",
        "unittest.defaultTestLoader",
        "email.policy.compat32",
    ):
        assert name not in stdlib, name
    assert validator.check("import csv\ncsv.QUOTE_ALL()").kind != "valid"
    assert validator.check("import csv\ncsv.writer(f, quoting=csv.QUOTE_ALL)").kind == "valid"
    assert stdlib["turtle.degrees"].functionality == "function in turtle"  # Turtle.degrees, made at import
    assert stdlib["os.path.exists"].api_call.startswith("os.path.exists(")
    assert stdlib["threading.Lock"].functionality == "compiled callable in threading"


def test_a_name_a_literal_all_takes_from_a_star_import_gets_its_definition(stdlib) -> None:
    """os.path (posixpath) lists getmtime in its __all__ and takes it from ``from genericpath import *``:
    it was a bare "compiled callable" with no parameters and no description, so filling had nothing to
    put "when was report.pdf last modified" into."""
    d = stdlib["os.path.getmtime"]
    assert d.api_call == "os.path.getmtime(filename)" and d.functionality == "function in os.path"
    assert d.description.startswith("Return the last modification time of a file")
    assert stdlib["os.path.isfile"].api_arguments == {"path": "required"}
    assert stdlib["genericpath.getmtime"].api_call == "genericpath.getmtime(filename)"  # still its own doc


def test_a_class_without_its_own_init_gets_the_one_it_inherits(stdlib, validator) -> None:
    """`check "http.server.BaseHTTPRequestHandler()"` said valid: a class whose body defines no __init__
    had no parameters (an unknown signature), though it inherits
    socketserver.BaseRequestHandler.__init__(self, request, client_address, server). Its constructor is now
    the first __init__ (or __new__) along its MRO when every class in it is read from source with a plain
    class statement; each such doc agrees with inspect.signature of the class. Classes whose MRO is not
    known (a base outside the source, a metaclass, a decorator) stay unknown."""
    import http.server
    import inspect
    import socketserver
    import unittest.mock

    inherited = {
        # two bases up, in another module
        "http.server.BaseHTTPRequestHandler": http.server.BaseHTTPRequestHandler,
        # a mixin without __init__ first: the MRO's, not bases[0]'s
        "socketserver.ThreadingTCPServer": socketserver.ThreadingTCPServer,
        "unittest.mock.MagicMock": unittest.mock.MagicMock,  # the mixin's __init__(*args, **kw)
    }
    for name, cls in inherited.items():
        args = {n.lstrip("*"): v for n, v in stdlib[name].api_arguments.items() if n not in ("/", "*")}
        params = inspect.signature(cls).parameters
        assert set(args) == set(params), name
        assert {n for n, v in args.items() if v == "required"} == {
            n
            for n, p in params.items()
            if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        }, name
    assert stdlib["http.server.BaseHTTPRequestHandler"].api_call == (
        "http.server.BaseHTTPRequestHandler(request, client_address, server)"
    )
    v = validator.check("import http.server\nhttp.server.BaseHTTPRequestHandler()")
    assert v.kind == "wrong_args" and "missing" in v.reason, (v.kind, v.reason)
    with pytest.raises(TypeError, match="missing 3 required positional arguments"):
        http.server.BaseHTTPRequestHandler()
    ok = "socketserver.ThreadingTCPServer(('', 0), socketserver.StreamRequestHandler, False)"
    assert validator.check("import socketserver\n" + ok).kind == "valid"
    # unknown stays unknown: a compiled class; a class whose base is compiled (Exception)
    assert stdlib["threading.Lock"].api_arguments == {}
    assert stdlib["http.client.HTTPException"].api_arguments == {}
    assert validator.check("import http.client\nhttp.client.HTTPException('a', 2)").kind == "valid"
