"""Literal values in a task replaced by the word of their kind before retrieval (issue 37): the retriever
sees what the person wants done, not the values it is done with.

"Save the page at https://example.org/index.html to page.html" found `html.escape` (the words html, index and
page of the URL and the file name); searched as "Save the page at url to html file" it finds
`urllib.request.urlretrieve`. The values still matter to the rest of an ask: constraints are parsed from the
task as typed (constraints/rank.py), and the filling of a call's arguments reads them from it too; only
the text BM25, the dense side and source routing search with is masked (ApiIndex.search). Doc texts are
never masked, so a stored index needs no rebuild (tokenize.TOKENIZER_VERSION is unchanged).

`intent_text` is the search text: the input a colon hands over left out (query/handover.py), British
spellings put in American ones (query/spelling.py), then the literal values masked.

The rules were chosen on the dev halves of bench/data/literal_tasks.toml, bench/everyday_tasks.toml and the
hub dev splits (bench/literals.py; docs/benchmarks.md "Literal values in tasks (retrieval)").
"""

from __future__ import annotations

import builtins
import keyword
import re
from collections.abc import Container

from gorilla_tui.retrieve.query.handover import TRAILING as _TRAILING
from gorilla_tui.retrieve.query.handover import without_input
from gorilla_tui.retrieve.query.spelling import american_spelling

#: File extensions a name must end with to be read as a file name ("report_old.csv", "a.zip"): common data,
#: document, media, archive, config and source files. Left out: extensions that are also attribute names of
#: APIs a task may name ("threading.Lock", "x.key", "os.environ": lock, key, env, bin), of frameworks
#: ("Node.js": js) and one-letter ones (c, h).
FILE_EXTENSIONS = frozenset(
    """csv tsv json jsonl ndjson xml html htm txt log md rst pdf doc docx xls xlsx ods odt ppt pptx rtf epub
    zip gz tgz tar bz2 xz 7z rar zst png jpg jpeg gif bmp tif tiff webp svg ico heic mp3 wav flac ogg m4a aac
    mp4 avi mkv mov webm ini cfg conf toml yaml yml db sqlite sqlite3 pkl pickle npy npz h5 hdf5 pt pth onnx
    safetensors gguf parquet feather arrow py ipynb sh bat ps1 css sql dat bak tmp iso whl pem crt csr der
    ics vcf eml mbox ttf otf woff woff2 mid midi srt vtt""".split()
)
#: Top-level domains a bare host name must end with to be read as one ("ping example.com"): common generic
#: ones only, as a dotted API name may end with a country code or a short word ("pandas.io").
HOST_TLDS = frozenset("com org net edu gov".split())
#: Acronyms a number after them belongs to ("ISO 8601", "RFC 3339", "PEP 8"): the number is kept.
NUMBERED_STANDARDS = frozenset("iso rfc pep utf ecma ieee cp iec ansi".split())
#: Units glued to a number ("10s", "5MB") and the word the pair becomes: the quantity's kind.
UNIT_WORDS = {
    "ms": "milliseconds",
    "s": "seconds",
    "sec": "seconds",
    "secs": "seconds",
    "min": "minutes",
    "mins": "minutes",
    "h": "hours",
    "hr": "hours",
    "hrs": "hours",
    "kb": "size",
    "mb": "size",
    "gb": "size",
    "tb": "size",
    "px": "pixels",
}
#: Words right before a name with one slash between two plain words that make it a place ("copy src to
#: backup/src"); elsewhere such a name is read as words ("read/write", "TCP/IP", "text/plain").
PLACE_WORDS = frozenset("to in into from under at inside folder directory dir path".split())

