"""Names of standards and encodings that hold a number (fill/standards.py): no number value, and an
encoding's name is the value of an encoding parameter."""

from __future__ import annotations

from gorilla_tui.fill.call_grammar import TaskValues
from gorilla_tui.fill.filler import target_of
from gorilla_tui.fill.standards import codec_name, no_value
from gorilla_tui.fill.values import numbers, strings
from gorilla_tui.pool.doc import ApiDoc

# str.encode and open as the python-env source reads them (api_arguments: names and defaults)
ENCODE = ApiDoc(id="python-env:1", source="python-env", api_call="str().encode()", api_name="str.encode",
                api_arguments={"encoding": "'utf-8'", "errors": "'strict'"})  # fmt: skip
OPEN = ApiDoc(id="python-env:2", source="python-env", api_call="open(file)", api_name="open",
              api_arguments={"file": "required", "mode": "'r'", "buffering": "-1", "encoding": "None",
                             "errors": "None", "newline": "None"})  # fmt: skip


def _offered(doc: ApiDoc, task: str) -> dict[str, list[str]]:
    target = target_of(doc, TaskValues.of(task))
    return {} if target is None else {s.param.name: list(s.values) for s in target.offered}


def test_the_number_of_a_standards_name_is_no_number() -> None:
    for task in ("show the current time in ISO 8601", "encode the text as UTF-8", "hash it with SHA-256",
                 "format the date as RFC 2822", "convert to ISO-8859-1", "follow PEP 8"):  # fmt: skip
        assert numbers(task) == [], task
    # the numbers beside such a name stay numbers; a word that is no standard's keeps its number
    assert [c.value for c in numbers("wait 5 seconds, then encode as UTF-8")] == [5]
    assert [c.value for c in numbers("run it with python 3 on port 8080")] == [3, 8080]
    assert [c.value for c in numbers("copy 3 files")] == [3]


def test_an_encodings_name_is_one_string_and_a_standards_none() -> None:
    assert "UTF-8" in [c.value for c in strings("encode the text as UTF-8")]
    assert "latin-1" in [c.value for c in strings("decode the bytes from latin-1")]
    values = [c.value for c in strings("show the current time in ISO 8601")]
    assert not any("8601" in str(v) or v == "ISO" for v in values)
    assert codec_name("UTF-8") == "utf-8" and codec_name("windows-1252") == "cp1252"
    assert no_value("SHA-256") and no_value("RFC 2822") and not no_value("utf-16-le")


def test_an_encoding_parameter_takes_the_encoding_the_task_names_and_only_it() -> None:
    assert _offered(ENCODE, "encode the text 'héllo' as UTF-8")["encoding"] == ["'UTF-8'"]
    offered = _offered(OPEN, "open notes.txt as UTF-16")
    assert offered["encoding"] == ["'UTF-16'"] and offered["file"] == ["'notes.txt'"]
    # no encoding named: the default applies (no slot), as before
    assert "encoding" not in _offered(OPEN, "open notes.txt")
    assert "encoding" not in _offered(ENCODE, "encode the text 'héllo' in ISO 8601")


def test_a_word_that_names_a_text_encoding_is_one_and_a_bytes_codec_is_not() -> None:
    assert _offered(ENCODE, "encode the text 'héllo' as ascii")["encoding"] == ["'ascii'"]
    # "hex" and "base64" are codecs of bytes, no text encoding: str.encode refuses them
    assert "encoding" not in _offered(ENCODE, "encode the text 'héllo' as hex")
    assert codec_name("base64") is None and codec_name("ISO 8601") is None
