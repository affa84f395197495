"""A second call on the first call's result (fill/chains.py), told from the type stubs (pool/typeshed.py) and
the running Python's own standard-library docs as python-env reads them; SQL written without quotes as one
value (fill/sql.py); files and folders named by a bare word (fill/values.py); the real tiny model writing
the calls."""

from __future__ import annotations

import ast

import pytest

from gorilla_tui.fill.biases import CHAIN_BIAS, NEAR_BIAS
from gorilla_tui.fill.call_grammar import TaskValues
from gorilla_tui.fill.chains import factory_receiver, implied, links, onward, result_methods
from gorilla_tui.fill.filler import fill, target_of
from gorilla_tui.fill.receivers import Receiver
from gorilla_tui.fill.render import render_target
from gorilla_tui.fill.sql import statements
from gorilla_tui.fill.values import strings
from gorilla_tui.pool.file_objects import file_params
from gorilla_tui.pool.params import params_of
from gorilla_tui.pool.typeshed import factories, file_parameters, returned
from gorilla_tui.types import ARGUMENT_ORIGINS


def test_the_stubs_name_the_class_a_function_returns():
    assert returned("sqlite3.connect")[0] == "sqlite3.Connection"  # the overload without factory=
    assert "io.TextIOWrapper" in returned("open")  # the builtin, text mode (the first overload)
    assert returned("logging.getLogger") == ("logging.Logger",)
    assert returned("os.getcwd") == ()  # a str is a value, no object to go on with
    assert returned("json.loads") == ()  # Any
    assert returned("no_such_module.f") == ()
    assert "sqlite3.connect" in factories("sqlite3.Connection")
    assert factories("logging.Logger") == ("logging.getLogger",)


@pytest.mark.parametrize(
    ("task", "sql"),
    [
        ("open notes.db and run SELECT * FROM notes", ["SELECT * FROM notes"]),
        ("run SELECT * FROM users on shop.db", ["SELECT * FROM users"]),
        ("run SELECT COUNT(*) FROM orders.", ["SELECT COUNT(*) FROM orders"]),
        ("UPDATE t SET a = 'x y' WHERE id = 3 then commit", ["UPDATE t SET a = 'x y' WHERE id = 3"]),
        ("DROP the table and select everything", []),  # one keyword in capitals: words
    ],
)
def test_sql_written_without_quotes_is_one_statement(task, sql):
    assert [task[s:e] for s, e in statements(task)] == sql


@pytest.mark.parametrize(
    ("task", "atoms"),
    [
        ("open notes.db and run SELECT * FROM notes", ["'notes.db'", "'SELECT * FROM notes'"]),
        ('run "SELECT * FROM items" on a.db', ["'SELECT * FROM items'", "'a.db'"]),  # the quotes' text
        ("unzip archive.zip into the folder out", ["'archive.zip'", "'out'"]),
        ("make a symlink called latest that points to releases/v2.1", ["'latest'", "'releases/v2.1'"]),
        ("copy the file contents to b.txt", ["'b.txt'"]),  # "the file contents" names no file
        ("move a.txt to the folder archive and then delete b", ["'a.txt'", "'archive'"]),
    ],
)
def test_values_written_as_one(task, atoms):
    assert [c.text for c in strings(task) if c.atomic] == atoms


def test_a_connections_methods_follow_its_call_with_the_value_left(docs, methods):
    task = "open notes.db and run SELECT * FROM notes"
    values, receivers = TaskValues.of(task), {}
    first = target_of(docs["sqlite3.connect"], values, docs.get, receivers)
    assert result_methods("sqlite3.connect", methods)[0] == "sqlite3.Connection"
    chain = links(first, values, methods, receivers)
    execute = next(t for t in chain if t.callee == "sqlite3.connect().execute")
    assert [s.param.name for s in execute.offered] == ["sql"]
    made = Receiver("sqlite3.connect", "execute", tuple(first.params))
    assert receivers["sqlite3.connect().execute"] == made
    used = [(task.index("notes.db"), task.index("notes.db") + len("notes.db"))]  # the connect call took it
    ways = {t.callee.rsplit(".", 1)[1]: (t, b) for t, b in onward(chain, used, task)}
    assert ways["execute"][1] == CHAIN_BIAS + NEAR_BIAS  # sql: named for the statement left
    assert list(ways["execute"][0].offered[0].values) == ["'SELECT * FROM notes'"]  # not notes.db again
    assert "create_function" not in ways  # three required parameters, one value left
    assert onward(chain, [*used, (task.index("SELECT"), len(task))], task) == []  # nothing left


def test_a_method_of_a_class_made_by_a_function_is_received_from_it(docs):
    taken = {p.name for p in params_of(docs["sqlite3.Connection.execute"])}
    made = factory_receiver("sqlite3.Connection", "execute", docs["sqlite3.Connection"], docs.get, taken)
    assert made is not None and made.callee == "sqlite3.connect"
    assert made.params[0].name == "database" and made.call_callee == "sqlite3.connect().execute"
    # a class whose constructor has parameters keeps it: logging.Logger(name)
    assert factory_receiver("logging.Logger", "warning", docs["logging.Logger"], docs.get, {"msg"}) is None


