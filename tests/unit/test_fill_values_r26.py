"""Break-it round 26 in filling, one group per class fixed (the standard library's python-env pool, its
type stubs through typeshed, and the real tiny model):

- R26-1: a value of the wrong kind filled a typed parameter and the verdict said valid: a string as
  ``EmailMessage``'s policy (a class), ``threading.Thread``'s group (None) or ``setblocking``'s flag (a
  bool), a number as ``fromisoformat``'s date_string, a UTC offset as strptime's format. A class's
  constructor, a method a class inherits and a parameter the stub names otherwise had no stub facts, a
  receiver's and a chained method's parameters were never held to them, and a class-typed parameter
  admitted anything.
- R26-2: a file the task names filled a bytes parameter as the bytes of its name
  (``hashlib.sha256(b'/etc/passwd')``).
- R26-3: a path was cut at white space and the rest dropped in silence.
"""

from __future__ import annotations

import pytest

from gorilla_tui.fill.call_grammar import TaskValues
from gorilla_tui.fill.chains import links
from gorilla_tui.fill.filler import fill, target_of
from gorilla_tui.fill.unused import left_out
from gorilla_tui.pool.stub_cache import admits, kinds
from gorilla_tui.textsafe import clean_task


def _offered(docs, methods, name: str, task: str) -> dict[str, list[str]]:
    """Parameter -> the values filling offers it for `task`, the first call's and its chained methods'."""
    values, receivers = TaskValues.of(task), {}
    first = target_of(docs[name], values, docs.get, receivers)
    out = {s.param.name: list(s.values) for s in first.offered}
    for link in links(first, values, methods, receivers):
        out |= {f"{link.callee}:{s.param.name}": list(s.values) for s in link.offered}
    return out


def test_the_stubs_type_constructors_inherited_methods_and_parameters_by_place() -> None:
    assert not admits("email.message.EmailMessage", "policy", "string")  # MIMEPart's __init__, a Policy
    assert not admits("threading.Thread", "group", "string")  # group: None
    assert admits("threading.Thread", "name", "string")
    assert not admits("socket.socket.setblocking", "flag", "string")  # _socket.socket's, a bool
    assert admits("socket.socket.setblocking", "flag", "boolean")
    # the running Python names it date_string, the stub string: asked of by place
    assert not admits("datetime.datetime.fromisoformat", "date_string", "number", 0)
    assert admits("datetime.datetime.fromisoformat", "date_string", "string", 0)
    assert admits("json.dump", "fp", "string")  # a Protocol (SupportsWrite): not read, admits anything
    assert kinds("socket.socket")["family"] == frozenset({"number"})  # AddressFamily is an IntEnum


@pytest.mark.parametrize(
    ("name", "task", "param"),
    [
        ("email.message.EmailMessage.set_content", 'send an email to bob@example.com with subject "hi"',
         "policy"),
        ("threading.Thread.join", "wait until 14:00 then print done", "group"),
        ("socket.create_connection", "connect to [2001:db8::1]:8080 over tcp",
         "socket.create_connection().setblocking:flag"),
        ("datetime.datetime.fromisoformat", "parse the date 99999-12-31", "date_string"),
        ("datetime.datetime.strptime", "parse the time 14:00:00+05:30 with strptime", "format"),
    ],
)  # fmt: skip
def test_no_value_of_the_wrong_kind_is_offered(docs, methods, name: str, task: str, param: str) -> None:
    offered = _offered(docs, methods, name, task)
    assert offered.get(param, []) == [], offered


def test_a_time_with_its_utc_offset_and_quotes_escaped_inside_quotes_are_one_value() -> None:
    whole = [c.value for c in TaskValues.of("parse 14:00:00+05:30 and 09:15Z").strings if c.atomic]
    assert whole == ["14:00:00+05:30", "09:15Z"]
    assert [c.value for c in TaskValues.of("from 9:00-17:00").numbers] == [9, 0, 17, 0]  # a range: two
    task = 'with subject "hi \\"there\\"" now'
    assert [c.value for c in TaskValues.of(task).strings if c.atomic] == ['hi "there"']
    assert [c.value for c in TaskValues.of('open "C:\\data\\" and "D:\\x"').strings if c.atomic] == [
        "C:\\data\\", "D:\\x"]  # fmt: skip


