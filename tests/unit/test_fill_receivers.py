"""A method's receiver filled from the task (fill/receivers.py), and paths in the order the task's words give
(fill/roles.py): the slots, the rendered call, and the real tiny model writing them."""

from __future__ import annotations

import ast

import pytest

from gorilla_tui.fill.call_grammar import Slot, TaskValues
from gorilla_tui.fill.filler import fill, target_of
from gorilla_tui.fill.receivers import Receiver, receiver_call, receiver_of, receiver_params
from gorilla_tui.fill.render import render_target
from gorilla_tui.fill.roles import (
    CONTAINER,
    ORDER_EXTRA,
    ROLE_BIAS,
    container_starts,
    form_bias,
    param_role,
    role_bias,
    value_role,
    word_bias,
)
from gorilla_tui.pool.apidoc import ApiDoc
from gorilla_tui.pool.params import Param, params_of


def _doc(name: str, call: str, arguments: dict[str, str]) -> ApiDoc:
    """A python-env doc as pool/pyenv/names.py writes it (api_arguments: name -> default or "required")."""
    return ApiDoc(id=f"python-env:{name}", source="python-env", api_call=call, api_name=name,
                  api_arguments=arguments)  # fmt: skip


# the standard library's docs as the default index holds them (Python 3.11)
PATH = _doc("pathlib.Path", "pathlib.Path()", {"*args": "optional", "**kwargs": "optional"})
ITERDIR = _doc("pathlib.Path.iterdir", "pathlib.Path().iterdir()", {"/": ""})
ZIPFILE = _doc(
    "zipfile.ZipFile", "zipfile.ZipFile(file)", {"file": "required", "mode": '"r"', "allowZip64": "True"}
)
EXTRACTALL = _doc("zipfile.ZipFile.extractall", "zipfile.ZipFile(file).extractall()",
                  {"path": "None", "members": "None", "pwd": "None"})  # fmt: skip
COPY = _doc("shutil.copy", "shutil.copy(src, dst)",
            {"src": "required", "dst": "required", "*": "", "follow_symlinks": "True"})  # fmt: skip
REPLACE = _doc(
    "os.replace",
    "os.replace(src, dst)",
    {"src": "required", "dst": "required", "*": "", "src_dir_fd": "None"},
)
TARFILE = _doc("tarfile.TarFile", "tarfile.TarFile()", {"name": "None", "mode": '"r"', "fileobj": "None"})
TAR_EXTRACTALL = _doc("tarfile.TarFile.extractall", "tarfile.TarFile().extractall()",
                      {"path": '"."', "members": "None", "*": "", "numeric_owner": "False"})  # fmt: skip
WRITE_TEXT = _doc("pathlib.Path.write_text", "pathlib.Path().write_text(data)",
                  {"data": "required", "encoding": "None", "errors": "None"})  # fmt: skip
FULLMATCH = _doc("re.fullmatch", "re.fullmatch(pattern, string)",
                 {"pattern": "required", "string": "required", "flags": "0"})  # fmt: skip
CLASSES = {d.api_name: d for d in (PATH, ZIPFILE, TARFILE)}.get


def test_receiver_call_reads_the_class_and_method_of_a_method_call():
    assert receiver_call(EXTRACTALL) == ("zipfile.ZipFile", "extractall", ["file"])
    assert receiver_call(ITERDIR) == ("pathlib.Path", "iterdir", [])
    assert receiver_call(COPY) is None  # a function
    assert receiver_call(_doc("pathlib.Path.cwd", "pathlib.Path.cwd()", {})) is None  # a class method


def test_a_leading_star_args_is_one_optional_positional_parameter():
    params = receiver_params(PATH, [])
    assert [(p.name, p.kind, p.required) for p in params] == [("args", "posonly", False)]
    assert receiver_of(ITERDIR, [], CLASSES) == Receiver("pathlib.Path", "iterdir", tuple(params), "args")


def test_without_the_class_doc_the_templates_arguments_are_required():
    receiver = receiver_of(EXTRACTALL, params_of(EXTRACTALL), None)
    assert [(p.name, p.required, p.kind) for p in receiver.params] == [("file", True, "positional")]
    # a constructor parameter named like one of the method's is left out (one name, one slot)
    assert receiver_of(EXTRACTALL, [Param("file")], CLASSES).params[0].name == "mode"


