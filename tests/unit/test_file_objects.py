"""Parameters that take a file object (issue 37): told from the running Python's own standard-library docs
as python-env reads them (pool/file_objects.py), filled with the task's path opened (fill/file_objects.py)
and a path given there refused by the checker (check/file_args.py); the real tiny model fills them."""

from __future__ import annotations

import ast

import pytest

from gorilla_tui.config import Settings
from gorilla_tui.fill.call_grammar import TaskValues
from gorilla_tui.fill.filler import fill, target_of
from gorilla_tui.fill.render import render_target
from gorilla_tui.pipeline import Pipeline
from gorilla_tui.pool.file_objects import file_params
from gorilla_tui.retrieve.index import ApiIndex


@pytest.mark.parametrize(
    ("name", "files"),
    [
        ("json.load", {"fp": "r"}),  # "``fp`` (a ``.read()``-supporting file-like object ...)"
        ("json.dump", {"fp": "w"}),  # "to ``fp`` (a ``.write()``-supporting file-like object)"
        ("hashlib.file_digest", {"fileobj": "rb"}),  # "Hash the contents of a file-like object."
        ("shutil.copyfileobj", {"fsrc": "r", "fdst": "w"}),  # "from file-like object fsrc to ... fdst"
        ("tomllib.load", {"fp": "rb"}),  # "Parse TOML from a binary file object."
        ("plistlib.dump", {"fp": "wb"}),  # "'fp' should be a writable, binary file object."
        ("base64.encode", {"input": "rb", "output": "wb"}),  # "input and output are binary files"
        ("csv.writer", {"fileobj": "w"}),  # the signature's name says file object; the API's name, writing
        ("tarfile.TarFile.open", {"fileobj": "rb"}),  # "Open a tar archive for reading, writing or ..."
    ],
)
def test_the_doc_says_which_parameters_take_a_file_object_and_how_it_is_opened(docs, name, files):
    assert file_params(docs[name]) == files


@pytest.mark.parametrize(
    "name",
    [
        "zipfile.ZipFile",  # a path or a file: fine as is
        "xml.dom.minidom.parse",  # "by filename or file object"
        "open",  # "Open file and return a stream": it makes one
        "gzip.open",
        "json.loads",
        "tokenize.tokenize",  # readline: "the same interface as the readline() method of ... file objects"
        "os.path.sameopenfile",  # two file descriptors: no one parameter the text points at
    ],
)
def test_a_path_or_another_value_is_no_file_object(docs, name):
    assert file_params(docs[name]) == {}


def test_a_file_object_parameter_is_rendered_with_the_path_opened(docs):
    target = target_of(docs["json.load"], TaskValues.of("read config.json into a dict"))
    assert [list(s.values) for s in target.offered] == [["'config.json'"]]
    call, args, decoded = render_target(target, {"fp": ("'config.json'", "task")})
    assert call == "json.load(open('config.json'))"
    assert [(a.name, a.value, a.origin) for a in args] == [("fp", "open('config.json')", "task")]
    assert decoded == [{"json.load": {}}]  # BFCL's decoded form holds literals only
    plist = target_of(docs["plistlib.load"], TaskValues.of("read Info.plist"))
    assert (
        render_target(plist, {"fp": ("'Info.plist'", "task")})[0] == "plistlib.load(open('Info.plist', 'rb'))"
    )
    assert render_target(target, {"fp": ("fp", "missing")})[0] == "json.load(fp)"  # a placeholder stays


def test_the_file_the_task_names_goes_to_the_file_object_alone(docs):
    target = target_of(docs["json.dump"], TaskValues.of("write the dict settings to out.json"))
    offered = {s.param.name: list(s.values) for s in target.offered}
    # obj: the task's variable (fill/kinds.py), not the file's name; fp: the file alone
    assert offered == {"obj": ["settings"], "fp": ["'out.json'"]}
    number = target_of(docs["json.load"], TaskValues.of("load 3 settings from config.json"))
    assert [list(s.values) for s in number.offered] == [["'config.json'"]]  # no number for a file


@pytest.mark.parametrize(
    ("code", "suggestion"),
    [
        ("import json\njson.load('config.json')", "json.load(open('config.json'))"),
        ("import plistlib\nplistlib.load('Info.plist')", "plistlib.load(open('Info.plist', 'rb'))"),
        (
            "import shutil\nshutil.copyfileobj('a.txt', fdst='b.txt')",
            "shutil.copyfileobj(open('a.txt'), fdst=open('b.txt', 'w'))",
        ),
        ("import csv\ncsv.writer('out.csv')", "csv.writer(open('out.csv', 'w', newline=''))"),
        ("import pickle\npickle.load('x.pkl')", "pickle.load(open('x.pkl', 'rb'))"),  # from its stub
        # the description names the file, the stub says bytes (break-it round 19: open('x.bin') was offered)
        ("import marshal\nmarshal.load('x.bin')", "marshal.load(open('x.bin', 'rb'))"),
        ("import csv\nrows = csv.reader('sales.csv')", "csv.reader(open('sales.csv', newline=''))"),  # lines
        ("import csv\ncsv.DictReader('a.csv')", "csv.DictReader(open('a.csv', newline=''))"),
        ("import pprint\npprint.pprint({}, 'out.txt')", "pprint.pprint({}, open('out.txt', 'w'))"),
        (
            "import json\njson.dump({'a': 1}, 'out.json', indent=2)",
            "json.dump({'a': 1}, open('out.json', 'w'), indent=2)",
        ),
    ],
)
def test_a_path_where_a_file_object_goes_is_wrong_args_with_the_file_opened(validator, code, suggestion):
    verdict = validator.check(code)
    assert (verdict.kind, verdict.reason) == ("wrong_args", "wrong_args:wrong_type")
    assert verdict.suggestions == [suggestion]
    api = suggestion.split("(")[0]
    which = " for fsrc and fdst" if api == "shutil.copyfileobj" else ""  # two files
    assert verdict.diagnostics == [f"{api} takes an open file{which}, not a path: {suggestion}"]
    assert validator.check(code.split("\n")[0] + "\n" + suggestion).kind == "valid"


