"""The task as filling's patterns read it (fill/call_grammar.py TaskValues.of): a path-shaped word read
whole, and characters no pattern takes (combining marks, format characters, symbols) read as a letter,
one character for one so that every span stays the task's; `as_typed` takes a value's text back from the
task as typed.
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata

from gorilla_tui.fill.candidate import Candidate, literal

#: Unicode categories read as letters inside a value: combining marks (nonspacing, spacing, enclosing),
#: format characters (a zero-width space, a bidirectional override) and other symbols (an emoji in a file
#: name: "\u2603\ufe0f.txt"). Each cut a path where it stood, and a read task got a write call on the rest
#: (break-it round 22, R22-5).
_MARKS = frozenset({"Mn", "Mc", "Me", "Cf", "So", "Co", "Cn", "Cs"})
#: A word shaped like a path or a file name (group "core"): after optional opening quotes or brackets, a run
#: of non-blanks that starts at the root, the home folder or "./", or ends in a file extension (a letter
#: then up to 7 letters or digits), before optional closing punctuation. A URL (fill/values.py _URL) or an
#: e-mail address (with "@") is none. Private-use, unassigned and symbol characters (currency, maths,
#: modifier: "\u20ac", "\u00b1", "^", "\u00b4") or a middle dot inside it cut the path where they stood,
#: and named another file (break-it round 24, R24-9). A no-break space (U+00A0, U+2007, U+202F, or an
#: ideographic space, U+3000) after a separator and before the file's extension is part of the file's name
#: ("/tmp/my\u00a0file.txt" was the file 'file.txt', break-it round 25, R25-5), and so is one inside a path
#: with no extension ("/tmp/no\u00a0break" was '/tmp/no', round 26, R26-3); one before the first separator
#: or after the extension ends the word, as a space does (and no such word starts after one: one start per
#: word keeps the reading linear). Any other white space ends a path: fill/unused.py says the words left.
PATH_TOKEN = re.compile(
    r"(?<!\S)[(\[\'\"`\u201c\u2018]*(?P<core>(?<![\u00a0\u2007\u202f\u3000])[^\s@/\\]*[/\\](?:[^\s@]|[\u00a0\u2007\u202f\u3000])*?"
    r"\.[A-Za-z][A-Za-z0-9]{0,7}|(?:/|~/|\.{1,2}/)(?:[^\s@]|[\u00a0\u2007\u202f\u3000])*?(?![\u00a0\u2007\u202f\u3000][^\s@])"
    r"|[^\s@]*?\.[A-Za-z][A-Za-z0-9]{0,7})"
    r"[)\]\'\"`\u201d\u2019.,;:!?]*(?!\S)"
)
#: What a path-shaped word keeps as it is: the characters fill/values.py's path patterns read (letters,
#: digits, "_", ".", "-", the separators, "~"), and those that end a value in a sentence (quotes: a
#: quoted value stays one; "," and ";" between two names).
_PATH_KEEPS = re.compile(r"[\w.\-/\\~'\"`,;\u201c\u201d\u2018\u2019]")


def _path_word(m: re.Match[str]) -> str:
    """The path-shaped word of `m` (PATH_TOKEN) with each character of its core that the path patterns
    do not read (_PATH_KEEPS) as MARK_STANDIN, one for one, so that the path's value is one span."""
    core = m.group("core")
    if "://" in core:
        return m.group(0)
    read = "".join(ch if _PATH_KEEPS.match(ch) else MARK_STANDIN for ch in core)
    start, end = m.span("core")
    return m.string[m.start() : start] + read + m.string[end : m.end()]


#: What TaskValues.of reads a combining mark as: a letter (``\\w``) no pattern names.
MARK_STANDIN = "\u00aa"


def as_typed(c: Candidate, task: str, shadowed: str) -> Candidate:
    """Candidate `c` of `shadowed` (shadow(task): each combining mark as MARK_STANDIN) with its string value
    taken from the same characters of `task`; `c` itself when it holds no stand-in."""
    if not isinstance(c.value, str) or MARK_STANDIN not in c.value or c.start < 0:
        return c
    off = shadowed[c.start : c.end].find(c.value)
    if off < 0:
        return c
    value = task[c.start + off : c.start + off + len(c.value)]
    return dataclasses.replace(c, text=literal(value), value=value)


def shadow(task: str) -> str:
    """`task` with each path-shaped word (PATH_TOKEN) read whole (_path_word) and each character of _MARKS
    as MARK_STANDIN: a string of the same length, whose spans are the task's."""
    shadowed = PATH_TOKEN.sub(_path_word, task)
    return "".join(MARK_STANDIN if unicodedata.category(ch) in _MARKS else ch for ch in shadowed)