def test_the_receiver_takes_a_path_the_task_writes_and_renders_inside_its_parentheses():
    receivers: dict[str, Receiver] = {}
    target = target_of(ITERDIR, TaskValues.of("list the files in /var/log"), CLASSES, receivers)
    assert target.callee == "pathlib.Path().iterdir"
    assert [(s.param.name, list(s.values)) for s in target.offered] == [("args", ["'/var/log'"])]
    call, arguments, calls = render_target(target, {"args": ("'/var/log'", "task")}, receivers[target.callee])
    assert call == "pathlib.Path('/var/log').iterdir()"
    assert [(a.name, a.value, a.origin) for a in arguments] == [("args", "'/var/log'", "task")]
    assert calls == [{"pathlib.Path().iterdir": {}}, {"pathlib.Path": {"args": "/var/log"}}]
    # no path in the task: nothing offered, Path() is the current folder
    assert target_of(ITERDIR, TaskValues.of("list the files here"), CLASSES, {}).offered == []


def test_a_receivers_missing_value_stays_a_named_placeholder():
    receivers: dict[str, Receiver] = {}
    target = target_of(EXTRACTALL, TaskValues.of("extract the archive into out/"), CLASSES, receivers)
    assert [s.param.name for s in target.offered] == ["file", "path"]
    given = {"file": ("file", "missing"), "path": ("'out/'", "task")}
    call, arguments, _calls = render_target(target, given, receivers[target.callee])
    assert call == "zipfile.ZipFile(file).extractall('out/')"
    assert [a.name for a in arguments if a.origin == "missing"] == ["file"]


def test_value_roles_follow_the_tasks_words():
    task = "copy src to backup/src"
    src, dst = (c for c in TaskValues.of(task).strings if c.value in ("src", "backup/src"))
    assert (value_role(src, task), value_role(dst, task)) == ("source", "dest")
    task = "copy to the folder backup/ the file notes.txt"
    values = {c.value: c for c in TaskValues.of(task).strings}
    assert (value_role(values["backup/"], task), value_role(values["notes.txt"], task)) == ("dest", "")
    params = params_of(COPY)
    assert [param_role(p) for p in params] == ["source", "dest", ""]
    assert role_bias(params[0], values["backup/"], task) == -ROLE_BIAS
    assert role_bias(params[1], values["backup/"], task) == ROLE_BIAS
    assert role_bias(Param("dst", kind="keyword"), values["backup/"], task) == 0.0  # tools keep their biases


def test_word_bias_keeps_the_tasks_order_for_positional_paths():
    task = "extract data.bin into out/"  # no .zip: by_file_type leaves every path to the receiver
    target = target_of(EXTRACTALL, TaskValues.of(task), CLASSES, {})
    values = target.offered[0].values
    options = [(0, text, "task") for text in values]
    where = {(0, text): c for text, c in values.items()}
    assert dict(zip(values, word_bias(target.offered, options, where, task), strict=True)) == {
        "'data.bin'": 0.0,
        "'out/'": -3.0,
    }


def test_a_receiver_is_the_source_where_its_method_writes_to_a_path_of_its_own():
    task = "extract backup.tgz to /opt/app"  # .tgz names no module: the words' roles place the paths
    target = target_of(TAR_EXTRACTALL, TaskValues.of(task), CLASSES, {})
    assert [(s.param.name, s.role) for s in target.offered] == [
        ("name", "source"),
        ("fileobj", ""),
        ("path", ""),
    ]
    values = target.offered[0].values
    options = [(0, "'backup.tgz'", "task"), (0, "'/opt/app'", "task")]
    where = {(0, v): values[v] for _k, v, _o in options}
    assert word_bias(target.offered, options, where, task) == [ROLE_BIAS, -ROLE_BIAS - ORDER_EXTRA]
    # a method that writes no path of its own (the receiver is written): no source or destination from the
    # call; the receiver is what the call acts on (roles.CONTAINER), and no word here names a container
    task = "write 'hello' to notes.txt"
    target = target_of(WRITE_TEXT, TaskValues.of(task), CLASSES, {})
    assert [(s.param.name, s.role) for s in target.offered] == [("args", CONTAINER), ("data", "")]
    assert container_starts(task) == frozenset()


