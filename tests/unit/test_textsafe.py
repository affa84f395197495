"""textsafe.safe_text: untrusted text is shown with its control characters as visible escapes."""

from __future__ import annotations

import io

import pytest
from rich.console import Console
from rich.text import Text

from gorilla_tui.fill.call_grammar import TaskValues
from gorilla_tui.textsafe import (
    MAX_BLOCK_CHARS,
    MAX_BLOCK_LINES,
    MAX_LINE_CHARS,
    clean_task,
    safe_text,
    strip_controls,
)

OSC52 = "\x1b]52;c;cm0gLXJmIH4=\x07"  # sets the clipboard to "rm -rf ~"
CLEAR = "\x1b[2J"
CONCEAL = "\x1b[8m"


def test_escape_sequences_become_visible_text() -> None:
    hostile = f"resnet {OSC52}{CLEAR}{CONCEAL}hidden\x9b31m\r\x08\x7f"
    shown = safe_text(hostile)
    assert shown == ("resnet \\x1b]52;c;cm0gLXJmIH4=\\x07\\x1b[2J\\x1b[8mhidden\\x9b31m\\x0d\\x08\\x7f")
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in shown)


def test_tabs_and_letters_are_kept_newlines_on_request_bidi_controls_never() -> None:
    """One line by default (an error, a note, a cell); a block (code, a doc) keeps its newlines."""
    assert safe_text("a\tb\nç 中文 ✓", newlines=True) == "a\tb\nç 中文 ✓"
    assert safe_text("a\nb") == "a\\x0ab"
    # "Trojan Source": a right-to-left override reorders what a reviewer sees
    assert safe_text("x = 1 \u202e# comment\u2066") == "x = 1 \\u202e# comment\\u2066"


def test_rich_prints_the_result_as_text_never_as_markup() -> None:
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, color_system="truecolor", width=200)
    console.print(Text(safe_text(f"[/x] [bold]b {OSC52}{CLEAR}{CONCEAL}")))
    printed = out.getvalue()
    assert "[/x] [bold]b \\x1b]52;c;" in printed
    for seq in (OSC52, CLEAR, CONCEAL, "\x1b]"):
        assert seq not in printed


def test_a_task_loses_its_escape_sequences_but_keeps_its_words() -> None:
    """clean_task (every ask: CLI, TUI, MCP) drops escape sequences whole, so their parameters do not
    become words ("31mcsv"), and keeps non-ASCII letters."""
    from gorilla_tui.pipeline import clean_task

    assert clean_task(f"read a \x1b[31mcsv{OSC52} file\x1b[0m\x08\r") == ("read a csv file", [])
    assert clean_task("Bild klassifizieren, 图片分类") == ("Bild klassifizieren, 图片分类", [])


def test_line_and_paragraph_separators_are_shown_escaped() -> None:
    """Break-it round 5: a file or doc name holding U+2028 split one `check` finding over two lines for
    str.splitlines and editors, while NEL and CR were already escaped."""
    shown = safe_text("a\u2028b\u2029c.py:1:1: hallucination")
    assert shown == "a\\u2028b\\u2029c.py:1:1: hallucination" and len(shown.splitlines()) == 1
    assert strip_controls("copy\u2028a file") == "copy a file"


def test_one_line_text_is_cut_at_the_limit_with_the_count_left_out() -> None:
    """Break-it round 11: a doc's 1 MB api_name was printed whole by `search` (1.6 MB of table for two
    hits). One-line text longer than MAX_LINE_CHARS is cut with an ellipsis and the count left out; text
    within it and a caller's limit=None keep every character."""
    name = "\x1b]0;x\x07" + "a" * 1_000_000
    shown = safe_text(name)
    assert shown == "\\x1b]0;x\\x07" + "a" * (MAX_LINE_CHARS - 6) + "… (999,006 more characters)"
    assert "\x1b" not in shown and len(shown) < MAX_LINE_CHARS + 50
    assert safe_text("b" * MAX_LINE_CHARS) == "b" * MAX_LINE_CHARS
    assert safe_text(name + "\n", newlines=True, limit=None).endswith("a" * 1_000_000 + "\n")
    assert safe_text(name, limit=None).endswith("a" * 1_000_000)
    assert safe_text("x" * 50, limit=10) == "x" * 10 + "… (40 more characters)"


