"""Which way a task goes between modalities, and model docs that go the other way (issue 38).

A model hub's domain often names a direction: "Audio Text-to-Speech" turns text into speech, "Audio Automatic
Speech Recognition" and "Audio Speech-to-Text" speech into text, "Multimodal Image-to-Text" an image into
text. Words alone do not carry it: "transcribe a podcast episode to text with a hugging face speech model"
shares "text" and "speech" with every text-to-speech model, and on the default index all five of its hits
were text-to-speech models (bench/everyday.py, dev half: hf-asr, pw-hf-asr). A task that states where it goes
("... into text", "to speech", "transcribe ...", "read it out loud") or where it comes from ("from a text
prompt") contradicts a doc whose domain ends or starts elsewhere (the other way, or audio-to-audio for a
task that wants text); the search leaves such docs out of the hits
(retrieve/index.py ApiIndex.search, REVERSED_DEPTH), and when the task states both ends and none of its
hits does exactly that, the best deeper doc that does takes the last place (one_that_does_it). Docs without
a direction in their domain (the standard library, APIZoo, "Image classification") are never left out, and
a task that states no direction leaves every doc in.

Two more rules rank docs that go against a task lower (issue 38, CoNaLa): readers for a task that writes
data out and writers for one that reads (io_direction, kept_in_io), and the docs of a big data library the
task does not name (unnamed_libraries, named_first).

"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from gorilla_tui.pool.doc import ApiDoc

_T = TypeVar("_T")

#: Modalities and the words that name them, in a task and in a domain (lower case; a plural "s" allowed).
MODALITY_WORDS: dict[str, tuple[str, ...]] = {
    "text": ("text", "transcript", "subtitle", "caption"),
    "audio": ("speech", "audio", "voice", "sound"),
    "image": ("image", "picture", "photo", "drawing", "painting"),
    "video": ("video",),
}
_WORD_MODALITY = {w: m for m, words in MODALITY_WORDS.items() for w in words}
_MOD = "|".join(sorted(_WORD_MODALITY, key=len, reverse=True))
#: Words that may stand between "to"/"from" and the modality word ("into plain text", "from a text prompt").
_FILLER = r"(?:(?:a|an|the|my|some|plain|written|spoken|normal|readable)\s+)*"
#: "... to text", "into speech", "as a picture": where the task goes.
_TO = re.compile(rf"\b(?:to|into|as)\s+{_FILLER}({_MOD})s?\b")
#: "from a text prompt", "from my voice": where the task comes from.
_FROM = re.compile(rf"\bfrom\s+{_FILLER}({_MOD})s?\b")
#: Verbs that state a whole direction on their own: (from, to).
_VERBS: tuple[tuple[re.Pattern[str], tuple[str | None, str | None]], ...] = (
    (re.compile(r"\btranscri(?:be|bes|bed|bing|ption|pt)\b"), ("audio", "text")),
    (re.compile(r"\b(?:out loud|aloud)\b"), (None, "audio")),
)
#: "X-to-Y" / "X2Y" in a domain ("Text-to-Speech", "Text2Text").
_DOMAIN_ARROW = re.compile(rf"\b({_MOD})s?\s*(?:-\s*to\s*-|\s+to\s+|2)\s*({_MOD})s?\b")
#: A task that states no direction (task_direction's answer then).
NO_DIRECTION: tuple[str | None, str | None] = (None, None)
#: Domains whose direction their name states in other words.
NAMED_DIRECTIONS: dict[str, tuple[str, str]] = {"automatic speech recognition": ("audio", "text")}


def domain_direction(domain: str) -> tuple[str, str] | None:
    """(from, to) modalities a doc's domain states ("Audio Text-to-Speech" -> ("text", "audio"); "Audio
    Automatic Speech Recognition" -> ("audio", "text")), or None when it states none ("Image
    classification", "", an APIZoo or standard-library doc)."""
    low = " ".join(domain.lower().split())
    for name, direction in NAMED_DIRECTIONS.items():
        if name in low:
            return direction
    m = _DOMAIN_ARROW.search(low)
    return (_WORD_MODALITY[m.group(1)], _WORD_MODALITY[m.group(2)]) if m else None