def test_a_value_only_a_regular_expression_writes_goes_to_the_pattern():
    task = "check if 'hello123' matches the regex '^[a-z]+\\d+$'"
    target = target_of(FULLMATCH, TaskValues.of(task), CLASSES, {})
    pattern, string = target.offered[0].values, target.offered[1].values
    regex = "'^[a-z]+\\\\d+$'"
    assert form_bias(target.offered, 0, pattern[regex]) == ROLE_BIAS
    assert form_bias(target.offered, 1, string[regex]) == -ROLE_BIAS
    assert form_bias(target.offered, 1, string["'hello123'"]) == 0.0  # plain text: the words decide
    # and they do: what "matches" follows is what is looked in (roles.container_starts), string's alone
    assert "'hello123'" not in pattern
    assert form_bias([Slot(Param("s", kind="positional"))], 0, pattern[regex]) == 0.0  # no pattern offered


@pytest.mark.model
@pytest.mark.parametrize(
    ("task", "doc", "call"),
    [
        (
            "check if 'hello123' matches the regex '^[a-z]+\\d+$'",
            FULLMATCH,
            "re.fullmatch('^[a-z]+\\\\d+$', 'hello123')",
        ),  # fmt: skip
        ("list the files in /var/log", ITERDIR, "pathlib.Path('/var/log').iterdir()"),
        (
            "extract backup.tar.gz to /opt/app",
            TAR_EXTRACTALL,
            "tarfile.TarFile('backup.tar.gz').extractall('/opt/app')",
        ),  # fmt: skip
        (
            "extract the zip file data.zip into out/",
            EXTRACTALL,
            "zipfile.ZipFile('data.zip').extractall('out/')",
        ),
        ("copy src to backup/src", COPY, "shutil.copy('src', 'backup/src')"),
        ("copy to backup/ the file notes.txt", COPY, "shutil.copy('notes.txt', 'backup/')"),
        ("rename a.txt to b.txt", REPLACE, "os.replace('a.txt', 'b.txt')"),
    ],
)
def test_the_model_fills_receivers_and_keeps_paths_where_the_words_put_them(gemma_backend, task, doc, call):
    filled = fill(gemma_backend, task, doc, constructors=CLASSES)
    assert filled is not None
    assert filled.call == call
    ast.parse(filled.call)


@pytest.mark.model
def test_the_model_leaves_a_receiver_placeholder_the_task_gives_no_value_for(gemma_backend):
    namelist = _doc("zipfile.ZipFile.namelist", "zipfile.ZipFile(file).namelist()", {"/": ""})
    filled = fill(gemma_backend, "open the zip archive and list its members", namelist, constructors=CLASSES)
    assert filled.call == "zipfile.ZipFile(file).namelist()"
    assert [(a.name, a.origin) for a in filled.arguments] == [("file", "missing")]


ZIP_WRITE = _doc("zipfile.ZipFile.write", "zipfile.ZipFile(file).write(filename)",
                 {"filename": "required", "arcname": "None", "compress_type": "None"})  # fmt: skip


def test_the_receivers_path_takes_the_file_of_its_own_type():
    """ "put report.pdf and data.csv into a new archive bundle.zip" gave ZipFile('report.pdf').write(...):
    the task's order. The receiver's path is offered only the path whose file type names its module."""
    task = TaskValues.of("put report.pdf and data.csv into a new archive bundle.zip")
    target = target_of(ZIP_WRITE, task, CLASSES)
    offered = {s.param.name: list(s.values) for s in target.offered}
    assert offered["file"] == ["'bundle.zip'"]
    assert set(offered["filename"]) == {"'report.pdf'", "'data.csv'", "'bundle.zip'"}
    plain = target_of(ZIP_WRITE, TaskValues.of("add report.pdf and notes.txt to it"), CLASSES)
    assert set(next(s for s in plain.offered if s.param.name == "file").values) == {
        "'report.pdf'",
        "'notes.txt'",
    }
    # so too where the method writes out of its receiver (extract X to Y): the model had put the folder
    # there ("unzip archive.zip into the folder out": ZipFile('out')); a path of no such type: every path
    tar = target_of(TAR_EXTRACTALL, TaskValues.of("extract backup.tar.gz to /opt/app"), CLASSES)
    assert set(tar.offered[0].values) == {"'backup.tar.gz'"}
    tgz = target_of(TAR_EXTRACTALL, TaskValues.of("extract backup.tgz to /opt/app"), CLASSES)
    assert set(tgz.offered[0].values) == {"'backup.tgz'", "'/opt/app'"}