# Every pattern is linear in the length of the text: each alternative that repeats a character class starts
# only where the character before is outside that class (a lookbehind), so no run is scanned from each of its
# positions (tests/unit/test_literals.py times adversarial inputs).
_URL = r"(?P<url>\b(?P<scheme>[a-z][a-z0-9+.-]{1,15})://[^\s<>\"'`]+|\bwww\.[^\s<>\"'`]+)"
_EMAIL = r"(?P<email>(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+)"
_IP = r"(?P<ip>(?<![\w.])\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?(?![\w.]*\w))"
_DATE = (
    r"(?P<date>(?<![\w./-])(?:\d{4}-\d{1,2}-\d{1,2}|\d{1,2}/\d{1,2}/\d{2,4}|\d{1,2}\.\d{1,2}\.\d{4})"
    r"(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:\s?[ap]\.?m\.?|Z|[+-]\d{2}:?\d{2})?)?(?![\w/-]))"
)
_TIME = r"(?P<time>(?<![\w:.])\d{1,2}:\d{2}(?::\d{2})?(?:\s?[ap]\.?m\.?)?(?![\w:]))"
#: A no-break space inside a path ("/tmp/my\u00a0file.txt", "C:\\my\u00a0docs", "backup/my\u00a0file.txt"):
#: part of the name after its first separator, as filling reads it (fill/shadow.py PATH_TOKEN); read
#: as a space, "/tmp/my" became "path" and the search (then the model's choice) changed: os.path.splitext
#: for "delete the file /tmp/my\u00a0file.txt" (break-it round 27, R27-6). U+00A0, U+2007, U+202F, U+3000.
_NB = "[\u00a0\u2007\u202f\u3000]"
_WINDOWS = (
    rf"(?P<win>\b[A-Za-z]:[\\/][^\s\"'`<>|*?]*(?:{_NB}[^\s\"'`<>|*?]+)*"
    rf"|(?<!\\)\\\\[^\s\"'`<>|*?]+(?:{_NB}[^\s\"'`<>|*?]+)*)"
)
#: A path from the root, the home folder or the current one ("/var/log", "~/notes", "./build"), or "~".
_ROOTED = (
    rf"(?P<rooted>(?<![\w.~/\\-])(?:~|\.{{1,2}})?/[\w.@+~-]+(?:{_NB}[\w.@+~-]+)*"
    rf"(?:/[\w.@+~-]*(?:{_NB}[\w.@+~-]+)*)*|(?<![\w.~/\\-])~(?!\w))"
)
#: A name with slashes ("backup/src", "src/main.py", "pytorch/vision", "build/"): a path, a repository or a
#: model id.
_SLASHED = (
    rf"(?P<slashed>(?<![\w.@+/~:\\-])(?:[\w.@+-]+(?:/[\w.@+:-]+(?:{_NB}[\w.@+:-]+)*)+/?"
    r"|[\w.@+-]{2,}/(?![\w/])))"
)
_GLOB = r"(?P<glob>(?<![\w.])\*\.(?P<glob_ext>[A-Za-z0-9]{1,10})\b)"
_EXT = "|".join(sorted(FILE_EXTENSIONS, key=len, reverse=True))
_FILE = rf"(?P<file>(?<![\w./\\-])[\w-][\w.-]*\.(?P<ext>{_EXT})(?![\w(-]|\.\w))"
_TLDS = "|".join(sorted(HOST_TLDS))
_HOST = (
    rf"(?P<host>(?<![\w./@-])(?:(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+(?:{_TLDS})|localhost)"
    r"(?P<port>:\d{1,5})?(?![\w-]|\.\w))"
)
_UUID = r"(?P<uuid>\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b)"
_HEX = r"(?P<hex>\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{16,}\b)"
_NUMBER = (
    r"(?P<number>(?<![\w.,/:-])[$€£¥]?[-+]?\d+(?:[.,]\d+)*(?:\s?%|(?P<unit>[a-z]{1,4})\b)?(?![\w-]|[.,]\d))"
)
_LITERAL_RE = re.compile(
    "|".join((_URL, _EMAIL, _IP, _DATE, _TIME, _WINDOWS, _ROOTED, _SLASHED, _GLOB, _FILE, _HOST, _UUID, _HEX,
              _NUMBER)),
    re.IGNORECASE,
)  # fmt: skip
_WORD_BEFORE_RE = re.compile(r"([A-Za-z]+)\W{0,2}$")
_WORD_PAIR_RE = re.compile(r"[A-Za-z]+/[A-Za-z]+")
#: A variable name in backticks, as StackOverflow titles write them ("sort dict `scores` by value", "reverse a
#: list `array`"): one identifier, no dots or spaces. The person chose it; it names their value, not what
#: they want done, so it is dropped before retrieval (issue 38: `scores` sent "sort dict `scores` by value,
#: highest first" to Hugging Face's cross-encoders, which "score" text pairs). Chosen on the dev half of
#: CoNaLa (bench/conala.py, BM25: oracle in 5 hits / at hit 1 48.5 / 25.7 -> 51.5 / 26.7 %; replaced by
#: "variable" instead: 46.5 / 23.8); no other dev set has one.
_VARIABLE_RE = re.compile(r"[A-Za-z_]\w*")
#: ... except a builtin's name or a keyword, which names the API or the construct asked about ("use `zip`",
#: "`sorted` with a key", "`lambda` in a sort").
KEPT_NAMES = frozenset(dir(builtins)) | frozenset(keyword.kwlist)
#: A value quoted as StackOverflow titles quote them (issue 38 item 3): single quotes around a string, a
#: name or a statement ("check if a global variable 'myVar' exists", "key 'ratio'", "execute sql query
#: 'INSERT INTO ...'"), or backticks around a variable name (_VARIABLE_RE) or a data literal (`[1, 2, 3]`,
#: `{'a': 1}`, `(34.2, -64.2)`); other backticked code (a command, a dotted API name, `-x`) is not one ("run
#: `git status`"). Backticked spans pair up from the left, so "from `-x` to `y`" never reads "` to `". An
#: apostrophe is no quote: the opening one follows no word character ("today's", "the users' names").
_QUOTED_RE = re.compile(r"`([^`\n]*)`|(?<![\w'`])'([^'\n]+)'(?![\w'])")
#: A dotted name ('os.path.join', 'df.groupby'): it names an API, so it stays in quotes.
_DOTTED_RE = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")