@pytest.mark.parametrize(
    ("task", "path"),
    [("compute sha256 of the file '/etc/passwd'", "/etc/passwd"),
     ("md5 hash of the file 'backup.tar'", "backup.tar"), ("sha256 of installer.iso", "installer.iso"),
     ("hash the file 'data' with sha256", "data")],
)  # fmt: skip
def test_a_bytes_parameter_reads_the_file_a_task_names(docs, methods, task: str, path: str) -> None:
    name = "hashlib.md5" if "md5" in task else "hashlib.sha256"
    assert _offered(docs, methods, name, task)["string"] == [f"open({path!r}, 'rb').read()"]


def test_a_bytes_parameter_still_takes_quoted_text(docs, methods) -> None:
    assert _offered(docs, methods, "hashlib.sha256", "sha256 of 'hello world'")["string"] == [
        "b'hello world'"
    ]
    assert _offered(docs, methods, "base64.b64encode", "encode 'user:secret' as base64")["s"] == [
        "b'user:secret'"]  # fmt: skip
    # a value the task calls a string or text is its bytes, whatever its shape (break-it R27-5)
    for task, value in (("sha256 of the string 'notes.txt'", "b'notes.txt'"),
                        ("md5 of the text '/etc/passwd'", "b'/etc/passwd'")):  # fmt: skip
        name = "hashlib.md5" if "md5" in task else "hashlib.sha256"
        assert _offered(docs, methods, name, task)["string"] == [value], task


@pytest.mark.parametrize("blank", ["\u00a0", "\u2007", "\u202f", "\u3000"])
def test_a_no_break_space_inside_any_path_is_part_of_it(blank: str) -> None:
    task, _ = clean_task(f"list the files in /tmp/no{blank}break")
    assert [c.value for c in TaskValues.of(task).strings if c.atomic] == [f"/tmp/no{blank}break"]


@pytest.mark.parametrize("blank", [" ", "\t", "\u2003", "\u2009", "  "])
def test_the_words_a_path_leaves_behind_at_other_white_space_are_said(blank: str) -> None:
    task, _ = clean_task(f"list the files in /tmp/a{blank}b c")
    assert [c.value for c in TaskValues.of(task).strings if c.atomic] == ["/tmp/a"]
    assert left_out(task, "pathlib.Path('/tmp/a').iterdir()") == [task[task.index("b") :]]
    home = "list the files in ~/Documents/my files"
    assert left_out(home, "pathlib.Path(os.path.expanduser('~/Documents/my')).iterdir()") == ["files"]
    # the sentence going on after a path is no part of it
    assert left_out("copy /tmp/a to /tmp/b", "shutil.copy('/tmp/a', '/tmp/b')") == []
    assert left_out("delete /tmp/x now.", "os.remove('/tmp/x')") == []
    assert left_out('list "/tmp/a" b', "os.listdir('/tmp/a')") == []  # quoted: the path ends at its quote


@pytest.mark.model
@pytest.mark.parametrize(
    ("task", "name", "wrong"),
    [
        ("wait until 14:00 then print done", "threading.Thread.join", "'14:00'"),
        ("parse the date 99999-12-31", "datetime.datetime.fromisoformat", "99999"),
        ("compute sha256 of the file '/etc/passwd'", "hashlib.sha256", "b'/etc/passwd'"),
    ],
)
def test_the_model_fills_no_value_of_the_wrong_kind(
    gemma_backend, docs, methods, validator, task, name, wrong
):
    doc = (
        docs[name]
        if name in docs
        else next(d for d in methods(name.rpartition(".")[0]) if d.api_name == name)
    )
    filled = fill(gemma_backend, task, doc, constructors=docs.get, methods=methods)
    assert wrong not in filled.call, filled.call
    assert validator.check(filled.call).kind in ("valid", "incomplete"), filled.call
