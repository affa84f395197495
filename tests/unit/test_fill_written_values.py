"""Break-it round 30 (F-H1, F-H2, F-M3, F-M5): the task's values reach the call whole. A Python literal the
task writes is one value read by Python's parser, a network or a date with its time one token, the input a
colon hands over one value (its quoted part no other), a long one kept whole, a shell-escaped path one path.
Shown on tasks of the same class as the findings, not on the findings' own, on the running Python's
standard-library pool; the model fills them at the end."""

from __future__ import annotations

import json

import pytest

from gorilla_tui.config import Settings
from gorilla_tui.fill.call_grammar import TaskValues
from gorilla_tui.fill.filler import Filled
from gorilla_tui.fill.set_aside import STAND_IN_CHARS, handed_aside, restore, set_aside
from gorilla_tui.fill.unused import left_out
from gorilla_tui.fill.values import lists, numbers, strings
from gorilla_tui.fill.written import compound_literals
from gorilla_tui.pipeline import Pipeline
from gorilla_tui.retrieve.index import ApiIndex
from gorilla_tui.retrieve.query.handover import handed_input, without_input
from gorilla_tui.textsafe import MAX_TASK_CHARS, MAX_TASK_INPUT_CHARS, clean_task
from gorilla_tui.types import Argument
from tests.stdlib_fixtures import offered_values

_offered = offered_values


@pytest.mark.parametrize(
    ("task", "source"),
    [
        ("make a dict from [['x', 1], ['y', 2]] please", "[['x', 1], ['y', 2]]"),
        ('group the rows ((1, "a"), (2, "b")) by id', "((1, 'a'), (2, 'b'))"),
        ("store {'name': 'ann', 'tags': ['a', 'b']} as json", "{'name': 'ann', 'tags': ['a', 'b']}"),
        ("the primes {2, 3, 5, 7} as a sorted list", "{2, 3, 5, 7}"),
        ("crc32 of b'hello\\n' with zlib", "b'hello\\n'"),
        ("a matrix [[1, 0], [0, 1]] inverted", "[[1, 0], [0, 1]]"),
    ],
)
def test_a_literal_the_task_writes_is_one_value_read_by_pythons_parser(task: str, source: str) -> None:
    """F-H2: "[('a', 1), ('b', 2)]" was four values; the literal is one, its items and quoted parts none."""
    assert [t for _s, _e, _v, t in compound_literals(task)] == [source]
    assert source in [c.text for c in lists(task)]
    start = task.index(source[0])
    assert not any(start <= c.start < start + len(source) for c in numbers(task))
    assert not any(start <= c.start < start + len(source) for c in strings(task))


@pytest.mark.parametrize(
    "task",
    [
        "sort [3, 1, 2]",  # a flat list: lists() offers it, and its items stay values (BFCL's ranges)
        "call f(x) with a[0]",  # a call and a subscript are no literals
        "parse the JSON string '{\"a\": [1]}'",  # in quotes: the text json.loads takes
        "it's (see [the notes]) fine",  # prose in brackets
        "((((((((((((((((((((x))))))))))))))))))))",
        "grades b's and b's only",  # an apostrophe after a b is no bytes literal
        "search for the pattern '\\d{3}-\\d{4}' in `phone`",  # inside quoted text: a regex, no sets
        'match "[a-z]{2,}" in s',
    ],
)
def test_what_is_no_literal_written_whole_is_left_as_before(task: str) -> None:
    assert compound_literals(task) == ()


def test_a_regex_in_quotes_is_one_string_value() -> None:
    """The merged main of session 14 read "search for the pattern '\\d{3}-\\d{4}' in `phone`" as the sets {3}
    and {4} and the strings 'd' and '-\\d': re.match('-\\d', phone)."""
    task = "search for the pattern '\\d{3}-\\d{4}' in `phone`"
    assert "\\d{3}-\\d{4}" in [c.value for c in strings(task)]
    assert lists(task) == []
    assert [c.value for c in lists("turn [('a', 1)] and 'x' into a dict")] == [[("a", 1)]]


