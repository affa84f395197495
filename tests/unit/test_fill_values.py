"""fill/values.py and fill/call_grammar.py: the values a task states, and only those, are offered."""

from __future__ import annotations

import ast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gorilla_tui.fill.call_grammar import TaskValues, call_grammar, slots
from gorilla_tui.fill.candidate import list_items, literal
from gorilla_tui.fill.filler import parse_arguments, target_of
from gorilla_tui.fill.render import decoded, decoded_calls, render
from gorilla_tui.fill.requests import requests
from gorilla_tui.fill.values import lists, numbers, strings
from gorilla_tui.pool.doc import ApiDoc
from gorilla_tui.pool.functions import function_doc
from gorilla_tui.pool.params import Param, params_of


def texts(cands):
    return [c.text for c in cands]


def test_numbers_digits_units_scales_and_words():
    assert texts(numbers("base 6cm and height 10cm, budget $100 at 5%")) == ["6", "10", "100", "5", "0.05"]
    assert texts(numbers("2 million people and 1,500 miles")) == ["2000000", "1500"]
    assert texts(numbers("charges of 1e-9 and 2e-9 at 0.05")) == ["1e-09", "2e-09", "0.05"]
    assert texts(numbers("wait ten seconds")) == ["10"]
    # number words only where the task writes no digits: "two bodies of 1e-9" is not 2
    assert texts(numbers("two charged bodies of 1e-9")) == ["1e-09"]
    # a number inside a path, URL or formula is not a value of its own
    assert numbers("read logs/2024/01.txt from https://x.org/v2/a") == []
    assert numbers("the derivative of 3x^2 + 2x - 1") == []


def test_numbers_beyond_float_or_int_conversion_are_no_values():
    # "1e309" reads as float inf, whose repr (inf) is a name, not a literal: time.sleep(inf) was proposed
    assert numbers("wait 1e309 seconds") == [] and numbers("wait 1e308 million seconds") == []
    # an integer longer than Python converts (4,300 digits) raised ValueError out of ask
    assert numbers("wait " + "9" * 5000 + " seconds") == []
    assert texts(numbers("wait " + "9" * 400 + " seconds")) == ["9" * 400]
    for bad in (float("inf"), float("-inf"), float("nan"), [1.0, float("nan")]):
        with pytest.raises(TypeError):
            literal(bad)


def test_strings_keep_paths_urls_and_quotes_whole():
    found = texts(strings("Save the page at https://example.org/index.html to page.html"))
    assert "'https://example.org/index.html'" in found and "'page.html'" in found
    assert not any("org/index" in t and "https" not in t for t in found)  # a URL is never split
    assert "'New York'" in texts(strings('weather in "New York" for ten days'))
    assert "'3x^2 + 2x - 1'" in texts(strings("the derivative of 3x^2 + 2x - 1."))
    # runs of words neither start nor end with an article or preposition
    assert all(
        not ast.literal_eval(t).lower().startswith(("the ", "of "))
        for t in texts(strings("the area of a circle"))
    )


def test_lists_bracketed_and_joined_numbers():
    assert texts(lists("the sum of 4, 5 and 6")) == ["[4, 5, 6]"]
    assert "[1, 2, 3]" in texts(lists("sort [1, 2, 3] please"))


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_every_value_is_a_python_literal_of_the_task(task):
    values = TaskValues.of(task)
    for c in values.numbers + values.strings + values.lists:
        assert ast.literal_eval(c.text) == c.value
        if c.kind == "string":
            assert c.value in task


def _bfcl_function():
    return {
        "name": "calculate_triangle_area",
        "description": "Calculate the area of a triangle given its base and height.",
        "parameters": {
            "type": "dict",
            "properties": {
                "base": {"type": "integer", "description": "The base of the triangle."},
                "height": {"type": "integer", "description": "The height of the triangle."},
                "unit": {"type": "string", "description": "The unit of measure."},
                "precise": {"type": "boolean", "description": "Exact arithmetic."},
            },
            "required": ["base", "height"],
        },
    }


def test_slots_offer_the_task_values_by_type_and_optional_ones_only_when_spoken_of():
    doc = function_doc(_bfcl_function(), source="fn", index=1)
    offered = slots(params_of(doc), TaskValues.of("a triangle with a base of 10 units and height of 5 units"))
    names = [s.param.name for s in offered]
    assert names == ["base", "height", "unit"]  # "precise" is never spoken of: its default applies
    assert list(offered[0].values) == ["10", "5"]
    none = slots(params_of(doc), TaskValues.of("the area of a triangle"))
    assert [s.placeholder for s in none] == [True, True]  # no number: named placeholders, nothing invented