def _quoted_value(m: re.Match[str]) -> str:
    """What retrieval reads of one quoted value (_QUOTED_RE). In backticks: a variable name (_VARIABLE_RE)
    or a data literal (starting with a bracket or a quote) is dropped, other code stays. In single quotes: a
    literal of a kind _LITERAL_RE names ('myfile.txt', 'https://x.org', '2024-05-01': its kind word
    follows) loses its quotes; a builtin's name or a keyword ('True', 'None'), a dotted name and a
    subscript's key (dict['name']) stay; anything else, the person's own value, is dropped. Single quotes
    dropped, CoNaLa's dev half (bench/conala.py, retrieval as shipped) had an oracle in the first 5 hits for
    72 -> 74 of 101 intents, at hit 1 49 -> 49 ("execute sql query 'INSERT INTO table VALUES(...)' with all
    parameters in list `tup`": 'INSERT', 'INTO' and 'table' had sent it to list.insert and socket names)."""
    code = m.group(1)
    if code is not None:
        name = _VARIABLE_RE.fullmatch(code.strip())
        if name is not None:
            return m.group() if name.group() in KEPT_NAMES else " "
        return " " if code.lstrip()[:1] in "[{(\"'" else m.group()
    value = m.group(2).strip()
    if m.string[m.start() - 1 : m.start()] == "[" and m.string[m.end() : m.end() + 1] == "]":
        return m.group()  # a subscript's key in code (dict['name'], df['col']): the code stays whole
    literal = _LITERAL_RE.fullmatch(value)
    if literal is not None:
        return " " if literal.lastgroup in ("number", "hex") else f" {value} "
    return m.group() if value in KEPT_NAMES or _DOTTED_RE.fullmatch(value) else " "