def test_a_literal_is_one_item_of_args(docs) -> None:
    """F-H2: dict('a', 1, 'b', 2) and set(1, 2, 3): a function's ``*args`` took the literal's items."""
    assert _offered(docs, "dict", "make a dict from [['x', 1], ['y', 2]]") == {
        "args": ["[['x', 1], ['y', 2]]"]
    }
    assert _offered(docs, "set", "drop the repeats in [4, 4, 5]") == {"args": ["[4, 4, 5]"]}
    assert _offered(docs, "frozenset", "freeze {'a', 'b'}") == {"args": ["{'a', 'b'}"]}


def test_a_bytes_literal_is_bytes_for_a_bytes_parameter(docs) -> None:
    """F-H2 / F-H7: "the bytes b'\\x00\\x01'" was the str 'x00\\\\x01'; zlib.crc32 of b'abc' took nothing."""
    assert _offered(docs, "zlib.adler32", "the adler32 checksum of b'\\xff\\x00'")["data"] == [
        "b'\\xff\\x00'"
    ]
    assert _offered(docs, "int.from_bytes", "read b'\\x10\\x00' as a little-endian int")["bytes"] == [
        "b'\\x10\\x00'"
    ]


@pytest.mark.parametrize(
    ("name", "task", "value"),
    [
        ("ipaddress.ip_interface", "the interface 192.168.1.5/24", "'192.168.1.5/24'"),
        ("ipaddress.ip_network", "which hosts are in 2001:db8::/32", "'2001:db8::/32'"),
        ("datetime.datetime.fromisoformat", "parse 2025-01-31T23:59:59Z", "'2025-01-31T23:59:59Z'"),
        ("datetime.datetime.fromisoformat", "read 1999-12-31T08:30 as a datetime", "'1999-12-31T08:30'"),
    ],
)
def test_a_network_or_a_date_with_its_time_is_one_token(docs, name: str, task: str, value: str) -> None:
    """F-H2: ip_network('10.0.0.0') with 8 unused; fromisoformat('2026-12-07') with the time dropped."""
    offered = _offered(docs, name, task)
    assert [v for vs in offered.values() for v in vs] == [value], offered


@pytest.mark.parametrize(
    ("task", "fmt"),
    [
        ("parse 2025-01-31T23:59:59Z with strptime", "'%Y-%m-%dT%H:%M:%S%z'"),
        ("strptime 1999-12-31T08:30:00.125+05:30", "'%Y-%m-%dT%H:%M:%S.%f%z'"),
    ],
)
def test_a_strptime_format_reads_the_whole_date_and_time(docs, task: str, fmt: str) -> None:
    """The format of a date with its time took no fraction or UTC offset: strptime('...59', '...%S') with
    the task's '...59Z' unused."""
    assert _offered(docs, "datetime.datetime.strptime", task)["format"] == [fmt]


def test_a_date_and_time_keeps_its_date_parts_and_a_time_after_a_blank_is_its_own() -> None:
    values = TaskValues.of("on 2023-10-05 14:00 book the room")  # BFCL writes date and time apart
    assert {c.value for c in values.strings if c.kind == "date"} == {"2023-10-05"}
    joined = TaskValues.of("at 2023-10-05T14:00 book the room")
    assert {c.value for c in joined.strings if c.kind == "date"} == {"2023-10-05T14:00"}
    quoted = TaskValues.of("parse '2031-05-06T07:08:09' as a datetime")  # quoted: text, and its date
    assert {(c.value, c.kind) for c in quoted.strings if c.atomic} == {
        ("2031-05-06T07:08:09", "string"),
        ("2031-05-06", "date"),
    }


@pytest.mark.parametrize(
    ("task", "call", "unused"),
    [
        ("the interface 192.168.1.5/24", "ipaddress.ip_interface('192.168.1.5')", ["192.168.1.5/24"]),
        (
            "parse 2025-01-31T23:59:59Z",
            "datetime.datetime.fromisoformat('2025-01-31')",
            ["2025-01-31T23:59:59Z"],
        ),
        ("parse 2025-01-31T23:59:59Z", "datetime.datetime.fromisoformat('2025-01-31T23:59:59Z')", []),
        ("read b'\\x10\\x00' as an int", "int.from_bytes(b'\\x10\\x00', 'little')", []),
        ("freeze {'a', 'b'}", "frozenset({'a', 'b'})", []),
        ("make a dict from [['x', 1], ['y', 2]]", "dict('x', 1, 'y', 2)", ["[['x', 1], ['y', 2]]"]),
        ("make a dict from [['x', 1], ['y', 2]]", "dict([['x', 1], ['y', 2]])", []),
    ],
)
def test_a_value_cut_or_split_is_said_unused(task: str, call: str, unused: list[str]) -> None:
    assert left_out(task, call) == unused