def task_direction(task: str) -> tuple[str | None, str | None]:
    """(from, to) modalities `task` states, each None when it states none: "transcribe a podcast episode to
    text" -> ("audio", "text"); "read a sentence out loud" -> (None, "audio"); "make a picture from a text
    prompt" -> ("text", None). The first statement of each side counts."""
    low = " ".join(task.lower().split())
    src: str | None = None
    dst: str | None = None
    for pattern, (a, b) in _VERBS:
        if pattern.search(low):
            src, dst = src or a, dst or b
    if dst is None and (m := _TO.search(low)):
        dst = _WORD_MODALITY[m.group(1)]
    if src is None and (m := _FROM.search(low)):
        src = _WORD_MODALITY[m.group(1)]
    return src, dst


def goes_against(task: tuple[str | None, str | None], domain: str) -> bool:
    """Whether a doc of `domain` does not do what a task of direction `task` (task_direction) states: the doc
    ends in another modality than the task goes to ("... to text" and a text-to-speech or audio-to-audio
    doc), or starts from another than the task comes from ("from a text prompt" and an image-to-text doc).
    False when either states no direction."""
    doc = domain_direction(domain) if any(task) else None
    if doc is None:
        return False
    src, dst = task
    return (dst is not None and dst != doc[1]) or (src is not None and src != doc[0])


def one_that_does_it(ranked: Sequence[_T], k: int, task: tuple[str | None, str | None],
                     domain_of: Callable[[_T], str]) -> list[_T]:  # fmt: skip
    """`ranked` (best first), with, when the task states both ends of its direction (task_direction:
    "transcribe ..." is audio to text) and none of the first k does exactly that, the best doc further down
    that does put in place k: the choice then has one hit of the kind the task asks for ("transcribe an
    mp3 of my lecture into text": speech recognition models ranked below chat and text-to-text models that
    share "text"). One hit, as source routing gives a close second source one (retrieve/routing.py
    ROUTING_MARGIN). Unchanged when the task states one end or none, or no doc of `ranked` does it."""
    if None in task or k < 1:
        return list(ranked)
    does = [domain_direction(domain_of(x)) == task for x in ranked]
    if any(does[:k]) or not any(does[k:]):
        return list(ranked)
    extra = does.index(True, k)
    return [*ranked[: k - 1], ranked[extra], *ranked[k - 1 : extra], *ranked[extra + 1 :]]


#: How deep a search looks for hits when the task states a direction and docs going the other way are left
#: out (retrieve/index.py ApiIndex._top): the k hits come from the REVERSED_DEPTH * k best of each pool.
REVERSED_DEPTH = 4


def search_depth(k: int, task: tuple[str | None, str | None], io: str | None = None) -> int:
    """How many of a pool's best docs to rank for k hits: REVERSED_DEPTH * k when the task states a direction
    (task_direction) or writes out or reads in (io_direction), else k."""
    return k * REVERSED_DEPTH if any(task) or io else k


def kept_in_direction(ranked: Sequence[_T], k: int, task: tuple[str | None, str | None],
                      domain_of: Callable[[_T], str]) -> list[_T]:  # fmt: skip
    """`ranked` (best first, search_depth deep) without the docs whose domain goes the other way
    (goes_against), and with one that does exactly what the task states put in place k (one_that_does_it).
    Unchanged when the task states no direction."""
    if not any(task):
        return list(ranked)
    kept = [x for x in ranked if not goes_against(task, domain_of(x))]
    return one_that_does_it(kept, k, task, domain_of)


