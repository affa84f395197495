"""Names of standards and text encodings that hold a number: "ISO 8601", "RFC 2822", "SHA-256", "UTF-8",
"ISO-8859-1", "latin-1". Each is one span of the task (fill/values.py _atoms): its digits are no number
value (the 8601 of "show the current time in ISO 8601" is no year, the 8 of "UTF-8" no count). A name
Python's codec registry knows (``codecs.lookup``: "UTF-8", "utf 16", "latin-1", "windows-1252") is a
string value, as the task writes it, for an ``encoding`` parameter; any other (a date format's, a hash's,
an RFC's) is no value at all.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Sequence

from gorilla_tui.fill.candidate import Candidate

#: A standard's or an encoding's name with its number: prefixes that take a space or a hyphen before the
#: number ("ISO 8601", "SHA-256", "UTF 16", "utf-16-le"), and encoding families written joined or with a
#: hyphen only ("latin-1", "cp1252", "windows-1252": "cp 3 files" is no code page).
STANDARD_NAME = re.compile(
    r"(?<![\w-])(?:(?:ISO|RFC|PEP|IEEE|ECMA|ANSI|UTF|UCS|SHA3?|MD|CRC)(?:[- ]?\d+)(?:-\d+)*"
    r"|(?:latin|cp|windows|koi8|mac|iso8859)-?\d+(?:-\d+)*)"
    r"(?:-(?:le|be|sig|r|u))?(?![\w-])",
    re.IGNORECASE,
)


def codec_name(text: str) -> str | None:
    """Python's canonical name of the text encoding `text` names ("UTF-8" -> "utf-8", "latin-1" ->
    "iso8859-1"), or None when the codec registry has none ("ISO 8601", "SHA-256") or it is no text
    encoding (``str.encode`` refuses "hex", "base64", "zip": bytes-to-bytes codecs)."""
    try:
        "".encode(text)
        return codecs.lookup(text).name
    except (LookupError, ValueError, TypeError):
        return None


def standard_spans(task: str) -> list[tuple[int, int]]:
    """(start, end) of each standard's or encoding's name in `task`, in order."""
    return [m.span() for m in STANDARD_NAME.finditer(task)]


def no_value(text: str) -> bool:
    """True for the name of a standard that is no value of a call: a STANDARD_NAME Python's codec
    registry does not know ("ISO 8601", "RFC 2822", "SHA-256"); an encoding's name is a string value."""
    return bool(STANDARD_NAME.fullmatch(text)) and codec_name(text) is None


#: Parameter names that take a text encoding's name (``open(encoding=)``, ``str.encode(encoding=)``,
#: ``bytes.decode``, ``email`` charsets).
ENCODING_PARAMS = frozenset(("encoding", "charset", "codec"))


def encodings(strings: Sequence[Candidate]) -> dict[str, Candidate]:
    """The text encodings among the task's string values, by literal ("'UTF-8'", "'ascii'"): a
    STANDARD_NAME or a single word that Python's codec registry knows as a text encoding (codec_name). An
    encoding parameter takes these and nothing else (fill/call_grammar.py slots: "read notes.txt as UTF-16"
    gives encoding='UTF-16', "encode the text" no encoding='encode the text')."""
    return {c.text: c for c in strings if isinstance(c.value, str) and codec_name(c.value) is not None
            and (STANDARD_NAME.fullmatch(c.value) or re.fullmatch(r"[\w-]+", c.value))}  # fmt: skip