def test_call_grammar_is_accepted_by_llama_cpp_and_admits_only_offered_values():
    import llama_cpp  # deferred: loads libllama

    doc = function_doc(_bfcl_function(), source="fn", index=1)
    offered = slots(params_of(doc), TaskValues.of("base of 10 units and height of 5"))
    grammar = call_grammar(offered)
    llama_cpp.LlamaGrammar.from_string(grammar, verbose=False)  # parses (a bad one raises or crashes)
    assert '"base="' in grammar and '"10"' in grammar and '"7"' not in grammar


def test_render_positional_where_the_signature_wants_it():
    params = [Param("src", required=True, kind="positional"), Param("dst", required=True, kind="positional"),
              Param("follow_symlinks", kind="kwonly", has_default=True, default=True)]  # fmt: skip
    call, args = render("shutil.copy", params, {"src": ("'a'", "task"), "dst": ("dst", "missing")})
    assert call == "shutil.copy('a', dst)"
    assert [(a.name, a.origin) for a in args] == [("src", "task"), ("dst", "missing")]
    call, _ = render("f", params, {"dst": ("'b'", "task")})
    assert call == "f(dst='b')"  # a gap before it: by keyword


def test_parse_and_decode_never_evaluate():
    assert set(parse_arguments("a=1, b='x')")) == {"a", "b"}
    assert decoded_calls("f(a=1, b=[2, 3])") == [{"f": {"a": 1, "b": [2, 3]}}]
    assert decoded_calls("f(a=__import__('os').system('x'))") == []
    assert decoded_calls("not python (") == []
    assert literal(("a", 1)) == "['a', 1]"


def _param(name, type_, **kw):
    return Param(name, type_, required=kw.pop("required", True), **kw)


def test_a_percentage_is_a_fraction_for_a_float_and_as_written_for_an_integer():
    task = TaskValues.of("an annual interest rate of 3% for 1 year")
    rate, count = slots([_param("rate", "number"), _param("percent", "integer")], task)
    assert "0.03" in rate.values and "3" not in rate.values  # BFCL's rates: 3 % -> 0.03
    assert "3" in count.values and "0.03" not in count.values
    assert texts(numbers("accelerated at 4 m/s^2")) == ["4"]  # an exponent is no value


def test_strings_apostrophes_possessives_prepositions_and_hyphens():
    found = [c.value for c in strings("What's the timing for The Weeknd's concert and 'Catan'?")]
    assert "Catan" in found and "The Weeknd" in found  # "What's ... Weeknd'" is no quoted text
    assert not any("timing for" in v for v in found)  # a preposition ends a value
    found = [c.value for c in strings("Get the news on Bitcoin in US about fraud from 2010 to 2015")]
    assert "Bitcoin" in found and "Bitcoin in US" not in found and "2010 to 2015" not in found
    assert "Treaty of Lisbon" in [c.value for c in strings("the signing of the Treaty of Lisbon")]
    assert "gas" in [c.value for c in strings("a gas-powered vehicle")]


def test_an_array_takes_a_list_the_task_writes_whole():
    task = TaskValues.of("compare Group A [3, 4, 5] and Group B [7, 8, 9]")
    (group,) = slots([_param("group1", "array", items="integer")], task)
    assert list(group.values) == ["[3, 4, 5]", "[7, 8, 9]"] and not group.is_list
    (words,) = slots([_param("fields", "array", items="string")], TaskValues.of("the elevation and area"))
    assert words.is_list and "'elevation'" in words.values  # the items, one at a time


def test_a_flag_the_task_negates_is_false_and_dates_go_to_date_parameters():
    flag = _param("include_human_impact", "boolean", required=False)
    (no,) = slots([flag], TaskValues.of("if we do not include the impact of human activities"))
    (yes,) = slots([flag], TaskValues.of("including the human impact"))
    assert list(no.values) == ["False"] and list(yes.values) == ["True"]
    required = _param("specific_function", "boolean")  # required: the task's words decide it too
    (spoken,) = slots([required], TaskValues.of("does ATP have a specific function in the mitochondria?"))
    (silent,) = slots([required], TaskValues.of("what does ATP do in the mitochondria?"))
    assert list(spoken.values) == ["True"] and list(silent.values) == ["True", "False"]
    task = TaskValues.of("fly from Tokyo to Sydney on May 18th 2022")
    city, date = slots([_param("destination_city", "string"), _param("date", "string")], task)
    assert "'2022-05-18'" in date.values and "'2022-05-18'" not in city.values
    assert not any("May" in v for v in city.values)


def test_requests_counts_what_a_task_asks_for():
    assert requests("What is the weather in Oslo and in Rome over the next 2 days?") == 1
    assert requests("Find the sum of the multiples of 3 and 5. Also find the product of five primes.") == 2
    assert requests("Get X for Apple, then do the same for Microsoft, and finally for IBM.") == 3
    # each question after a comma is a request of its own; a relative clause is not
    assert requests("What is the tallest peak of Peru, what is the longest river of Chile, and how deep "
                    "is Lake Titicaca?") == 3  # fmt: skip
    assert requests("Find the volume of a cube, which has a side of 3 cm") == 1