#: Verbs of a task that writes data out and of one that reads it in (io_direction). "open", "import", "store"
#: and "parse" are neither: "store the output of a command in a variable", "import a module".
_WRITE_VERBS = re.compile(
    r"\b(?:write|writes|writing|wrote|written|save|saves|saving|saved|export|exports|exporting|exported"
    r"|dump|dumps|dumping)\b"
)
_READ_VERBS = re.compile(r"\b(?:read|reads|reading|load|loads|loading|loaded)\b")
#: The last part of an API name that reads in (pandas.read_csv, readlines, json.load, csv.reader,
#: csv.DictReader) or writes out (to_csv and pandas' other to_<format>, writelines, numpy.save, pickle.dump,
#: csv.DictWriter): matched at its start, a reader or writer class by its end.
_READ_NAME = re.compile(r"read|load|\w*reader$")
_WRITE_NAME = re.compile(
    r"write|save|dump|\w*writer$|to_(?:csv|excel|json|pickle|parquet|sql|hdf|feather|stata|html|xml|latex"
    r"|orc|clipboard|markdown)\b"
)


def io_direction(task: str) -> str | None:
    """ "write" when `task` writes data out and reads nothing in ("write column 'sum' of the frame to a csv
    file", "save the figure"), "read" the other way round ("read an excel file", "load a json file"), None
    when it states both or neither."""
    low = task.lower()
    writes, reads = bool(_WRITE_VERBS.search(low)), bool(_READ_VERBS.search(low))
    return "write" if writes and not reads else "read" if reads and not writes else None


def io_against(io: str | None, api_name: str) -> bool:
    """Whether an API named `api_name` goes the other way from a task of io_direction `io`: a reader
    (pandas.read_csv) for a task that writes, a writer (NDFrame.to_csv, json.dump) for one that reads."""
    leaf = api_name.rsplit(".", 1)[-1].lower()
    reads, writes = bool(_READ_NAME.match(leaf)), bool(_WRITE_NAME.match(leaf))
    return (io == "write" and reads and not writes) or (io == "read" and writes and not reads)


def kept_in_io(ranked: Sequence[_T], io: str | None, name_of: Callable[[_T], str]) -> list[_T]:
    """`ranked` (best first) with the docs that go against the task's io_direction `io` (io_against) moved
    after every other doc, in their order: "write ... to a csv file" then finds NDFrame.to_csv before
    pandas.read_csv, which shares its words. Unchanged when `io` is None."""
    if io is None:
        return list(ranked)
    against = [io_against(io, name_of(x)) for x in ranked]
    return [x for x, a in zip(ranked, against, strict=True) if not a] + [
        x for x, a in zip(ranked, against, strict=True) if a
    ]


# ---------------------------------------------------------------------------------------------------------
# Libraries the task does not name

# Which of the big data libraries a task is about, and the docs of those it does not name (issue 38).
#
# With numpy, pandas and matplotlib indexed next to the standard library (python-env reads installed
# distributions), a task about a plain list or string shares its words with thousands of library docs:
# "remove adjacent duplicate elements from a list" found numpy.unique and numpy.isin before
# itertools.groupby, "get a list of all integer points in a hypercube" numpy.meshgrid before
# itertools.product, "combining rows in pandas by adding their values" numpy.vstack. People name the library
# they work with, by its name, its import alias, or the objects it gives them ("dataframe `df`", "array
# `a`", "y-axis in pyplot"); a task that names none of a library's words (LIBRARY_WORDS) is rarely asking for
# it. The search ranks such a library's docs lower (UNNAMED_FACTOR on their fused score) among the pool's
# LIBRARY_DEPTH best (retrieve/index.py ApiIndex._top); the standard library and libraries not listed here are
# never ranked lower, and an index without these libraries (the default one) has no doc it applies to.
#
# The words are the libraries' names, import aliases and the names of their main objects, not read from any
# intent; the factor was chosen on the dev half of CoNaLa (bench/conala.py, the index of docs/benchmarks.md
# "CoNaLa dev split", 18,395 docs; docs/benchmarks.md "CoNaLa retrieval: tried, not shipped").