#: A file or folder the task names by a bare word, after the word saying it is one: "a directory called
#: reports", "the folder old_build" (a name with "_" or a digit). The name is dropped, the kind word stays:
#: "reports" carried "make a directory called reports" to a financial-reports model. A name with a dot is a
#: file name (_LITERAL_RE reads its extension); one followed by ":" is the scheme of a URL or a drive
#: ("the folder s3://bucket/"), which _LITERAL_RE masks whole.
_NAMED_FILE_RE = re.compile(
    r"\b((?:files?|folders?|dir(?:ectory|ectories)?|dirs)\s+)"
    r"(?:(?:named|called)\s+[\w-]+|[A-Za-z]*[_\d][\w-]*)(?![\w.:-])",
    re.IGNORECASE,
)
#: How far back a rule looks for the word before a literal (NUMBERED_STANDARDS, PLACE_WORDS), in characters.
_LOOK_BACK = 12


def _word_before(text: str, start: int) -> str:
    """The word right before position `start` of `text` (one or two non-word characters between), lower
    case, or ""; looks back _LOOK_BACK characters at most."""
    m = _WORD_BEFORE_RE.search(text, max(0, start - _LOOK_BACK), start)
    return m.group(1).casefold() if m else ""


#: The name-like token right before a number, white space between: "v2" of "mobilenet v2 130", "resnet".
_TOKEN_BEFORE_RE = re.compile(r"(?<![\w.-])([A-Za-z][\w.-]*|\d+)\s+$")
_DIGITS_RE = re.compile(r"\d+")
#: How far back a number looks for the name it may belong to, in characters.
_NAME_LOOK_BACK = 40


def _names_a_model(text: str, start: int, known: Container[str] | None, depth: int = 3) -> bool:
    """Whether the number at position `start` of `text` is part of a name written with spaces: the token
    before it has a digit ("mobilenet v2 130 224": a version, then its variant numbers), or joined to it
    is a term of `known` ("resnet 50" -> resnet50, "gpt 2" -> gpt2), or is a number that is (up to `depth`
    numbers back)."""
    m = _TOKEN_BEFORE_RE.search(text, max(0, start - _NAME_LOOK_BACK), start)
    if m is None:
        return False
    token = m.group(1).casefold()
    if token.isdigit():
        return depth > 0 and _names_a_model(text, m.start(1), known, depth - 1)
    if any(c.isdigit() for c in token):
        return True
    value = _DIGITS_RE.match(text, start)
    return known is not None and value is not None and token + value.group() in known


def _path_kind(path: str, text: str = "") -> str:
    """ "<ext> file" for a path whose last part has an extension of FILE_EXTENSIONS (_file_kind; "file name"
    when `text`, the task, asks about the name: _asks_about_name), else "directory" when it ends with a
    slash, else "path"."""
    last = re.split(r"[\\/]", path.rstrip("/\\"))[-1]
    ext = last.rpartition(".")[2].casefold() if "." in last.strip(".") else ""
    if ext in FILE_EXTENSIONS:
        return "file name" if _asks_about_name(text) else _file_kind(last)
    return "directory" if path.endswith(("/", "\\")) else "path"


#: Compressions a tar archive's name ends with after ".tar" ("backup.tar.gz"): its kind is a tar archive.
TAR_COMPRESSIONS = frozenset("gz bz2 xz zst".split())


def _file_kind(name: str) -> str:
    """The kind words of file name `name` (its extension in FILE_EXTENSIONS): "tar gz file" for a compressed
    tar archive ("archive.tar.gz": "gz file" alone found gzip.open first for "decompress archive.tar.gz into
    out", break-it round 30), else "<ext> file"."""
    parts = name.casefold().split(".")
    if len(parts) > 2 and parts[-2] == "tar" and parts[-1] in TAR_COMPRESSIONS:
        return f"tar {parts[-1]} file"
    return f"{parts[-1]} file"


#: Words of a request about a file's name itself, not its content: the file name is then its kind's word
#: ("get the file extension of archive.tar.gz" searched as "... of gz file" found gzip.open first).
NAME_PART_WORDS = frozenset("extension extensions suffix suffixes stem basename filename".split())


def _asks_about_name(text: str) -> bool:
    """Whether `text` asks about a file's name (NAME_PART_WORDS) rather than its content."""
    return any(w in NAME_PART_WORDS for w in re.findall(r"[a-z]+", text.casefold()))


