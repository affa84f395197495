"""Values a standard-library parameter takes in another form than the task writes them (fill/derived.py), and
the task's names read as values (fill/values.py: an environment variable in capitals, a command line): one
class of fault each from the lead's tries, on the running Python's standard library as python-env reads it,
typeshed's stubs and the real tiny model writing the calls."""

from __future__ import annotations

import pytest

from gorilla_tui.fill.call_grammar import TaskValues
from gorilla_tui.fill.derived import characters
from gorilla_tui.fill.filler import fill, target_of
from gorilla_tui.fill.placing import marked_values, placed
from gorilla_tui.fill.values import strings
from gorilla_tui.pool.stub_cache import takes_bytes, takes_command


def _atomic(task: str) -> list[object]:
    return [c.value for c in strings(task) if c.atomic]


def test_an_environment_variable_in_capitals_is_a_value():
    assert _atomic("read the environment variable HOME") == ["HOME"]
    assert _atomic("print the env var PATH") == ["PATH"]
    assert _atomic("show $SHELL") == ["SHELL"]
    assert _atomic("get the HOME env variable") == ["HOME"]  # before its noun (a tester's blind task)
    assert _atomic("print the PATH environment variable") == ["PATH"]
    assert _atomic("read the HOME page") == []  # capitals alone name no variable


def test_a_command_line_after_the_word_command_is_one_value():
    assert _atomic("run the command ls -la and capture its output") == ["ls -la"]
    assert _atomic("run the command ls -la /tmp.") == ["ls -la /tmp"]  # the path is the command's
    assert _atomic("parse the command line arguments") == []
    assert _atomic("write a command to list files") == []


def test_the_stubs_say_which_parameters_take_bytes_or_a_command():
    assert takes_bytes("base64.b64encode", "s") and takes_bytes("hashlib.sha256", "string")
    assert not takes_bytes("re.sub", "pattern") and not takes_bytes("no_such.f", "x")
    assert takes_command("subprocess.check_output", "args") and takes_command("subprocess.run", "args")
    assert not takes_command("os.system", "command")  # a shell's one string


def test_characters_named_in_words():
    assert [c.value for c in characters("replace every tab with four spaces")] == ["\t", "    "]
    assert [c.value for c in characters("join the strings in the list parts with commas")] == [","]
    assert [c.value for c in characters("split it on 2 newlines")] == ["\n\n"]
    assert [c.value for c in characters("free disk space in spaceship")] == [" "]  # "spaceship" is no space
    assert characters("a tab-separated file") == []  # part of a word


def test_a_strptime_format_follows_from_an_iso_date_only(docs):
    strptime = docs["datetime.datetime.strptime"]
    target = target_of(strptime, TaskValues.of("parse 2026-12-06 14:30 into a date"))
    formats = {s.param.name: list(s.values) for s in target.offered}["format"]
    assert formats == ["'%Y-%m-%d %H:%M'"]
    target = target_of(strptime, TaskValues.of("parse 06/12/2026 into a date"))
    assert all("%" not in k for s in target.offered for k in s.values)  # day or month first: not derived


@pytest.mark.parametrize(
    ("task", "name", "call"),
    [
        ("read the environment variable HOME", "os.getenv", "os.getenv('HOME')"),
        ("get the HOME env variable", "os.getenv", "os.getenv('HOME')"),
        ("read the env variable `HOME`", "os.getenv", "os.getenv('HOME')"),
        ("encode the string hello as base64", "base64.b64encode", "base64.b64encode(b'hello')"),
        ("run the command ls -la and capture its output", "subprocess.check_output",
         "subprocess.check_output(['ls', '-la'])"),
        ("run `git status` in /srv/repo and capture what it prints", "subprocess.check_output",
         "subprocess.check_output(['git', 'status'], cwd='/srv/repo')"),
        ("join the strings in the list parts with commas", "str.join", "','.join(parts)"),
        ("split the string line on commas", "str.split", "str(line).split(',')"),
        # the text is no pattern (break-it round 21, R21-4: re.split(row, ';'))
        ("split the string row on semicolons", "re.split", "re.split(';', row)"),
        ("parse the date string 2026-12-06 into a date", "datetime.datetime.strptime",
         "datetime.datetime.strptime('2026-12-06', '%Y-%m-%d')"),
        ("replace every tab with four spaces in the string line", "re.sub", "re.sub('\\t', '    ', line)"),
        ("replace every tab with four spaces in the string line", "str.replace",
         "str(line).replace('\\t', '    ')"),
        ("remove duplicates from the list emails", "set", "set(emails)"),
        ("sort the list names alphabetically", "sorted", "sorted(names)"),
        ("sort the list names alphabetically ignoring case", "sorted", "sorted(names, key=str.lower)"),
    ],
)  # fmt: skip
def test_the_model_fills_values_in_the_form_the_parameter_takes(gemma_backend, docs, methods, validator, task,
                                                                name, call):  # fmt: skip
    filled = fill(gemma_backend, task, docs[name], constructors=docs.get, methods=methods)
    assert filled is not None
    assert filled.call == call
    assert validator.check(filled.call).kind == "valid"


def test_a_number_inside_quoted_text_is_part_of_that_value(docs):
    """The choice counts the values a hit's call can take (fill/placing.py): a date written in quotes is one
    string, not five numbers fromtimestamp's timestamp could take (dev lit-strptime went to fromtimestamp)."""
    values = TaskValues.of("turn '05/01/2024 10:30' into a datetime")
    assert [c.value for c in marked_values(values)] == ["05/01/2024 10:30"]
    assert placed(docs["datetime.datetime.strptime"], values) == 1
    assert [c.value for c in marked_values(TaskValues.of("repeat 'abc' 3 times"))] == [3, "abc"]


@pytest.mark.parametrize(
    "command", ["cat /etc/hosts | grep localhost", "ls && pwd", "grep TODO *.py > todo.txt", "echo $HOME"]
)
def test_a_command_line_that_needs_a_shell_is_not_split(gemma_backend, docs, methods, command):
    """Break-it round 21, R21-4: split into argv, a pipe, a list, a redirection or a variable became
    arguments of the first program (``['cat', '/etc/hosts', '|', 'grep', 'localhost']``); only a shell reads
    them, so no argv is derived: the call keeps its placeholder."""
    task = f"run the command {command} and capture its output"
    doc = docs["subprocess.check_output"]
    filled = fill(gemma_backend, task, doc, constructors=docs.get, methods=methods)
    assert filled is not None
    assert "[" not in filled.call, filled.call