#: Per library (a python-env doc's domain): the words that name it in a task (case-insensitive, whole
#: words; "y-axis" holds "axis"): its name and import alias (store/prior.py IMPORT_ALIASES), the objects it
#: gives a person (numpy's arrays and matrices, pandas' data frames and series, matplotlib's figures, axes and
#: plots), and `df`, StackOverflow's name for a data frame.
LIBRARY_WORDS: dict[str, tuple[str, ...]] = {
    "numpy": ("numpy", "np", "array", "arrays", "ndarray", "ndarrays", "matrix", "matrices"),
    "pandas": ("pandas", "pd", "dataframe", "dataframes", "data frame", "data frames", "df", "series"),
    "matplotlib": (
        "matplotlib", "pyplot", "plt", "pylab", "plot", "plots", "plotting", "figure", "figures", "axes",
        "axis", "chart", "charts", "graph", "subplot", "subplots", "legend", "colorbar", "histogram",
    ),
}  # fmt: skip
_NAMED = {
    lib: re.compile(r"\b(?:" + "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in words) + r")\b", re.I)
    for lib, words in LIBRARY_WORDS.items()
}
#: The factor a doc's fused score is multiplied by when its library is one the task does not name. CoNaLa
#: dev half, oracle in the first 5 hits / at hit 1, hybrid: without 72.3 / 45.5 %; 0.5 and 0.6: 70.3 / 48.5,
#: 0.7: 71.3 / 48.5, 0.8: 71.3 / 47.5, 0.9: 71.3 / 46.5 (the one intent lost from the first 5 at 0.7 is
#: labelled numpy.char.replace for `a.replace(char, '')`); BM25 alone: 64.4 / 35.6 -> 67.3 / 41.6 at 0.7.
UNNAMED_FACTOR = 0.7
#: How many of a pool's best docs (by fused score) are ranked again with UNNAMED_FACTOR (20, 50 and 100 gave
#: the same dev figures; the fewest docs read).
LIBRARY_DEPTH = 20


def unnamed_libraries(task: str) -> frozenset[str]:
    """The libraries of LIBRARY_WORDS that `task` (as typed: a backticked `df` counts) names by none of
    their words: "remove duplicates from a list" -> all three, "sum the columns of dataframe `df`" -> numpy
    and matplotlib. Never raises."""
    return frozenset(lib for lib, named in _NAMED.items() if not named.search(task))


def indexed(meta: Mapping[str, Any], in_memory: bool) -> bool:
    """Whether python-env read a library of LIBRARY_WORDS into an index, as its refresh recorded it in `meta`
    (ApiIndex.meta "sources": python-env's "files" name the distributions read, the standard library by its
    folder). An index built in memory (`in_memory`) with no such record: True (its docs are in memory, so
    reading their domain costs nothing); a stored one without python-env: False."""
    entries = [s for s in meta.get("sources") or () if isinstance(s, dict) and s.get("name") == "python-env"]
    if not entries:
        return in_memory
    return any(f in LIBRARY_WORDS for s in entries for f in s.get("files") or ())


def library_of(doc: ApiDoc) -> str:
    """`doc`'s library as LIBRARY_WORDS names it: a python-env doc's domain ("numpy"; "Python standard
    library" for the standard library's), "" for a doc of another source."""
    return doc.domain if doc.source == "python-env" else ""


def named_first(
    ranked: Sequence[_T],
    score_of: Callable[[_T], float],
    library_of: Callable[[_T], str],
    libraries: frozenset[str],
) -> list[_T]:
    """`ranked` (best first) ranked again by score_of(x), times UNNAMED_FACTOR for each x whose
    library_of(x) is in `libraries` (unnamed_libraries' answer); the order of equal scores is kept.
    Unchanged (as a list) when `libraries` is empty."""
    if not libraries:
        return list(ranked)
    factor = [UNNAMED_FACTOR if library_of(x) in libraries else 1.0 for x in ranked]
    order = sorted(range(len(ranked)), key=lambda i: -score_of(ranked[i]) * factor[i])
    return [ranked[i] for i in order]
