"""Filling everyday standard-library calls (issue 37): the reading rules found by hand trials of everyday
tasks with values on the default index ("list the files in /etc", "join /home/ann and notes.md", ...)."""

from __future__ import annotations

from gorilla_tui.fill.call_grammar import TaskValues, with_varargs
from gorilla_tui.fill.filler import target_of
from gorilla_tui.fill.render import render
from gorilla_tui.fill.values import lists, numbers, strings
from gorilla_tui.pool.doc import ApiDoc
from gorilla_tui.pool.params import Param, params_of


def _doc(name: str, arguments: dict[str, str], call: str = "") -> ApiDoc:
    return ApiDoc(id=f"python-env:{name}", source="python-env", api_call=call or f"{name}()", api_name=name,
                  api_arguments=arguments)  # fmt: skip


def _offered(doc: ApiDoc, task: str) -> dict[str, list[str]]:
    target = target_of(doc, TaskValues.of(task))
    return {} if target is None else {s.param.name: list(s.values) for s in target.offered}


def test_values_written_as_one_a_root_folder_an_ip_address_a_version_a_dict() -> None:
    atomic = {c.value for c in strings("list the files in /etc, not /var/log") if c.atomic}
    assert {"/etc", "/var/log"} <= atomic
    # an IP address or a version is one string, never the number 93.184 (socket.gethostbyname(93.184))
    assert {c.value for c in strings("the hostname of 93.184.216.34") if c.atomic} == {"93.184.216.34"}
    assert numbers("check 8.8.8.8 on port 53")[0].value == 53 and len(numbers("python 3.11.2")) == 0
    assert [c.value for c in numbers("at 37.7749 and -122.4194")] == [37.7749, -122.4194]  # still numbers
    # a dict the task writes is one value (json.dump(1, 'out.json') took the 1 inside it); no placeholder
    task = 'save {"a": 1} as json to out.json'
    assert [c.value for c in lists(task) if c.kind == "dict"] == [{"a": 1}] and numbers(task) == []
    assert lists("format {name} please") == []
    dump = _doc("json.dump", {"obj": "required", "fp": "required"}, "json.dump(obj, fp)")
    offered = _offered(dump, task)  # out.json goes to fp alone, opened (fill/file_objects.py)
    # the dict, not also the string of its text (json.dumps(indent="{...}") was proposed), unless quoted
    assert set(offered["obj"]) == {"{'a': 1}"} and offered["fp"] == ["'out.json'"]


def test_what_a_function_acts_on_and_flags_and_parameters_named_for_no_path() -> None:
    sha = _doc("hashlib.sha256", {"string": "b''", "*": "", "usedforsecurity": "True"})
    # an optional parameter the task never names by name: offered when nothing else is (the data to hash)
    assert _offered(sha, "compute the sha256 of 'hello world'") == {"string": ["b'hello world'"]}
    # a file's name is not its content: the file is read (break-it round 26, R26-2)
    assert _offered(sha, "compute the sha256 of installer.iso") == {
        "string": ["open('installer.iso', 'rb').read()"]
    }
    connect = _doc("sqlite3.connect", {"database": "required", "timeout": "5.0", "uri": "False"})
    # a file the task names does not set the flag uri (its name reads like a path parameter's)
    assert _offered(connect, "open the database inventory.db") == {"database": ["'inventory.db'"]}
    gzip_open = _doc(
        "gzip.open", {"filename": "required", "mode": "'rb'", "compresslevel": "_COMPRESS_LEVEL_BEST"}
    )
    offered = _offered(gzip_open, "compress data.txt with gzip into data.txt.gz")
    assert "compresslevel" not in offered  # spoken of ("compress"), but a file is no level
    assert offered["filename"] == ["'data.txt'", "'data.txt.gz'"]
    # a path parameter takes the path, not the text the task quotes beside it
    opened = _doc("open", {"file": "required", "mode": "'r'"}, "open(file)")
    assert _offered(opened, "write 'done' to status.txt") == {"file": ["'status.txt'"]}
    assert _offered(opened, "open 'my notes' now") == {"file": ["'my notes'"]}  # no path: the quoted text


def test_star_args_take_the_values_the_task_marks_by_position() -> None:
    join = _doc("os.path.join", {"a": "required", "*p": "optional"}, "os.path.join(a)")
    offered = _offered(join, "join /home/ann and notes.md")
    # an absolute path is the first part alone (a later one drops the parts before it: break-it round 32)
    assert offered == {"a": ["'/home/ann'"], "p": ["'notes.md'"]}
    both = ["'ann/docs'", "'notes.md'"]  # relative parts: the model orders them
    assert _offered(join, "join ann/docs and notes.md") == {"a": both, "p": both}
    params = params_of(join)
    call, args = render("os.path.join", params, {"a": ("'/home/ann'", "task"), "p": ("['notes.md']", "task")})
    assert call == "os.path.join('/home/ann', 'notes.md')"
    # one item is listed as the call holds it (fill/render.py: popenargs=[['ls', '-la']] was shown)
    assert [(a.name, a.value) for a in args] == [("a", "'/home/ann'"), ("p", "'notes.md'")]
    # after a gap its items would bind to the parameter left out: not written
    assert render("os.path.join", params, {"p": ("['x']", "task")})[0] == "os.path.join()"
    show = _doc("print", {"*args": "optional", "sep": "' '", "end": "'\\n'"})
    assert _offered(show, "print 'hello' to the screen") == {"args": ["'hello'"]}
    assert _offered(show, "print a blank line") == {}  # nothing marked: nothing offered
    # an optional positional parameter before *args: its items would bind there
    opt = [Param("x", has_default=True, default=0, kind="positional"), Param("rest", kind="var")]
    assert with_varargs(opt, [], TaskValues.of("use 'a' and 'b'")) == []


def test_a_methods_receiver_takes_the_path_not_the_subject_rule() -> None:
    """ "read the first 100 bytes of image.png" gave ``pathlib.Path(100).read_bytes()``: the rule for what a
    function acts on (with_subject) offered the receiver's ``*args`` a number before the receiver's own rule
    (fill/receivers.py with_spread: the task's path) could; it applies to functions, not receivers."""
    path = _doc("pathlib.Path", {"*args": "optional", "**kwargs": "optional"}, "pathlib.Path()")
    read = _doc("pathlib.Path.read_bytes", {"/": ""}, "pathlib.Path().read_bytes()")
    target = target_of(
        read, TaskValues.of("read the first 100 bytes of image.png"), {"pathlib.Path": path}.get
    )
    assert target is not None and {s.param.name: list(s.values) for s in target.offered} == {
        "args": ["'image.png'"]
    }