def _replacement(m: re.Match[str], value: str, text: str, start: int, known: Container[str] | None) -> str:
    """The kind word(s) of `value`: the literal of match `m` of _LITERAL_RE (its trailing punctuation taken
    off), at position `start` of `text`; or `value` itself when it stays."""
    kind = m.lastgroup
    if kind == "url":
        scheme = (m.group("scheme") or "").casefold()
        return "url" if scheme in ("", "http", "https") else f"{scheme} url"
    if kind == "email":
        return "email address"
    if kind == "ip":
        return "ip address"
    if kind in ("date", "time"):
        return kind
    if kind in ("win", "rooted"):
        if value == "~":
            return "home directory"
        words = _path_kind(value, text)
        if (
            kind == "rooted"
            and known is not None
            and value.lstrip("/").casefold() in known
            and words == "path"
        ):
            # a REST path the pool names; a file name is a file's wherever the pool has it (a doc's question
            # "report.pdf from /home/me/report.pdf" made that path a term, and "copy /home/me/report.pdf to
            # /tmp/x" found os.path.basename first)
            return value
        return words
    if kind == "slashed":
        words = _path_kind(value, text)
        if words != "path":
            return words
        if known is None or value.casefold() in known:
            return value  # a repository or model id the pool names ("pytorch/vision"), or no index to ask
        if _WORD_PAIR_RE.fullmatch(value) and _word_before(text, start) not in PLACE_WORDS:
            return value  # words: "read/write", "TCP/IP", "text/plain"
        return words
    if kind == "glob":
        return f"{m.group('glob_ext').casefold()} files pattern"
    if kind == "file":
        if value.count(".") > 1 and known is not None and value.casefold() in known:
            return value  # a dotted name the pool uses ("pandas.io.json"), not a file
        if _asks_about_name(text):
            return "file name"
        return _file_kind(value)
    if kind == "host":
        return "host port" if m.group("port") else "host"
    if kind == "uuid":
        return "id"
    if kind == "hex":
        return ""
    if value.endswith("%") or _word_before(text, start) in NUMBERED_STANDARDS:
        return value  # "85% top-1 accuracy", "ISO 8601"
    if _names_a_model(text, start, known):
        return value  # "mobilenet v2 130 224", "resnet 50"
    unit = (m.group("unit") or "").casefold()
    return UNIT_WORDS.get(unit, value) if unit else ""


