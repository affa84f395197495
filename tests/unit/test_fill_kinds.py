"""Which of a task's values a Python parameter takes (fill/kinds.py): the kinds its type stub admits
(pool/stub_params.py, typeshed's stubs), the keywords a ``**kwargs`` passes on, a number beside a
parameter's name, the variables a task names, glob patterns, a link's two paths; on the running Python's
standard library as python-env reads it and the real tiny model writing the calls."""

from __future__ import annotations

import ast

import pytest

from gorilla_tui.check.receivers import IN_PLACE_REASON
from gorilla_tui.fill.call_grammar import TaskValues
from gorilla_tui.fill.filler import fill, target_of
from gorilla_tui.fill.kinds import variables
from gorilla_tui.fill.placing import VALUES_MARGIN, by_values, marked_values, placed
from gorilla_tui.fill.spoken import mentioned
from gorilla_tui.pool.params import Param
from gorilla_tui.pool.stub_cache import admits, forwarded, kinds, typed
from gorilla_tui.types import ARGUMENT_ORIGINS


def _literals(call: str) -> list[object]:
    out = []
    for node in ast.walk(ast.parse(call)):
        if isinstance(node, ast.Call):
            for a in [*node.args, *(k.value for k in node.keywords)]:
                if isinstance(a, ast.Constant):
                    out.append(a.value)
    return out


def test_the_stubs_say_what_kind_of_value_a_parameter_takes():
    assert not admits("re.sub", "pattern", "number")  # str | Pattern[str]
    assert not admits("re.sub", "repl", "number")  # str | Callable[...]
    assert admits("re.sub", "count", "number")
    assert not admits("turtle.bgpic", "picname", "number")  # None in one overload, str in the other
    assert not admits("time.sleep", "seconds", "string")
    assert admits("os.open", "path", "string")
    assert admits("statistics.mean", "data", "array")
    assert admits("sorted", "iterable", "object")  # a builtin; a dict is iterable
    assert kinds("pathlib.Path.symlink_to")["target"] == frozenset({"string"})  # a method
    assert admits("no_such_module.f", "x", "number")  # no stub: anything
    assert kinds("no_such_module.f") == {}


def test_the_keywords_check_output_passes_on_come_from_its_stub():
    names = dict(forwarded("subprocess.check_output"))
    assert names["cwd"] == "string" and names["shell"] == "boolean" and names["timeout"] == "number"
    assert "args" not in names  # *popenargs: no default, the signature has it


def test_a_task_names_its_variables_after_their_type():
    assert [c.text for c in variables("compute the average of the list scores")] == ["scores"]
    assert [c.text for c in variables("sort dict `scores` by value")] == ["scores"]
    assert [c.text for c in variables("pretty print the dict config with indent 2")] == ["config"]
    assert variables("sort the list of files by size") == []
    assert variables("make a list and print it") == []


def test_a_python_flag_of_several_words_is_asked_for_by_its_verb():
    sort_dicts = Param("sort_dicts", type="boolean", has_default=True, default=True, kind="kwonly")
    assert not mentioned(sort_dicts, TaskValues.of("pretty print the dict config"))
    assert mentioned(sort_dicts, TaskValues.of("pretty print it with the keys sorted"))
    # a function-calling source's flag is asked for by its noun (BFCL: "the temperature and humidity")
    tool_flag = Param("include_temperature", type="boolean")
    assert mentioned(tool_flag, TaskValues.of("What's the temperature in Seattle?"))


def test_a_number_the_stub_does_not_admit_is_not_offered(docs):
    target = target_of(docs["re.sub"], TaskValues.of("replace every tab with four spaces in the text line"))
    assert target is not None
    offered = [c for s in target.offered if s.param.name != "count" for c in s.values.values()]
    assert all(c.kind != "number" for c in offered)
    target = target_of(docs["turtle.bgpic"], TaskValues.of("resize all the jpg images in pics to 800 pixels"))
    assert target is None or all(c.value != 800 for s in target.offered for c in s.values.values())