def test_a_method_that_writes_opens_the_file_for_writing(docs):
    opened = Receiver("open", "write", tuple(params_of(docs["open"])))
    given = {"file": ("'a.txt'", "task"), "text": ("'hi'", "task")}
    assert implied(opened, opened.params, given)["mode"] == ("'w'", "method")
    assert "method" in ARGUMENT_ORIGINS  # the TUI and `ask` show where such a value came from
    gz = Receiver("gzip.open", "write", tuple(params_of(docs["gzip.open"])))
    assert implied(gz, gz.params, given)["mode"] == ("'wb'", "method")  # its default mode is 'rb'
    assert implied(Receiver("open", "read", opened.params), opened.params, given) == given
    assert implied(opened, opened.params, {**given, "mode": ("'a'", "task")})["mode"] == ("'a'", "task")


@pytest.mark.model
@pytest.mark.parametrize(
    ("task", "name", "call"),
    [
        ("open notes.db and run SELECT * FROM notes", "sqlite3.connect",
         "sqlite3.connect('notes.db').execute('SELECT * FROM notes')"),
        ('open the database inventory.db and run "SELECT * FROM items"', "sqlite3.connect",
         "sqlite3.connect('inventory.db').execute('SELECT * FROM items')"),
        ("open notes.db and run SELECT * FROM notes", "sqlite3.Connection.execute",
         "sqlite3.connect('notes.db').execute('SELECT * FROM notes')"),
        ("write the text 'done' into status.txt", "open", "open('status.txt', 'w').write('done')"),
        ("open notes.db", "sqlite3.connect", "sqlite3.connect('notes.db')"),  # no value left: one call
        ("read the file notes.txt", "open", "open('notes.txt')"),
        ("make a symlink called latest that points to releases/v2.1", "pathlib.Path.symlink_to",
         "pathlib.Path('latest').symlink_to('releases/v2.1')"),
        ("save the word 'ready' to a file flag.txt", "pathlib.Path.write_text",
         "pathlib.Path('flag.txt').write_text('ready')"),
        ("unzip archive.zip into the folder out", "zipfile.ZipFile.extractall",
         "zipfile.ZipFile('archive.zip').extractall('out')"),
        ("list the files in /var/log", "pathlib.Path.iterdir", "pathlib.Path('/var/log').iterdir()"),
    ],
)  # fmt: skip
def test_the_model_goes_on_with_the_results_method(gemma_backend, docs, methods, validator, task, name, call):
    doc = docs[name] if name in docs else next(d for ds in map(methods, [name.rpartition(".")[0]])
                                               for d in ds if d.api_name == name)  # fmt: skip
    filled = fill(gemma_backend, task, doc, constructors=docs.get, methods=methods)
    assert filled.call == call
    ast.parse(filled.call)
    assert validator.check(filled.call).kind == "valid"
    assert all(a.origin in ("task", "method") for a in filled.arguments)


@pytest.mark.parametrize(
    ("function", "files"),
    [
        ("pickle.load", ((0, "file", "rb"),)),  # _ReadableFileobj: its read() returns bytes
        ("pickle.dump", ((1, "file", "wb"),)),
        ("json.load", ((0, "fp", "r"),)),  # SupportsRead[str | bytes]: text will do
        ("shutil.copyfileobj", ((0, "fsrc", "r"), (1, "fdst", "w"))),
        ("gzip.open", ()),  # StrOrBytesPath | _ReadableFileobj: a path will do
        ("bz2.open", ()),  # a file in its first overloads, StrOrBytesPath in its last: a path will do
        ("csv.reader", ((0, "iterable", "r"),)),  # Iterable[str] beside a csv dialect: a file's lines
        ("csv.DictReader", ((0, "f", "r"),)),  # a class: its __init__, self left out
        ("shlex.join", ()),  # Iterable[str], no file: a str will do
        ("pprint.pprint", ((1, "stream", ""),)),  # IO[str]: no direction in the stub
        ("os.listdir", ()),
    ],
)
def test_the_stubs_say_which_parameters_take_a_file_object(function, files):
    assert file_parameters(function) == files


def test_a_file_object_the_description_does_not_mention_is_opened_as_the_stub_types_it(docs):
    """pickle.load's description ("Read and return an object from the pickle data stored in a file.") names
    no file object: its stub does (``file: _ReadableFileobj``)."""
    assert file_params(docs["pickle.load"]) == {"file": "rb"}
    task = TaskValues.of("load the object saved in model.pkl")
    call, _args, _calls = render_target(
        target_of(docs["pickle.load"], task), {"file": ("'model.pkl'", "task")}
    )
    assert call == "pickle.load(open('model.pkl', 'rb'))"
    assert file_params(docs["json.load"]) == {"fp": "r"}  # the description's own rule first