def intent_text(task: str, known: Container[str] | None = None) -> str:
    """The task with its literal values replaced by the word of their kind: what retrieval searches with.

    Args:
        task: the task as typed (any text).
        known: the index's vocabulary (ApiIndex.vocab: tokenize's terms, case-folded). A name with slashes
            and no file extension ("pytorch/vision", "backup/src") stays when it is a term of `known` (a Hub
            repository, a model id the pool names) and is read as a path otherwise; with `known` None every
            such name stays (nothing to tell them apart by).

    Returns:
        `task` with URLs -> "url" ("ftp url" for another scheme than http(s)); e-mail addresses -> "email
        address"; IPv4 addresses -> "ip address"; dates (2024-05-01, 05/01/2024) -> "date"; times (10:30)
        -> "time"; paths (/var/log, ~/notes, ./build, C:\\data, backup/src) -> "path", "directory" when they
        end with a slash, or the words of a file name when their last part is one; file names
        (report_old.csv: an extension of FILE_EXTENSIONS) -> "<extension> file" (the format is the file's
        kind: "read config.json" -> "read json file" finds json.load); glob patterns (*.txt) -> "txt files
        pattern"; host names (example.com: HOST_TLDS; localhost:8080) -> "host" ("host port"); UUIDs ->
        "id"; long hex strings -> nothing; a file or folder named by a bare word ("a directory called
        reports", "the folder old_build": _NAMED_FILE_RE) -> its kind word alone; numbers ($5, 3.14, 2,000)
        -> nothing, a glued unit -> its word (10s -> "seconds", UNIT_WORDS). Each kind word is given once:
        a repeat is dropped ("rename report_old.csv to report.csv" -> "rename csv file to"; kept twice,
        "csv" outweighed "rename"); a British spelling the index does not know -> the American one it
        knows (american_spelling: "summarise" -> "summarize"). White space is collapsed; the result may be
        "" (a task of values alone: callers then search the task).

    Stays as typed (each measured with bench/literals.py on the dev splits):
    - numbers inside a word (resnet50, top-1, utf-8, 224x224, GPT-2), after a numbered standard (ISO 8601,
      RFC 3339: NUMBERED_STANDARDS) and in a model's name written with spaces ("mobilenet v2 130 224",
      "resnet 50" when `known` has resnet50: _names_a_model);
    - percentages ("85% or more top-1 accuracy"): the Torch Hub docs' metadata states them; masked, 2 Torch
      Hub dev tasks lost their API from the top 5 (constraints are read from the task as typed anyway);
    - a pair of words with a slash (read/write, TCP/IP, text/plain) unless a place word (PLACE_WORDS: "to",
      "in", "folder"...) comes right before it;
    - quoted text ('...', "...", `...`), but for the literals inside it. Masked whole ("text"), it cost a
      Torch Hub dev task written inside quotes whole and Hugging Face dev tasks whose quoted example names
      the task type ("[MASK]", "yes", "no" and "stop"), and gained one literal dev task in the top 5. The
      input a colon hands over is left out, though (without_input: "is this review positive or negative: I
      loved it"), and so is a variable name alone in backticks (`scores`, `df`: _VARIABLE_RE; a builtin's
      name or a keyword stays).

    Never raises; runs in time linear in len(task).
    """
    seen: set[str] = set()

    def sub(m: re.Match[str]) -> str:
        value, start = m.group(), m.start()
        stripped = value.rstrip(_TRAILING) if m.lastgroup in ("url", "rooted", "slashed", "win") else value
        if stripped != value:  # "see https://x.org/a." : the full stop ends the sentence, not the URL
            again = _LITERAL_RE.fullmatch(stripped) if stripped else None
            if again is None:
                return value
            m = again
        words = _replacement(m, stripped, task, start, known)
        if words == stripped or not words:
            return words + value[len(stripped) :]
        if words in seen:  # each kind word once
            words = ""
        seen.add(words)
        return f" {words} {value[len(stripped) :]}"

    task = american_spelling(without_input(task), known)
    task = _QUOTED_RE.sub(_quoted_value, task)
    task = _NAMED_FILE_RE.sub(lambda m: m.group(1), task)
    task = _named_again(task)
    return " ".join(_LITERAL_RE.sub(sub, task).split())


#: A bare word right after a word saying it names a file or folder ("the folder assets"): _named_again.
_KIND_THEN_WORD_RE = re.compile(
    r"\b((?:files?|folders?|dir(?:ectory|ectories)?|dirs)\s+)([A-Za-z][\w-]*)(?![\w.:/\\-])", re.IGNORECASE
)
#: The parts of a path with a slash ("build/assets", "/mnt/backup/photos", "C:\\data\\photos").
_PATH_PART_RE = re.compile(r"[\w.@+~-]+")


def _named_again(task: str) -> str:
    """`task` without a bare word after a file or folder kind word that the task also writes as a part of a
    path ("copy the folder assets to build/assets" -> "copy the folder to build/assets"): written twice, it
    is the folder's name, not a word of the request; alone ("print the file contents") it stays. Session 13:
    "assets", in no standard-library doc, carried that task to a Hugging Face model (nothing fits)."""
    parts = {
        part.casefold()
        for token in task.split()
        if "/" in token or "\\" in token
        for part in _PATH_PART_RE.findall(token)
    }
    if not parts:
        return task
    return _KIND_THEN_WORD_RE.sub(lambda m: m.group(1) if m.group(2).casefold() in parts else m.group(), task)


__all__ = [
    "FILE_EXTENSIONS",
    "HOST_TLDS",
    "NUMBERED_STANDARDS",
    "PLACE_WORDS",
    "UNIT_WORDS",
    "intent_text",
]