@pytest.mark.parametrize(
    "code",
    [
        "import json\nwith open('c.json') as f:\n    d = json.load(f)",
        "import zipfile\nzipfile.ZipFile('a.zip')",
        "import json\njson.loads('{}')",
        "import json\nimport io\njson.load(io.StringIO('{}'))",
        "import bz2\nbz2.open('a.bz2')",  # its last overload takes a path
        "import csv\ncsv.reader(['a,b', 'c,d'])",  # a list of lines
        "import csv\nwith open('a.csv', newline='') as f:\n    rows = list(csv.reader(f))",
        "import shlex\nshlex.join('ab')",  # Iterable[str], no file
        "import pprint\npprint.pprint('text')",
        "import getpass\ngetpass.getpass('Password: ')",  # its stream comes second
    ],
)
def test_a_file_object_or_a_parameter_that_takes_a_path_is_valid(validator, code):
    assert validator.check(code).kind == "valid"


@pytest.mark.model
def test_the_model_fills_the_file_the_task_names_opened(gemma_backend, docs, validator):
    filled = fill(gemma_backend, "read config.json into a dict", docs["json.load"])
    assert filled.call == "json.load(open('config.json'))"
    assert [(a.name, a.origin) for a in filled.arguments] == [("fp", "task")]
    copied = fill(gemma_backend, "copy the contents of a.txt into b.txt", docs["shutil.copyfileobj"])
    assert copied.call == "shutil.copyfileobj(open('a.txt'), open('b.txt', 'w'))"
    rows = fill(gemma_backend, "read the csv file sales.csv and print each row", docs["csv.reader"])
    assert rows.call == "csv.reader(open('sales.csv', newline=''))"  # stub: Iterable[str] beside a dialect
    for code in (filled.call, copied.call, rows.call):
        ast.parse(code)
        assert validator.check(f"import csv, json, shutil\n{code}").kind == "valid"


@pytest.mark.model
def test_the_pipeline_proposes_the_file_opened_and_checks_it_valid(gemma_backend, stdlib_docs):
    names = {
        "json.load",
        "json.loads",
        "json.dump",
        "json.dumps",
        "pickle.load",
        "shutil.copyfileobj",
        "open",
    }
    index = ApiIndex.build([d for d in stdlib_docs if d.api_name in names])
    proposal = Pipeline(Settings(k=5), index, gemma_backend).ask("read config.json into a dict")
    assert proposal.api_call == "json.load(open('config.json'))"
    assert proposal.verdict.kind == "valid" and proposal.code.startswith("import json")


def test_the_stubs_are_read_only_for_a_call_that_passes_a_path(validator, monkeypatch):
    """`check` asks the rule (and so the stubs, pool/stub_cache.py) only for a call with a path in it."""
    import gorilla_tui.pool.file_objects as rule

    asked = []
    monkeypatch.setattr(rule, "stub_files", lambda name: asked.append(name) or ())
    opened = "import pickle\nwith open('m.pkl', 'rb') as f:\n    m = pickle.load(f)"
    assert validator.check(opened).kind == "valid"
    assert "pickle.load" not in asked
    assert validator.check("import pickle\npickle.loads(b'x', encoding='latin1')").kind == "valid"
    assert "pickle.loads" not in asked  # a string, but no path
    assert validator.check("import os\nos.path.exists('a.txt')").kind == "valid"
    assert "os.path.exists" in asked  # a path: the stub is read (here: nothing found)


def test_a_string_that_is_no_path_is_left_alone(validator):
    """Only a literal written like a path is held to the rule: CPython's own test_pkgutil passes
    placeholders for ``pkgutil.ImpLoader``'s file (its stub: ``file: IO[str]``), and the bench of false
    alarms runs over it (bench/false_alarms.py)."""
    assert validator.check('import pkgutil\npkgutil.ImpLoader("", "", "", "")').kind == "valid"
    assert validator.check("import pkgutil\npkgutil.ImpLoader('m', 'm.py', 'm.py', ())").kind == "wrong_args"
    assert validator.check("import json\njson.load('{}')").kind == "valid"