def test_a_permission_mode_the_task_writes_is_octal() -> None:
    """Break-it pass: "change the permissions of run.sh to 755" gave os.chmod('run.sh', 755), decimal 755
    (0o1363); a mode the task writes as octal digits is rendered as the octal literal."""
    from gorilla_tui.fill.render import render
    from gorilla_tui.pool.params import Param

    params = [Param("path", "str", True, kind="positional"), Param("mode", "int", True, kind="positional")]
    call, _ = render("os.chmod", params, {"path": ("'run.sh'", "task"), "mode": ("755", "task")})
    assert call == "os.chmod('run.sh', 0o755)"
    call, _ = render("os.chmod", params, {"path": ("'a'", "task"), "mode": ("0644", "task")})
    assert call == "os.chmod('a', 0o644)"
    call, _ = render("os.chmod", params, {"path": ("'a'", "task"), "mode": ("1000", "task")})
    assert call == "os.chmod('a', 1000)"  # not octal digits: left as the task wrote it
    opened = [Param("file", "str", True, kind="positional"), Param("mode", "str", kind="positional")]
    call, _ = render("open", opened, {"file": ("'a'", "task"), "mode": ("'755'", "task")})
    assert call == "open('a', '755')"  # a string mode stays a string


def test_a_date_the_task_writes_fills_year_month_and_day_part_by_part():
    """Lead's hand trial: "what day of the week is 2026-12-25" gave datetime.date(2026, day=12).weekday():
    the date's digits went to the parts in any order, and month (optional in datetime.py's date.__new__,
    month=None, day=None) was left out. Now each part takes its own part of the date, in words or digits."""
    from gorilla_tui.fill.dates import dates

    iso = "what day of the week is 2026-12-25"
    assert [c.value for c in dates(iso)] == ["2026-12-25"]
    assert [c.value for c in dates("from March 10, 2022 to 2022-04-01")] == ["2022-03-10", "2022-04-01"]
    assert dates("build 2026-13-45 and 12-2026-01-01-9") == []  # not a date, or inside a longer run
    date_params = [Param("year", "any", required=True, kind="positional"),
                   Param("month", "any", kind="positional", has_default=True, default=None),
                   Param("day", "any", kind="positional", has_default=True, default=None)]  # fmt: skip
    for task, parts in (
        (iso, ("2026", "12", "25")),
        ("the weekday of December 25, 2026", ("2026", "12", "25")),
    ):
        offered = slots(date_params, TaskValues.of(task))
        assert [(s.param.name, s.param.required, list(s.values)) for s in offered] == [
            ("year", True, [parts[0]]),
            ("month", True, [parts[1]]),
            ("day", True, [parts[2]]),
        ]
        spans = [next(iter(s.values.values())) for s in offered]
        assert [task[c.start : c.end] for c in spans] == (
            ["2026", "12", "25"] if "-" in task else ["2026", "December", "25"]
        )
    # no date in the task: the parts are what they were (year from the numbers, month and day left out)
    plain = slots(date_params, TaskValues.of("is 2028 a leap year"))
    assert [(s.param.name, list(s.values)) for s in plain] == [("year", ["2028"])]


def test_a_file_or_folder_named_by_a_bare_word_is_one_value():
    """Lead's hand trial: "delete the folder old_build" gave os.rmdir(path): the name was no path value."""
    named = {c.value: c.atomic for c in strings("delete the folder old_build and a directory called reports")}
    assert named["old_build"] is True and named["reports"] is True
    assert {c.value for c in strings("read the file contents") if c.atomic} == set()

    # a bare word named last after "the folder" is the folder's name (lead's try, session 8: "delete the
    # folder build" gave os.rmdir(path)); a word saying what of the folder is meant is none
    def atomic(task: str) -> list[str]:
        return [c.value for c in strings(task) if c.atomic]

    assert atomic("delete the folder build") == ["build"]
    assert atomic("remove the empty folder build.") == ["build"]
    assert atomic("zip the directory site, then upload it") == ["site"]
    assert atomic("delete the folder contents") == atomic("show the whole folder tree") == []
    assert atomic("what is in the folder") == []
    assert {c.value for c in strings("unzip archive.zip into the folder out") if c.atomic} == {
        "archive.zip",
        "out",
    }


def _pyenv_doc(name: str, call: str, arguments: dict[str, str], description: str) -> ApiDoc:
    return ApiDoc(id=f"python-env:{name}", source="python-env", api_call=call, api_name=name,
                  api_arguments=arguments, description=description)  # fmt: skip