@pytest.mark.parametrize(
    ("task", "handed"),
    [
        ("what is the md5 of this: open sesame", "open sesame"),
        ("remove the punctuation from this: Hi, there!", "Hi, there!"),
        ("count the vowels in this: banana", "banana"),
        ("unescape this: &lt;b&gt;", "&lt;b&gt;"),
        ("hash this with blake2b: my secret", "my secret"),
        ("reverse this for me: racecar", "racecar"),
        ("lowercase this: HELLO World", "HELLO World"),
        ("html-escape this: 1 < 2", "1 < 2"),  # a hyphenated verb by its last part
        ("run this shell command: du -sh /var", "du -sh /var"),  # a command line is input too
        ("evaluate this expression: {'k': [1, 2]}", "{'k': [1, 2]}"),
    ],
)
def test_a_pronoun_after_a_preposition_or_a_text_verb_hands_the_input_over(task: str, handed: str) -> None:
    """F-H1: "compute the sha256 of this: hello world" gave hashlib.sha256(); the input was no value."""
    span = handed_input(task)
    assert span is not None and task[span[0] : span[1]] == handed
    assert without_input(task).startswith(task[: task.index(":")]) and handed not in without_input(task)


def test_what_the_handed_input_quotes_is_no_value_of_its_own(docs) -> None:
    """F-H1: "escape this for html: <script>alert("x & y")</script>" took 'x & y' alone; the same for a
    path inside the input ("url-encode this: a b&c=d/é" read 'd/é' as a file)."""
    task = 'quote this for a url: say "a & b" to c/d'
    assert _offered(docs, "urllib.parse.quote", task)["string"] == ["'say \"a & b\" to c/d'"]
    assert _offered(docs, "html.escape", "escape this for xml: <a href='x'>y</a>")["s"] == [
        "\"<a href='x'>y</a>\""
    ]


def test_a_call_that_takes_none_of_the_handed_input_leaves_it_unused() -> None:
    """F-H1 item 4: hashlib.sha256() for "the sha256 of this: ..." was "fits" with nothing unused."""
    assert left_out("what is the md5 of this: open sesame", "hashlib.md5()") == ["open sesame"]
    assert left_out("what is the md5 of this: open sesame", "hashlib.md5(b'open sesame')") == []


def _long(task: str) -> str:
    return clean_task(task, MAX_TASK_INPUT_CHARS)[0]


def test_a_long_handed_input_is_set_aside_and_written_back_whole() -> None:
    """F-M3: the input was cut at 2,000 characters (json.loads of half a document) or dropped whole."""
    document = json.dumps({f"key{i}": list(range(i % 7)) for i in range(200)})
    task, aside = handed_aside(_long("load this json: " + document))
    assert aside is not None and aside.whole == document and len(task) < MAX_TASK_CHARS
    assert aside.task == "load this json: " + document
    assert document.startswith(aside.stand_in) and len(aside.stand_in) <= STAND_IN_CHARS
    span = handed_input(task)
    assert span is not None and task[span[0] : span[1]] == aside.stand_in  # filling offers the stand-in
    short = f"json.loads({aside.stand_in!r})"
    filled = restore(Filled(short, [Argument("s", repr(aside.stand_in), "task")],
                            [{"json.loads": {"s": aside.stand_in}}]), aside)  # fmt: skip
    assert filled.call == f"json.loads({document!r})" and filled.arguments[0].value == repr(document)
    assert filled.calls == [{"json.loads": {"s": document}}]
    assert aside.taken(filled.call) and not aside.taken("json.loads(s)")
    encoded = handed_aside(_long("base64 encode this: " + "y" * 5000))[1]
    assert encoded.restored(f"base64.b64encode({encoded.stand_in.encode()!r})") == (
        f"base64.b64encode({('y' * 5000).encode()!r})"
    )