def test_block_text_is_cut_at_its_line_and_size_caps_with_a_last_line_saying_where_it_is_whole() -> None:
    """Break-it round 12: a doc's 1 MB example_code (80,000 lines) was printed whole by `ask` (16 MB of
    panel). A block (newlines=True) keeps at most MAX_BLOCK_LINES lines and MAX_BLOCK_CHARS characters,
    then one line with what was left out and where it is whole; limit=None keeps it all (the run
    confirmation)."""
    code = "import zfrob\n" + "zfrob.run(1)\n" * 80_000
    shown = safe_text(code, newlines=True).splitlines()
    assert len(shown) == MAX_BLOCK_LINES + 1 and shown[:2] == ["import zfrob", "zfrob.run(1)"]
    assert shown[-1] == "… (79,601 more lines, 1,034,813 more characters; `--json` has it whole)"
    one_line = "\x1b" + "b" * 200_000  # one long line: cut at the characters' cap, escape still shown
    shown = safe_text(one_line, newlines=True, whole="Ctrl+G copies it whole").splitlines()
    assert shown[0] == "\\x1b" + "b" * (MAX_BLOCK_CHARS - 1)
    assert (
        shown[1] == f"… (1 more line, {200_001 - MAX_BLOCK_CHARS:,} more characters; Ctrl+G copies it whole)"
    )
    assert safe_text(code, newlines=True, limit=None) == code
    within = "x\n" * MAX_BLOCK_LINES
    assert safe_text(within, newlines=True) == within


def test_a_task_with_combining_marks_keeps_its_file_name_whole_and_as_typed() -> None:
    """Break-it round 20, R20-2: a path pasted decomposed (NFD, as macOS keeps file names) was cut at each
    combining mark: "copy /home/me/Re\\u0301sume\\u0301.pdf to /tmp/x" -> shutil.copy('/home/me/Re', ...).
    Round 21, R21-1: putting the task in NFC changed the name's bytes (another, missing file on Linux).
    The task is kept as typed, and filling's values take the name whole, in its own characters."""
    typed = "copy /home/me/Re\u0301sume\u0301.pdf to /tmp/x"
    task, warnings = clean_task(typed)
    assert (task, warnings) == (typed, [])
    strings = [c for c in TaskValues.of(task).strings if c.atomic]
    assert [c.value for c in strings] == ["/home/me/Re\u0301sume\u0301.pdf", "/tmp/x"]
    assert strings[0].text == repr("/home/me/Re\u0301sume\u0301.pdf")
    assert [c.value for c in TaskValues.of("copy a\u0301.txt to b\u0308.txt").strings if c.atomic] == [
        "a\u0301.txt",
        "b\u0308.txt",
    ]


@pytest.mark.parametrize("name", ["a\u200bb.txt", "\u202etxt.exe", "\u2603\ufe0f.txt", "caf\u00e9\u0301.txt"])
def test_invisible_characters_and_symbols_stay_in_a_path(name: str) -> None:
    """Break-it round 22, R22-5: a zero-width space, a right-to-left override or an emoji cut a path where it
    stood ("read the text file /tmp/u/\u202etxt.exe" got ``open('txt.exe', 'w')``, a write on another file).
    The path is one value, in the task's own characters."""
    task = f"read the text file /tmp/u/{name}"
    assert [c.value for c in TaskValues.of(task).strings if c.atomic] == [f"/tmp/u/{name}"]


@pytest.mark.parametrize("task", ["\u200b\u200b\u200b", "\ufeff", " \u2060 \u00ad ", "\u200d\x1b[0m\u200c"])
def test_a_task_of_invisible_format_characters_is_empty(task: str) -> None:
    """Zero-width and other format characters (Unicode category Cf) show nothing: a task of them alone is
    "the task is empty" as one of blanks or control characters is (break-it round 32, item 10: three
    U+200B were answered with a call). Inside a word they stay as typed."""
    from gorilla_tui.errors import UsageError

    with pytest.raises(UsageError, match="the task is empty"):
        clean_task(task)
    assert clean_task("read my\u200bfile.txt")[0] == "read my\u200bfile.txt"
