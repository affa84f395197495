"""A per-doc prior that BM25 scores of the python-env source are multiplied by before ranking (issue 18).

BM25 treats the 8,919 docs of the standard library alike, so a method of a rarely used class or a class
(an abstract base class, a typing construct) whose docstring shares the task's words outranks the
module-level function a person calls: "read the value of an environment variable" -> wsgiref.handlers.
read_environ before os.getenv, "compute the median of a list of numbers" -> numbers.Number. The prior is
never read from a list of names. Two parts:

- kind_prior, read from what each doc already says about itself (pool/pyenv/names.py writes
  functionality as "<kind> in <module>"): its kind (a method, a class or a module-level function) and how
  deep its module is (wsgiref.handlers: 1 dot);
- usage (has_usage: the standard library's docs only), how widely the API is used in real Python code: in
  how many .py files of this interpreter's own standard library (pool/pyenv/usage.py: test suites and IDLE
  left out, and the doc's own module's file) it is referenced (usage_files): a function or class by the
  pair of its api_name's last two components (os.makedirs: "os.makedirs" or ``from os import makedirs``;
  os.path.exists: "path.exists"; a builtin without a parent by its name), a method by the name of its
  class or module-level object (smtplib.SMTP.sendmail: "SMTP"; zipfile.ZipFile.extractall: "ZipFile";
  os.environ.get: "environ"), since ``s.sendmail(...)`` does not say which class s is. A popularity prior
  like this is standard in code search. The doc's factor is multiplied by (1 + files) ** USAGE_WEIGHT
  (os.makedirs, 10 files with CPython 3.11: x 1.20; mailbox.MH.add_folder: "MH", 0 files: x 1);
- library usage (has_library_usage: the docs of an installed library, numpy, pandas, matplotlib...): the
  same count over the code of the installed packages (library_files; pool/pyenv/usage.site_usage), a
  function or class by its pair and by the pair its library's import alias spells (np.arange,
  pd.concat, plt.plot); a method is neutral (its class's count would lift every method alike). The factor
  is (1 + files) ** LIBRARY_USAGE_WEIGHT (numpy.arange, 167 files of this project's environment: x 2.16;
  pandas.DataFrame, 75: x 1.91; numpy.lib.recfunctions.rec_join, none: x 1).

store.write_version stores it with the index (FILE, one float32 per doc, 1 outside PRIOR_SOURCES); an
index built in memory computes it when first searched. The functions here are pure: the usage counts are
an argument, read once by the caller (pool/pyenv/usage.interpreter_usage, when needs_usage). The prior is
deterministic for a given interpreter: the usage counts depend only on its standard library's files
(cached per interpreter in the cache dir, pool/pyenv/usage.stdlib_usage: the scan made the first refresh
of the default index 0.9 s slower, 5.35 s against 4.43-4.51 s, and left an unchanged refresh at ~0.5 s;
bench/refresh_speed.py, docs/benchmarks.md). Without .py sources (an embedded Python shipping only .pyc) every
count is 0 and the usage part is neutral (x 1). A change of what the prior means bumps
tokenize.TOKENIZER_VERSION, so an index stored before is rebuilt.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from gorilla_tui.pool.doc import ApiDoc
from gorilla_tui.pool.pyenv.names import MODULE_ALIASES, STDLIB_DOMAIN
from gorilla_tui.pool.pyenv.usage import UsageCounts
from gorilla_tui.store.arrays import ArraySpec, read_npy

#: File name of the stored prior inside a version folder.
FILE = "prior.npy"
#: Sources whose BM25 scores get the prior. The APIBench hubs and APIZoo have no kinds of doc to tell
#: apart (one model or endpoint per doc).
PRIOR_SOURCES = frozenset({"python-env"})
#: log-prior per unit of each feature (the prior is exp of minus their sum). Chosen for issue 18 on the
#: dev sets, python-env searched alone, right@1 / right@5: tests/data/stdlib_tasks.toml (42 tasks) and the
#: 18 python-env dev tasks of bench/everyday_tasks.toml; BM25 alone 25/37 and 12/14. Method 0.1 (not for
#: the methods of the builtin types: str, list, dict are the classes everyone uses), class 0.2, module
#: depth 0.05: 28/38 and 12/15, no worse than BM25 alone on either set (grid: method 0-0.2, class 0-0.5,
#: module depth 0-0.2). Method 0.15 with the builtin types' methods too gave 29/38 and 10/15 (list.sort
#: and collections.Counter.most_common lost their first place); a class weight of 0.3 gave 29/37 and
#: 12/15; an empty docstring, the docstring's length and a class named *Error/*Exception/*Warning gave
#: nothing more and are not used.
METHOD_WEIGHT = 0.1
CLASS_WEIGHT = 0.2
MODULE_DEPTH_WEIGHT = 0.05
#: functionality prefixes (pool/pyenv/names.py) of the docs that are called on an object: methods of a
#: class ("method", "classmethod", "staticmethod") and of a module-level object ("method of os.environ").
_METHOD_KINDS = ("method", "classmethod", "staticmethod")
#: Weight of log(1 + files) in the log-prior (the factor is (1 + files) ** USAGE_WEIGHT) and which count
#: usage_files is (USAGE_COUNT: its row in bench/prior_usage.py). Chosen for issue 18 by
#: `bench/prior_usage.py --default ../shared` on the dev sets only, with the kind and depth weights above:
#: python-env searched alone, right@1 / right@5 on the two dev sets above (without usage 28/38 and 12/15),
#: and the default setting of bench/everyday.py (no hub named, the embedded model choosing) on its 18
#: python-env dev tasks (without usage 10 right). Grid: w in 0.025-0.3 by 7 counts (the last name
#: component; the pair; the last component with a method counted by its class's name, by the smaller of
#: the two or as 0; the pair with a method counted by its class, or by the larger of the pair and its
#: class). Admissible: no worse than without usage on any of the three; then the most right in the default
#: setting, then right@1, right@5, the smaller w. "pair; methods: class" at 0.075: 30/38, 12/15 and 12
#: right (0.1 the same; 0.05: 10 right; 0.15: 11). The pair for methods too reached 31/38 at 0.05 but 9
#: right in the default setting; the last component alone was never better than 29/38 with 11/15 (a
#: common method name: "send" of smtplib.SMTP.send is any object's send). The split = "test" tasks were
#: not looked at to choose.
USAGE_WEIGHT = 0.075
USAGE_COUNT = "pair; methods: class"
#: Factor of a doc the hand-written questions expand (a python-env doc with questions: index/questions/
#: python-env.toml, python-libraries.toml). Those files name the APIs people use most, picked by hand, so
#: being named there is a popularity signal like usage_files, and the one that reaches numpy, pandas and
#: matplotlib (has_usage is the standard library's only). Chosen for issue 38 on the dev halves, BM25
#: (bench/conala.py; tests/data/stdlib_tasks.toml and the everyday dev tasks, no hub named, right@1 /
#: right@5): CoNaLa dev oracle in 5 hits / at hit 1 40.6 / 21.8 % at 1 (no factor), 46.5 / 24.8 at 1.25,
#: 48.5 / 24.8 at 1.5 and at 2; everyday dev 32/49 -> 33/48 of 55 at each, stdlib tasks 37/42 at each.
HAND_QUESTIONS_FACTOR = 1.5
#: Weight of log(1 + files) for the docs of installed libraries (library_files). Chosen for issue 38 on the
#: CoNaLa dev half (bench/conala.py, the stdlib + numpy + pandas + matplotlib index, hybrid, the prior
#: replaced in memory), oracle in 5 hits / at hit 1. Grid on the index of 1,272 questions: 48.5 / 27.7 %
#: without; at 0.075 / 0.1 / 0.15 / 0.2 / 0.3: 50.5 / 29.7, 50.5 / 29.7, 51.5 / 30.7, 50.5 / 29.7,
#: 50.5 / 29.7 (methods neutral, the library's own files counted; leaving them out: 50.5 / 28.7 at 0.1,
#: 51.5 / 29.7 at 0.15). Counting a method by its class's name (as for the standard library): 48.5 / 29.7
#: at 0.075, 49.5 / 28.7 at 0.15; by its own name (groupby): 49.5 / 29.7 and 48.5 / 26.7. The test suites
#: counted too (SKIP_DIRS without test, tests): 50.5 / 29.7 at 0.15. Again on the index rebuilt with
#: today's question files (1,342): 50.5 / 28.7 without, 52.5 / 30.7 at 0.1, 52.5 / 31.7 at 0.15, 51.5 /
#: 30.7 at 0.2. The default index holds no library doc: its prior is unchanged (the same array, 10,963 docs).
LIBRARY_USAGE_WEIGHT = 0.15
#: The names the libraries' own documentation imports them as (``import numpy as np``): a library
#: function's pair is counted under its alias too (numpy.arange: "numpy.arange" or "np.arange").
IMPORT_ALIASES = {"numpy": "np", "pandas": "pd", "pyplot": "plt"}
#: A doc's module as named (os.path) -> the module whose file defines it (posixpath).
_OWN = {shown: real for real, shown in MODULE_ALIASES.items() if shown}


def own_module(module: str) -> str:
    """The module whose file holds the docs of `module` as a doc names it ("os.path" -> "posixpath";
    "builtins" and "" -> "": no file)."""
    return "" if module in ("", "builtins") else _OWN.get(module, module)


def has_usage(doc: ApiDoc) -> bool:
    """Whether `doc` gets the usage feature: a python-env doc of the standard library (installed
    distributions are not used in the standard library's code, so their usage is unknown: neutral)."""
    return doc.source in PRIOR_SOURCES and doc.domain == STDLIB_DOMAIN


def has_library_usage(doc: ApiDoc) -> bool:
    """Whether `doc` gets the library usage feature: a python-env doc of an installed library (numpy,
    pandas, matplotlib...: any domain but the standard library's, and a top-level module that is not one
    of the standard library's, sys.stdlib_module_names: a doc of `json` written with another domain is no
    library's, so its prior never depends on which packages happen to be installed)."""
    top = doc.api_name.split(".", 1)[0]
    return doc.source in PRIOR_SOURCES and doc.domain != STDLIB_DOMAIN and top not in sys.stdlib_module_names


def library_files(doc: ApiDoc, counts: UsageCounts) -> int:
    """In how many files of the installed packages `doc` is referenced (counts: usage.site_usage's): a
    function or class by the pair "<parent>.<name>" of its api_name or the pair with the parent's import
    alias (IMPORT_ALIASES: numpy.arange -> "numpy.arange" or "np.arange", matplotlib.pyplot.plot ->
    "pyplot.plot" or "plt.plot"); a method 0 (neutral)."""
    kind, _, _module = doc.functionality.rpartition(" in ")
    if kind.split(" ")[0] in _METHOD_KINDS:
        return 0
    *_, parent, name = ["", *doc.api_name.split(".")]
    keys = [f"{parent}.{name}" if parent else name]
    if parent in IMPORT_ALIASES:
        keys.append(f"{IMPORT_ALIASES[parent]}.{name}")
    return counts.files_of(keys)


def usage_files(doc: ApiDoc, counts: UsageCounts) -> int:
    """In how many standard-library files `doc` is used (pool/pyenv/usage.py; its own module's file left
    out; USAGE_COUNT): a function or class by the pair "<parent>.<name>" of its api_name's last two
    components (os.makedirs -> "os.makedirs"; a builtin without a parent by its name: "sorted"), a method
    (functionality "method", "classmethod", "staticmethod", "method of <object>") by the name of its class
    or object (smtplib.SMTP.sendmail -> "SMTP", os.environ.get -> "environ")."""
    kind, _, module = doc.functionality.rpartition(" in ")
    *_, parent, name = ["", *doc.api_name.split(".")]
    if kind.split(" ")[0] in _METHOD_KINDS:
        return counts.files(parent, own_module(module))
    return counts.files(f"{parent}.{name}" if parent else name, own_module(module))


def needs_usage(docs: Sequence[ApiDoc]) -> bool:
    """Whether a doc of `docs` has a usage feature (has_usage, has_library_usage): only then are the usage
    counts needed (pool/pyenv/usage.interpreter_usage); otherwise UsageCounts() will do."""
    return any(has_usage(d) or has_library_usage(d) for d in docs)


def doc_prior(doc: ApiDoc, counts: UsageCounts) -> float:
    """The factor (> 0) `doc`'s BM25 score is multiplied by: kind_prior(doc), times HAND_QUESTIONS_FACTOR
    for a doc with hand-written questions, times (1 + usage_files(doc, counts)) ** USAGE_WEIGHT for a doc
    with the usage feature (has_usage; `counts`: this interpreter's, pool/pyenv/usage.interpreter_usage),
    or (1 + library_files(doc, counts.installed())) ** LIBRARY_USAGE_WEIGHT for an installed library's
    doc (has_library_usage; the installed packages are scanned only then). 1 outside PRIOR_SOURCES;
    below 1 for a rarely used method or class, above 1 for an API used in many files (a 100-file API:
    x 1.41): only the order within python-env changes ("source" routing ranks each
    source alone)."""
    base = kind_prior(doc)
    if doc.source in PRIOR_SOURCES and doc.questions:
        base *= HAND_QUESTIONS_FACTOR
    if has_library_usage(doc):
        return base * (1.0 + library_files(doc, counts.installed())) ** LIBRARY_USAGE_WEIGHT
    if not has_usage(doc):
        return base
    return base * (1.0 + usage_files(doc, counts)) ** USAGE_WEIGHT


def kind_prior(doc: ApiDoc) -> float:
    """The kind and depth part of doc_prior (0 < f <= 1): 1 outside PRIOR_SOURCES; else
    exp(-(METHOD_WEIGHT if it is a method of a class outside builtins, CLASS_WEIGHT if it is a class, +
    MODULE_DEPTH_WEIGHT * the dots in its module's name)), read from its functionality "<kind> in <module>"
    (a module-level function of a top-level module and list.sort: 1; zipfile.ZipFile.extractall: 0.90;
    numbers.Number: 0.82; wsgiref.handlers.read_environ: 0.95)."""
    if doc.source not in PRIOR_SOURCES:
        return 1.0
    kind, _, module = doc.functionality.rpartition(" in ")
    log = MODULE_DEPTH_WEIGHT * module.count(".")
    if kind.split(" ")[0] in _METHOD_KINDS and module != "builtins":
        log += METHOD_WEIGHT
    elif kind == "class":
        log += CLASS_WEIGHT
    return math.exp(-log)


def prior_array(docs: Sequence[ApiDoc], counts: UsageCounts) -> np.ndarray:
    """float32 (len(docs),): doc_prior(doc, counts) of each doc, in index order."""
    return np.fromiter((doc_prior(d, counts) for d in docs), np.float32, count=len(docs))


def save(folder: Path, docs: Sequence[ApiDoc], counts: UsageCounts) -> Path:
    """Write prior_array(docs, counts) to folder/FILE (fsync'ed). Returns the path."""
    path = Path(folder) / FILE
    with open(path, "wb") as fh:
        np.save(fh, prior_array(docs, counts))
        fh.flush()
        os.fsync(fh.fileno())
    return path


def load(folder: Path, n_docs: int) -> np.ndarray | None:
    """The prior stored in `folder`, or None when there is none, it is unreadable or its npy header is not
    a float array of `n_docs` (arrays.read_npy: checked before a byte of data is read; a FIFO there blocked
    the search: R10-4); then it is computed from the docs."""
    try:  # EOFError: an emptied file (store/integrity.py names it damaged before a search reads it)
        return read_npy(Path(folder) / FILE, ArraySpec("f", 1), (n_docs,))
    except (OSError, ValueError, EOFError):
        return None


__all__ = [
    "CLASS_WEIGHT",
    "FILE",
    "HAND_QUESTIONS_FACTOR",
    "IMPORT_ALIASES",
    "LIBRARY_USAGE_WEIGHT",
    "METHOD_WEIGHT",
    "MODULE_DEPTH_WEIGHT",
    "PRIOR_SOURCES",
    "USAGE_COUNT",
    "USAGE_WEIGHT",
    "doc_prior",
    "has_library_usage",
    "has_usage",
    "kind_prior",
    "library_files",
    "load",
    "needs_usage",
    "own_module",
    "prior_array",
    "save",
    "usage_files",
]
