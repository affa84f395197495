"""A filled call as it is written out (fill/render.py), on the standard library's own docs
(tests/stdlib_fixtures.py): a path from the home folder is passed expanded, and a command line's
``*popenargs`` is listed as the ``args`` the person wrote. Each call is checked by the checker over the same
pool."""

from __future__ import annotations

import ast
import dataclasses
import os

from gorilla_tui.fill.call_grammar import TaskValues
from gorilla_tui.fill.filler import target_of
from gorilla_tui.fill.render import home_paths, python_code, render_target
from gorilla_tui.tui.arguments import value_spans


def _written(doc, task: str, given: dict[str, tuple[str, str]]):
    target = target_of(doc, TaskValues.of(task))
    assert target is not None
    return render_target(target, given)


def test_a_home_path_is_passed_expanded_and_the_call_still_checks(docs, validator) -> None:
    """'~/notes.txt' passed as typed: open('~/notes.txt') looks for a folder named "~" (break-it round 21,
    R21-2; closing note of session 9)."""
    call, args, _calls = _written(docs["open"], "read ~/notes.txt", {"file": ("'~/notes.txt'", "task")})
    assert call == "open(os.path.expanduser('~/notes.txt'))"
    assert [(a.name, a.value, a.origin) for a in args] == [
        ("file", "os.path.expanduser('~/notes.txt')", "task")
    ]
    assert validator.check(call).kind == "valid"
    code = python_code(docs["open"], call)
    assert code.splitlines()[0] == "import os" and ast.parse(code)
    # the path Python reads is the home folder's
    inner = ast.parse(call).body[0].value.args[0]
    assert os.path.expanduser(ast.literal_eval(inner.args[0])) == os.path.join(
        os.path.expanduser("~"), "notes.txt"
    )
    # a file-object parameter: the path inside the open() it is given
    call, _args, _calls = _written(
        docs["json.load"], "load ~/config.json", {"fp": ("'~/config.json'", "task")}
    )
    assert call == "json.load(open(os.path.expanduser('~/config.json')))"
    assert validator.check(python_code(docs["json.load"], call)).kind == "valid"


def test_what_is_no_home_path_stays_as_typed(docs) -> None:
    given = {"file": ("'notes~/x.txt'", "task"), "mode": ("'r'", "task")}
    assert home_paths(docs["open"], "open", given) == given
    assert home_paths(docs["open"], "open", {"file": ("'~/my notes.txt'", "task")}) == {
        "file": ("'~/my notes.txt'", "task")
    }  # a space: no path a task writes bare
    assert home_paths(docs["open"], "open", {"file": ("file", "missing")}) == {"file": ("file", "missing")}
    # os.path.expanduser itself takes it as typed
    expand = docs["os.path.expanduser"]
    assert home_paths(expand, "os.path.expanduser", {"path": ("'~/x'", "task")}) == {
        "path": ("'~/x'", "task")
    }
    # a tool of a function-calling source gets the value as typed
    tool = dataclasses.replace(docs["open"], source="bfcl")
    assert home_paths(tool, "open", {"file": ("'~/x'", "task")}) == {"file": ("'~/x'", "task")}
    assert home_paths(docs["open"], "open", {"file": ("'~'", "task")})["file"][0] == "os.path.expanduser('~')"


def test_a_command_line_is_listed_as_the_args_the_person_wrote(docs, validator) -> None:
    """The TUI listed subprocess.check_output(['ls', '-la']) as popenargs=[['ls', '-la']] (the stub's
    *popenargs packing; lead's try, session 8)."""
    doc = docs["subprocess.check_output"]
    call, args, calls = _written(doc, "run the command ls -la", {"popenargs": ("[['ls', '-la']]", "task")})
    assert call == "subprocess.check_output(['ls', '-la'])"
    assert [(a.name, a.value) for a in args] == [("args", "['ls', '-la']")]
    assert calls == [{"subprocess.check_output": {"args": ["ls", "-la"]}}]
    assert value_spans(call, args) == [(24, 37, "task")]  # the TUI marks the value in the call
    assert validator.check(call).kind == "valid"
    # another function's *args keeps its name; one item is shown as the call holds it
    join = docs["os.path.join"]
    call, args, _calls = _written(join, "join /home/ann and notes.md",
                                  {"a": ("'/home/ann'", "task"), "p": ("['notes.md']", "task")})  # fmt: skip
    assert call == "os.path.join('/home/ann', 'notes.md')"
    assert [(a.name, a.value) for a in args] == [("a", "'/home/ann'"), ("p", "'notes.md'")]
    assert len(value_spans(call, args)) == 2
