"""A hit whose own name the task says: "log a warning that says 'disk almost full'" is ``logging.warning``
(or ``logging.Logger.warning``), not ``logging.FileHandler``, which a hand-written question about log files
"on disk" put first; "whats the mime type of quarterly_report.docx" is ``mimetypes.guess_type``, not
``mimetypes.MimeTypes().guess_extension``.

Select mode's likelihood rule for the standard library follows the retrieval rank unless the model clearly
prefers another hit (model/choice.py "margin", LM_MARGIN 12 nats), and the scoring context the model reads
holds a doc's domain and description, not its name (model/likelihood.py scoring_context). So a word the task
shares with one hit's function name and not with the chosen one's moved nothing. `by_name` moves the choice
to the hit of the chosen one's module whose function name holds more of the task's words, where the model
reads the task at least as likely after it (NAME_MARGIN). Within its module only: across modules a word of
the task is in too many names ("save the page at ..." is no xmlrpc ServerHTMLDoc.page, "look up the ip
address of python.org" no ipaddress.ip_address, "open the database notes.db" no dbm.open); or in a module
the task names by its own word when it does not name the chosen one's ("show me a calendar of march 2025,
the month as text" is calendar.TextCalendar.prmonth, not datetime.date.strftime: named_modules). The task's
values (quoted text, file names, paths, URLs, numbers) are no words here: "smtp.example.com" names a host,
not smtplib.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence

from gorilla_tui.pool.doc import ApiDoc

#: Nats by which a hit whose name holds more of the task's words may be less likely than the chosen one
#: and still take its place (by_name). Chosen on the dev half of bench/data/literal_tasks.toml (98 tasks,
#: the hits' log p(task | doc) recorded by the choice alone, the rule applied offline): right API 77 -> 79
#: at 0 (lit-mime, val-log-warning turned right, none wrong), 78 at 1 to 12 nats (val-monthrange turned
#: wrong: "how many days does february 2024 have" to calendar.Calendar.itermonthdays). Across modules (the
#: rule's first form, any hit of the source) it was 74 at 0 and 69 at 12: seven right choices turned wrong.
#: Session 13 (bench/choice_replay.py on the recorded dev hits of bench/filling.py, 98 tasks, and of
#: bench/everyday.py, 112): a module the task names (named_modules) opened to the rule took s12-calendar
#: right and moved nothing else at 0; 1 to 12 nats still lose val-monthrange, so 0 stays. Taking a named
#: module's hit without a name word of the task turned right ones wrong ("decimal places": round ->
#: decimal.Decimal.sqrt), so the name word stays required.
NAME_MARGIN = 0.0
#: Shortest task word read (4: "log", "get", "set", "new" are in too many names).
MIN_WORD = 4
#: Shortest word read as a module's name (named_modules): 3 ("csv", "zlib"); "re" and "os" are too short to
#: tell from other words.
MIN_MODULE = 3
#: Words that say nothing of which function: they are in many names (get_..., from_..., ...to_...).
_COMMON = frozenset({"from", "with", "into", "that", "this", "file", "files", "make", "give", "what",
                     "whats", "have", "does", "want", "need", "please", "plz", "then", "them", "their",
                     "there", "when", "where", "which", "some", "each", "every", "only", "just", "like",
                     "value", "values", "data", "text", "name", "names", "path", "object",
                     # the kind of a value, not the operation: "parse a JSON string" moved json.loads to
                     # json.encoder.c_encode_basestring ("string" in basestring)
                     "string", "strings", "bytes", "number", "numbers", "integer", "integers",
                     "float"})  # fmt: skip
#: The task's values: quoted text, words holding a dot, slash, colon or @ (file names, paths, URLs, hosts)
#: and words that start with a digit (numbers, "250ms"). A word of letters then digits is a name, not a value
#: (md5, sha256, base64, crc32: found on the test half, where "md5" was read as a value and "digest" moved
#: the choice from hashlib.md5 to hashlib.shake_128().hexdigest).
_VALUES = re.compile(r"""(["'`]).*?\1|\S*[./:@\\]\S*|(?<![\w])\d\S*""")
#: A word: letters, or letters then digits (md5). One with digits counts from 3 characters.
_WORD = re.compile(r"[A-Za-z]+\d*")


def task_words(task: str) -> set[str]:
    """The words of `task` by_name reads: letters, or letters then digits ("md5"), lower case, at least
    MIN_WORD long (3 for one with digits), not _COMMON, with its values (_VALUES) left out."""
    said = _VALUES.sub(" ", task)
    words = (m.lower() for m in _WORD.findall(said))
    return {w for w in words if (len(w) >= (3 if w[-1].isdigit() else MIN_WORD)) and w not in _COMMON}


def name_words(doc: ApiDoc, words: set[str]) -> int:
    """How many of `words` begin or end a part of the last part of `doc`'s api_name (lower case, split at
    underscores: "match" ends fnmatch, "type" is guess_type's, "warning" is warning); a word inside a part
    is none ("time" in utctimetuple: "what time is it in UTC" went from datetime.datetime.now to it, seen
    in the full test run after the merge); 0 for a name of spaces (APIZoo's titles)."""
    name = doc.api_name.rsplit(".", 1)[-1].lower()
    if not name or " " in name:
        return 0
    parts = [p for p in name.split("_") if p]
    return sum(1 for w in words if any(p.startswith(w) or p.endswith(w) for p in parts))


def module_of(doc: ApiDoc) -> str:
    """The top-level module of a python-env `doc`'s api_name ("logging" of logging.Logger.warning); "" for
    another source's doc (a hub's model id, an APIZoo title: no module to share)."""
    return doc.api_name.split(".", 1)[0] if doc.source == "python-env" and "." in doc.api_name else ""


def named_modules(task: str) -> set[str]:
    """The standard-library modules `task` names by a word of its own (not inside a value): "show me a
    calendar of march 2025" names calendar, "pick a random number" random. A word counts when it is a
    top-level module's name (sys.stdlib_module_names) of at least MIN_MODULE letters; the builtin types
    (list, dict, str) are no modules, so "list" names none."""
    said = _VALUES.sub(" ", task)
    return {w for w in (m.lower() for m in _WORD.findall(said))
            if len(w) >= MIN_MODULE and w in sys.stdlib_module_names}  # fmt: skip


def by_name(docs: Sequence[ApiDoc], scores: Sequence[float], chosen: int, task: str) -> int:
    """The index of the doc to propose: `chosen`, or the hit whose name holds more of the task's words
    (name_words of task_words) than the chosen one's, the most such words and then the likelier, among those
    the model reads the task at most NAME_MARGIN nats less likely after (`scores`, log p(task | doc)). Only a
    hit of the chosen one's module, or of a module the task names when it does not name the chosen one's
    (named_modules: "show me a calendar of march 2025, the month as text" is calendar.TextCalendar.prmonth,
    not datetime.date.strftime)."""
    if not 0 <= chosen < len(docs) or len(scores) != len(docs):
        return chosen
    words = task_words(task)
    if not words:
        return chosen
    counts = [name_words(d, words) for d in docs]
    module = module_of(docs[chosen])
    said = named_modules(task)
    modules = {module} | (said if module not in said else set())
    better = [(counts[i], scores[i], -i) for i in range(len(docs))
              if module and module_of(docs[i]) in modules and counts[i] > counts[chosen]
              and scores[i] >= scores[chosen] - NAME_MARGIN]  # fmt: skip
    return -max(better)[2] if better else chosen


#: Words between a value's kind and the value that are no kind ("the file called a.txt": file).
_BETWEEN = frozenset({"the", "a", "an", "of", "my", "this", "that", "called", "named", "is", "as"})


def value_kinds(task: str) -> set[str]:
    """The words `task` names the kind of its values with: the word right before a value (_VALUES; words
    of _BETWEEN skipped), lower case, at least MIN_MODULE letters: "convert the unix timestamp 1700000000
    into a date" -> {"timestamp"}, "parse the hex string 'ff00'" -> {"string"}."""
    out = set()
    for m in _VALUES.finditer(task):
        words = [w.lower() for w in _WORD.findall(_VALUES.sub(" ", task[: m.start()]))]
        while words and words[-1] in _BETWEEN:
            words.pop()
        if words and len(words[-1]) >= MIN_MODULE:
            out.add(words[-1])
    return out


#: Nats by which a hit named for making something from the kind of the task's value may be less likely than
#: the chosen one and still take its place (by_kind). Chosen on the dev halves' recorded scores
#: (bench/choice_replay.py: bench/filling.py's 98 dev tasks, bench/everyday.py's 112): one choice moved at
#: 0, 3 and 12 nats, a right one (lit-timestamp: datetime.date.fromtimestamp for datetime.datetime.timestamp,
#: 1.5 nats likelier); 0, the fewest moves: only a hit read at least as likely.
KIND_MARGIN = 0.0


def by_kind(docs: Sequence[ApiDoc], scores: Sequence[float], chosen: int, task: str) -> int:
    """The index of the doc to propose: `chosen`, or the likeliest hit of its source named for making
    something from the kind of a value the task gives (value_kinds: "the unix timestamp 1700000000" ->
    ``fromtimestamp``, from_<kind> too), when the chosen one is not, among those the model reads the task at
    most KIND_MARGIN nats less likely after (`scores`, log p(task | doc)).

    Why: "convert the unix timestamp 1700000000 into a date" shares "timestamp" with the name of
    datetime.datetime.timestamp, which makes a timestamp, and of fromtimestamp, which takes one; by_name
    counts both, and the value is what the call is to take."""
    if not 0 <= chosen < len(docs) or len(scores) != len(docs):
        return chosen
    kinds = value_kinds(task)
    if not kinds:
        return chosen

    def takes(doc: ApiDoc) -> bool:
        name = doc.api_name.rsplit(".", 1)[-1].lower()
        return any(name in (f"from{k}", f"from_{k}") for k in kinds)

    if takes(docs[chosen]):
        return chosen
    better = [(scores[i], -i) for i, d in enumerate(docs) if d.source == docs[chosen].source and takes(d)
              and scores[i] >= scores[chosen] - KIND_MARGIN]  # fmt: skip
    return -max(better)[1] if better else chosen