def test_a_bytes_parameter_takes_the_task_text_encoded_and_json_never_sees_bytes():
    """base64.b64encode takes bytes: "encode the text "user:secret" as base64" is b64encode(b'user:secret'),
    the task's text converted (filling had written b64encode('user:secret'), a TypeError when run)."""
    b64 = _pyenv_doc("base64.b64encode", "base64.b64encode(s)", {"s": "required", "altchars": "None"},
                     "Encode the bytes-like object s using Base64 and return a bytes object.")  # fmt: skip
    target = target_of(b64, TaskValues.of('encode the text "user:secret" as base64'))
    assert list(target.offered[0].values) == ["b'user:secret'"]
    named = target_of(b64, TaskValues.of("encode installer.iso and https://a.org/x as base64"))
    # a path or URL is not the bytes to encode: the file is read (break-it round 26, R26-2), the URL is not
    assert list(named.offered[0].values) == ["open('installer.iso', 'rb').read()"]
    md5 = _pyenv_doc("hashlib.md5", "hashlib.md5()", {"string": "b''"}, "Return a new MD5 hash object.")
    assert list(target_of(md5, TaskValues.of("the md5 of the string 'abc'")).offered[0].values) == ["b'abc'"]
    plain = _pyenv_doc("os.remove", "os.remove(path)", {"path": "required"}, "Remove a file.")
    assert list(target_of(plain, TaskValues.of("delete 'a.txt'")).offered[0].values) == ["'a.txt'"]
    assert decoded("base64.b64encode", {"s": ("b'x'", "task"), "altchars": ("None", "default")}) == [
        {"base64.b64encode": {"altchars": None}}
    ]  # JSON has no form for bytes: left out
    assert decoded_calls("f(a=b'x')\ng(a=1)") == [{"g": {"a": 1}}]


def test_a_date_in_digits_is_one_value_never_its_numbers():
    """Lead's hand trial: "how many days between 2026-01-01 and 2026-12-25" gave
    ``datetime.timedelta(2026)``: the year of an ISO date was taken as a number of days. A date in digits
    is one value like a date in words: its parts go only to year, month and day parameters."""
    task = "how many days between 2026-01-01 and 2026-12-25"
    assert numbers(task) == []
    assert numbers("wait 5 seconds after 2026-01-01") and texts(
        numbers("wait 5 seconds after 2026-01-01")
    ) == ["5"]
    days = [Param("days", "integer", kind="positional", has_default=True, default=0)]
    assert slots(days, TaskValues.of(task)) == []  # "how many days" speaks of days, but gives no number


@pytest.mark.parametrize(
    "text",
    [
        "src='\ud800', dst='b')",  # a lone surrogate (a JSON escape a server sent): UnicodeEncodeError
        "src=" + "-" * 12_000 + "1)",  # MemoryError in the parser
        "src=" + "not " * 3_000 + "1)",  # RecursionError in the parser
        "src=" + "-" * 1_500 + "1)",  # parses; RecursionError in ast.unparse
    ],
)
def test_text_python_cannot_read_is_no_argument_list(text: str) -> None:
    """Break-it round 20, R20-1: a server that ignores the grammar sent these for the fill step; each was
    "internal error" (ask exit 1, MCP "a bug"). Now each is text that is no argument list (SyntaxError),
    which filling reads as no values (the call keeps its placeholders)."""
    with pytest.raises(SyntaxError):
        parse_arguments(text)
    assert list_items("[" + "-" * 1_990 + "1]") == []
    assert parse_arguments("src='a.txt', dst='b.txt')") == {"src": "'a.txt'", "dst": "'b.txt'"}


@pytest.mark.parametrize(
    ("task", "paths"),
    [
        ("copy ~/notes.txt to /tmp/notes.txt", ["~/notes.txt", "/tmp/notes.txt"]),
        ("copy ~/.bashrc to /tmp/bashrc.bak", ["~/.bashrc", "/tmp/bashrc.bak"]),
        ("copy $HOME/.profile to /tmp/p", ["$HOME/.profile", "/tmp/p"]),
        ("copy the directory ~/.config to /tmp/cfg", ["~/.config", "/tmp/cfg"]),
        ("read the text file .env", [".env"]),
        ("delete the file .gitignore", [".gitignore"]),
        ("it costs $5. then stop", []),
    ],
)
def test_home_variable_and_dot_file_paths_are_whole(task: str, paths: list[str]) -> None:
    """Break-it round 21, R21-2: a path from the home folder, an environment variable or a dot-file lost
    its first characters ("~/.bashrc" -> 'bashrc', "$HOME/.profile" -> 'HOME/.profile', ".env" dropped):
    the call named another file, said to fit. Each is one value as typed now."""
    assert [c.value for c in TaskValues.of(task).strings if c.atomic] == paths
