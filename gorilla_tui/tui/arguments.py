"""Where each value of a filled call came from, for the proposal panel (types.Argument.origin): the call with
each argument's value marked by its origin, and the one line under it ("from your task: secs=10 · needs:
src, dst").

The values are found in the call by Python's own parser (ast, never evaluated); a value is marked only
where the call holds exactly the argument's text, so arguments that no longer describe the call (a call
edited since it was filled) mark nothing in it. Every text shown goes through textsafe.safe_text.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Sequence

from rich.syntax import Syntax
from rich.text import Text

from gorilla_tui.textsafe import safe_text
from gorilla_tui.types import Argument

#: The style of a value in the call and in the line under it, per origin (types.ARGUMENT_ORIGINS): the
#: task's values stand out, a placeholder to fill in is a warning, a default is dim, a doc's value is set
#: apart in italics. Rich styles laid over the syntax colours (Syntax.stylize_range).
ORIGIN_STYLES = {
    "task": "bold underline",
    "doc": "italic",
    "default": "dim",
    "method": "dim italic",
    "variable": "bold italic",
    "missing": "bold black on yellow",
}
#: The words that start each group of the line under the call, in the order the groups are shown: what is
#: still to fill in first (the panel cuts a long line at its end).
ORIGIN_WORDS = {"missing": "needs", "task": "from your task", "doc": "from the doc", "default": "default",
                "method": "for the method", "variable": "your variable"}  # fmt: skip
#: The style of the task's values no argument holds (Proposal.unused) in the line under the call.
UNUSED_STYLE = "yellow"
#: Longest value shown in the line under the call (characters); a longer one ends with "…" (the call above
#: shows it whole).
VALUE_CHARS = 30
#: Between two groups of the line under the call.
GROUP_SEPARATOR = " · "

#: The line ends Python's tokenizer counts (ast line numbers): \r\n, \r and \n (not str.splitlines' others).
_LINE_END = re.compile(r"\r\n|\r|\n")


def _outer_calls(node: ast.AST) -> Iterator[ast.Call]:
    """The calls of `node` not inside another call's arguments, in source order (``a(1)\\nb(2)`` -> a, b;
    ``Path().mkdir(parents=True)`` -> mkdir's call only)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Call):
            yield child
        else:
            yield from _outer_calls(child)


def _char_offset(text: str, line_starts: Sequence[int], lineno: int, col: int) -> int:
    """The character offset in `text` of ast position (lineno 1-based, col in UTF-8 bytes of that line)."""
    start = line_starts[lineno - 1]
    end = line_starts[lineno] if lineno < len(line_starts) else len(text)
    head = text[start:end].encode("utf-8", "surrogatepass")[:col]
    return start + len(head.decode("utf-8", "ignore"))


def value_spans(call: str, arguments: Sequence[Argument]) -> list[tuple[int, int, str]]:
    """Where each argument's value is in `call`, as (start, end, origin) character offsets, in call order.

    Argument.call picks the call among the outer calls of `call` (_outer_calls); an argument given by
    keyword is its keyword's value, the others take the call's positional arguments in order (as
    fill/render.py render writes them: positional first). An argument whose value is not exactly
    Argument.value there is left out, and so is every argument of a call Python cannot parse: [] then.
    """
    if not arguments:
        return []
    try:
        calls = list(_outer_calls(ast.parse(call)))
    except (SyntaxError, ValueError, MemoryError, RecursionError):  # ValueError: NUL, UnicodeError
        return []
    line_starts = [0, *(m.end() for m in _LINE_END.finditer(call))]
    spans = []
    for index, node in enumerate(calls):
        keywords = {kw.arg: kw.value for kw in node.keywords if kw.arg is not None}
        positional = iter(a for a in node.args if not isinstance(a, ast.Starred))
        for arg in (a for a in arguments if a.call == index):
            value = keywords.get(arg.name) if arg.name in keywords else next(positional, None)
            if value is None or value.end_lineno is None or value.end_col_offset is None:
                continue
            start = _char_offset(call, line_starts, value.lineno, value.col_offset)
            end = _char_offset(call, line_starts, value.end_lineno, value.end_col_offset)
            if call[start:end] == arg.value:
                spans.append((start, end, arg.origin))
    return sorted(spans)


def _escaped(call: str, spans: Sequence[tuple[int, int, str]]) -> tuple[str, list[tuple[int, int, str]]]:
    """`call` made safe (safe_text, a piece at a time: it replaces character by character) and the spans'
    offsets in the safe text."""
    pieces: list[str] = []
    moved = []
    pos = size = 0
    for start, end, origin in spans:
        before, value = safe_text(call[pos:start], newlines=True), safe_text(call[start:end], newlines=True)
        pieces += [before, value]
        moved.append((size + len(before), size + len(before) + len(value), origin))
        size += len(before) + len(value)
        pos = end
    pieces.append(safe_text(call[pos:], newlines=True))
    return "".join(pieces), moved


def _position(text: str, offset: int) -> tuple[int, int]:
    """(line 1-based, column 0-based) of character `offset` in `text`, as Syntax.stylize_range takes it."""
    line = text.count("\n", 0, offset)
    return line + 1, offset - (text.rfind("\n", 0, offset) + 1)


def marked_call(call: str, arguments: Sequence[Argument], theme: str) -> Syntax:
    """`call` highlighted as Python (rich Syntax, `theme`), word-wrapped, with each argument's value in the
    style of its origin (ORIGIN_STYLES, at value_spans). The text is safe_text's: escape sequences are
    shown, never sent. Leading and trailing newlines are dropped (the lexer drops them too, which would
    move the marks)."""
    call = call.strip("\n")
    code, spans = _escaped(call, value_spans(call, arguments))
    syntax = Syntax(code, "python", theme=theme, word_wrap=True)
    for start, end, origin in spans:
        syntax.stylize_range(ORIGIN_STYLES.get(origin, ""), _position(code, start), _position(code, end))
    return syntax


def _clip(value: str) -> str:
    return value if len(value) <= VALUE_CHARS else value[: VALUE_CHARS - 1] + "…"


def arguments_line(arguments: Sequence[Argument], unused: Sequence[str] = ()) -> Text:
    """One line saying where the values came from, grouped by origin in ORIGIN_WORDS' order: "needs: dst ·
    from your task: src='a.txt', n=3 · default: follow_symlinks=True" (each value in its origin's style,
    cut at VALUE_CHARS; a placeholder by its name alone). Empty Text without arguments. Names and values
    are safe_text'd on one line (no newline); the panel cuts the line with an ellipsis. `unused`: the task's
    values no argument holds (Proposal.unused), last, as "not in the call: setup.py"."""
    line = Text(no_wrap=True, overflow="ellipsis")
    for origin, words in ORIGIN_WORDS.items():
        group = [a for a in arguments if a.origin == origin]
        if not group:
            continue
        if line:
            line.append(GROUP_SEPARATOR, style="dim")
        line.append(f"{words}: ", style="bold" if origin == "missing" else "")
        for i, arg in enumerate(group):
            if i:
                line.append(", ")
            name = safe_text(arg.name)
            if origin == "missing":
                line.append(name, style=ORIGIN_STYLES[origin])
            else:
                line.append(f"{name}=")
                line.append(safe_text(_clip(arg.value)), style=ORIGIN_STYLES[origin])
    if unused:
        if line:
            line.append(GROUP_SEPARATOR, style="dim")
        line.append("not in the call: ", style="bold")
        line.append(", ".join(safe_text(_clip(u)) for u in unused), style=UNUSED_STYLE)
    return line