@pytest.mark.parametrize(
    ("task", "name", "call"),
    [
        ("pretty print the dict config with indent 2", "pprint.pprint", "pprint.pprint(config, indent=2)"),
        ("compute the average of the list scores", "statistics.mean", "statistics.mean(scores)"),
        ("sort dict `scores` by value", "sorted", "sorted(scores)"),
        ("pick 5 random names from `names` with no repeats", "random.sample", "random.sample(names, 5)"),
        ("base64 encode the bytes in `data`", "base64.b64encode", "base64.b64encode(data)"),
        ("compute the crc32 of `blob`", "zlib.crc32", "zlib.crc32(blob)"),
        # code in backticks is the person's variable in every slot, a path's too (break-it round 29, F12)
        ("delete the non-empty directory `build_dir`", "shutil.rmtree", "shutil.rmtree(build_dir)"),
        ("make a symlink called latest pointing to build/v2", "os.symlink",
         "os.symlink('build/v2', 'latest')"),
        ("make a symlink called latest pointing to build/v2", "pathlib.Path.symlink_to",
         "pathlib.Path('latest').symlink_to('build/v2')"),
        ("find every .log file under /var/log", "glob.glob",
         "glob.glob('/var/log/**/*.log', recursive=True)"),
        ("list the .txt files in /srv/notes", "glob.glob", "glob.glob('/srv/notes/*.txt')"),
        ("run `git status` in /srv/repo and capture what it prints", "subprocess.check_output",
         "subprocess.check_output(['git', 'status'], cwd='/srv/repo')"),  # its words (fill/derived.py)
        # the signature's own width takes the 72, not the max_lines textwrap's stub adds
        ("wrap the text of notes.txt so no line is longer than 72 characters", "textwrap.wrap",
         "textwrap.wrap('notes.txt', 72)"),
        # break-it round 29 (tests/unit/test_fill_breakit29.py): each value where it belongs
        ("join `parts` with commas", "str.join", "','.join(parts)"),
        ("compress data.csv with gzip", "gzip.compress", "gzip.compress(open('data.csv', 'rb').read())"),
        ("open the file notes.txt in append mode", "open", "open('notes.txt', 'a')"),
        ("unpack the zip archive data.bin into out", "zipfile.ZipFile.extractall",
         "zipfile.ZipFile('data.bin').extractall('out')"),
        ("make a tar.gz archive of the folder photos", "shutil.make_archive",  # root_dir: break-it 32
         "shutil.make_archive('photos', 'gztar', 'photos')"),
        ("combine `q1_sales` and `q2_sales` into a path", "os.path.join",
         "os.path.join(q1_sales, q2_sales)"),
        # the list is filled, and the check says the sort of that new list is lost (in_place_copy: the
        # pipeline then proposes sorted([...]), tests/unit/test_task_receivers.py)
        ("sort ['pear', 'apple', 'fig'] alphabeticaly", "list.sort", "list(['pear', 'apple', 'fig']).sort()"),
    ],
)  # fmt: skip
def test_the_model_fills_the_values_of_their_kind(gemma_backend, docs, methods, validator, task, name, call):
    owner = name.rpartition(".")[0]
    doc = docs[name] if name in docs else next(d for d in methods(owner) if d.api_name == name)
    filled = fill(gemma_backend, task, doc, constructors=docs.get, methods=methods)
    assert filled is not None
    assert filled.call == call
    verdict = validator.check(filled.call, types=filled.types)
    assert verdict.kind == "valid" or (name, verdict.reason) == ("list.sort", IN_PLACE_REASON)
    assert all(a.origin in ARGUMENT_ORIGINS for a in filled.arguments)


def test_a_command_the_task_does_not_quote_is_left_out_and_the_verdict_says_so(gemma_backend, docs, methods,
                                                                              validator):  # fmt: skip
    """The task "run make in the folder build" fills the folder, not the command (no "the command ..." names
    it); the call cannot run without one (break-it round 22, R22-4: typeshed requires check_output's args),
    so its verdict is wrong_args, not valid."""
    task = "run make in the folder build and capture its output"
    doc = docs["subprocess.check_output"]
    filled = fill(gemma_backend, task, doc, constructors=docs.get, methods=methods)
    assert filled is not None and filled.call == "subprocess.check_output(cwd='build')"
    verdict = validator.check(filled.call)
    assert (verdict.kind, verdict.reason) == ("wrong_args", "wrong_args:missing_argument")


def test_a_variable_is_marked_as_the_tasks_and_a_flag_is_set_only_when_asked(gemma_backend, docs):
    filled = fill(gemma_backend, "pretty print the dict config with indent 2", docs["pprint.pprint"])
    assert {a.name: a.origin for a in filled.arguments} == {"object": "variable", "indent": "task"}
    task = "pretty print the dict settings sorted by key with indent 4"
    asked = fill(gemma_backend, task, docs["pprint.pprint"])
    assert "sort_dicts=True" in asked.call and "indent=4" in asked.call