def test_the_stand_in_is_what_filling_reads_as_the_input() -> None:
    """A stand-in ending with a full stop lost it to the sentence (handed_input), and was never restored."""
    text = ("Stop here. " * 400).strip()  # its first 200 characters, cut at a blank, end with "."
    task, aside = handed_aside(_long("summarize this: " + text))
    span = handed_input(task)
    assert aside is not None and task[span[0] : span[1]] == aside.stand_in
    assert aside.whole == text[:-1]  # the closing full stop is the sentence's, as handed_input reads it


def test_a_short_task_or_one_without_handed_input_is_not_set_aside() -> None:
    assert set_aside("parse this JSON: {}") == ("parse this JSON: {}", None)
    words = _long("zip the folder " + "photos " * 400)
    assert set_aside(words) == (words, None)


@pytest.mark.model
def test_the_model_fills_the_values_whole(stdlib_docs, gemma_backend) -> None:
    """The pipeline with the real model: each task's one API, its value whole in the call."""
    by_name = {d.api_name: d for d in stdlib_docs}

    def ask(name: str, task: str):
        pipeline = Pipeline(Settings(mode="select", k=1), ApiIndex.build([by_name[name]]), gemma_backend)
        return pipeline.ask(task)

    made = ask("dict", "make a dict from [['x', 1], ['y', 2]]")
    assert made.api_call == "dict([['x', 1], ['y', 2]])" and made.unused == []
    network = ask("ipaddress.ip_interface", "get the interface object for 192.168.1.5/24")
    assert network.api_call == "ipaddress.ip_interface('192.168.1.5/24')"
    hashed = ask("hashlib.md5", "what is the md5 of this: open sesame")
    assert hashed.api_call == "hashlib.md5(b'open sesame')" and hashed.unused == []
    document = json.dumps({f"key{i}": "v" * 12 for i in range(300)})
    loaded = ask("json.loads", "load this json: " + document)
    assert loaded.api_call == f"json.loads({document!r})" and loaded.task.endswith(document)
    assert any("is in the call whole" in w for w in loaded.warnings)


@pytest.mark.parametrize(
    ("name", "task", "value"),
    [
        ("os.remove", "delete the file /srv/old\\ logs/a.log", "'/srv/old logs/a.log'"),
        ("os.path.getsize", "get the size of the file ~/My\\ Music/song\\ 1.mp3", "'~/My Music/song 1.mp3'"),
        ("shutil.rmtree", "remove the folder build\\ \\(old\\)", "'build (old)'"),
        ("os.path.getsize", "how big is 'annual report 2024.pdf'", "'annual report 2024.pdf'"),
    ],
)
def test_a_shell_escaped_or_quoted_path_stays_whole(docs, name: str, task: str, value: str) -> None:
    """F-M5: "/tmp/a\\ b.txt" was '/tmp/a\\\\' and 'b.txt'; escaped as a shell writes it, it is one path,
    read unescaped. An unquoted path still ends at white space (the rest is said unused)."""
    offered = _offered(docs, name, task)
    assert [v for vs in offered.values() for v in vs] == [value], offered
    assert left_out(task, f"{name}({value})") == []
    assert left_out("get the size of /tmp/naïve café.txt", "os.path.getsize('café.txt')") == ["/tmp/naïve"]


def test_the_mcp_ask_hands_the_pipeline_the_whole_task() -> None:
    """MCP propose_api_call cut the task at 2,000 characters before the pipeline could set its input aside;
    search still reads the cut task."""
    from gorilla_tui.mcp.tools import ToolBox

    task = "base64 encode this: " + "z" * 6000
    assert ToolBox._task(task, whole=True) == task
    assert len(ToolBox._task(task)) <= MAX_TASK_CHARS


def test_a_set_in_the_decoded_form_is_a_json_list() -> None:
    """Break-it round 31: "get the length of the set {1, 2, 3}" was an internal error: the decoded call held a
    set, which json.dumps (the history row, `ask --json`, MCP) cannot write."""
    from gorilla_tui.fill.render import decoded, decoded_calls

    calls = decoded("len", {"obj": ("{3, 1, 2}", "task")})
    assert json.loads(json.dumps(calls)) == [{"len": {"obj": [1, 2, 3]}}]
    assert decoded("f", {"x": ("{1j: 2}", "task")}) == [{"f": {}}]  # no JSON form: left out
    assert json.dumps(decoded_calls("f(a={'x', 1}, b=(1, {2}))"))