def test_no_number_goes_to_a_text_or_file_name_parameter(gemma_backend, docs):
    for task, name in (("replace every tab with four spaces in the text line", "re.sub"),
                       ("resize all the jpg images in pics to 800 pixels wide", "turtle.bgpic")):  # fmt: skip
        filled = fill(gemma_backend, task, docs[name])
        assert filled is not None
        assert not any(isinstance(v, (int, float)) for v in _literals(filled.call)), filled.call


@pytest.mark.parametrize(
    ("task", "names", "want"),
    [
        # the model reads both alike; the one that takes the values is the call
        ("which of ['apple', 'ample', 'maple'] are spelled close to 'appel'",
         ["select.epoll.close", "difflib.get_close_matches"], 1),
        ("pick a random number from 1 to 100", ["random.sample", "random.randint"], 1),
        # both take the path: the choice stands
        ("list the files in /var/log", ["pathlib.Path.iterdir", "os.listdir"], 0),
        # no value marked: the choice stands
        ("list the files here", ["pathlib.Path.iterdir", "os.listdir"], 0),
        # "one" is a determiner, not a value (everyday dev s6-flatten went to list.append)
        ("flatten a list of lists into one list", ["itertools.chain.from_iterable", "list.append"], 0),
    ],
)  # fmt: skip
def test_a_hit_read_as_likely_that_takes_more_of_the_values_is_chosen(stdlib_docs, task, names, want):
    found = {d.api_name: d for d in stdlib_docs if d.api_name in names}
    docs = [found[n] for n in names]
    assert by_values(docs, [-50.0, -50.0], 0, task) == want
    assert by_values(docs, [-50.0, -50.0 - VALUES_MARGIN - 1.0], 0, task) == 0  # read less likely: kept


def test_the_values_a_call_takes_are_counted_by_kind(docs):
    values = TaskValues.of("pick a random number from 1 to 100")
    assert [c.value for c in marked_values(values)] == [1, 100]
    assert placed(docs["random.randint"], values) == 2
    assert placed(docs["random.sample"], values) == 1  # population: Sequence[_T] takes no number
    assert placed(docs["pathlib.Path.iterdir"], TaskValues.of("list /var/log")) == 1  # its receiver's


def test_a_verb_that_spells_a_type_names_no_variable():
    assert variables("list files in /tmp") == []
    assert variables("set TZ to UTC") == []
    assert [c.text for c in variables("map `f` over the list xs")] == ["f", "xs"]


def test_a_sequence_a_stub_types_by_protocol_takes_a_variable_and_no_number():
    """random.choice's seq is typeshed's SupportsLenAndGetItem: read as unknown, it took the 5 of "pick 5
    random names from `names`" and never the variable (break-it round 29, F1)."""
    assert admits("random.choice", "seq", "array") and not admits("random.choice", "seq", "number")
    assert typed("random.choice", "seq")


def test_a_name_in_backticks_is_a_variable_without_its_type():
    """StackOverflow's and CoNaLa's way of naming a variable (a tester's blind tasks: 6 of 10 such names
    became a string or bytes literal, `random.sample('names', 5)`); a name in capitals is a value's text."""
    assert [(c.text, c.value) for c in variables("pick 5 random names from `names`")] == [("names", "any")]
    assert [c.text for c in variables("sort dict `scores` by value")] == ["scores"]  # once, typed
    assert variables("read the env variable `HOME`") == [] and variables("expand `PATH`") == []
    assert variables("run `git status` in /srv/repo") == [] and variables("load `data.json`") == []
    assert variables("list evrything in /tmp/uploads") == []


def test_a_chained_call_is_led_by_its_functions_doc(gemma_backend, docs, methods):
    """The proposal describes the doc whose call comes first (pipeline_types.led_by): for a method called
    on a call's result that is the function's doc, not the method's (which made the ask propose no call)."""
    doc = docs["sqlite3.connect"]
    filled = fill(gemma_backend, "open notes.db and run SELECT * FROM notes", doc, constructors=docs.get,
                  methods=methods)  # fmt: skip
    assert filled.call == "sqlite3.connect('notes.db').execute('SELECT * FROM notes')"
    assert filled.doc is doc
