"""A task about a folder gets the folder API of a family (issue 38): "copy the folder src to backup/src" was
`shutil.copy('src', 'backup/src')`, a file copy, with shutil.copytree among the hits. Both share the task's
words ("copy"; the questions of shutil.copy say "into a folder"), BM25 and the prior put the common file
API first, and the embedded model reads the task 1.5 nats likelier after it, so neither the retrieval rank
nor the likelihood tells them apart. What does is the object the task names: a folder and no file.
FOLDER_NOTE says so in the answer's choice notes. Dev sets (issue 38): bench/data/literal_tasks.toml dev
s6lit-copytree wrong -> right, no other dev task of it or of bench/everyday_tasks.toml (16 name a
folder) moved; val-copytree-overwrite stays wrong (os.replace: not of copy's family).

by_folder moves the choice from a file API to its sibling that works on directories: same module or class,
names sharing a stem (copy / copytree), the sibling's name or the opening of its description naming a
directory (copytree: "Recursively copy a directory tree ..."), the chosen one's not. Nothing else moves.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

from gorilla_tui.pool.doc import ApiDoc

#: Words by which a task names a folder as its object.
_FOLDER_RE = re.compile(r"\b(folders?|director(?:y|ies)|dirs?|subfolders?|subdirector(?:y|ies))\b", re.I)
#: Words (or a file name with an extension) by which a task names a file: then the task is not about a
#: folder alone ("copy report.txt into the folder backup" is a file copy).
_FILE_RE = re.compile(r"\bfiles?\b|\b[\w-]+\.[A-Za-z][A-Za-z0-9]{0,4}\b", re.I)
#: A doc's name part or description opening that says it works on directories.
_DIR_NAME_RE = re.compile(r"dir|folder|tree", re.I)
_DIR_TEXT_RE = re.compile(r"\b(director(?:y|ies)|folders?|tree)\b", re.I)
#: The choice note of a choice by_folder moved.
FOLDER_NOTE = "the task names a folder: chose the folder API of the family"
#: Characters of a description read as its opening (the first sentence or two of a docstring).
OPENING_CHARS = 120
#: Shortest shared stem of two sibling names ("copy" of copy / copytree; 4: "rm" of rmdir / rmtree is not
#: a family).
STEM_CHARS = 4


def about_folder(task: str) -> bool:
    """Whether `task` names a folder (or directory) as what it acts on and names no file."""
    return bool(_FOLDER_RE.search(task)) and not _FILE_RE.search(_FOLDER_RE.sub(" ", task))


def works_on_folders(doc: ApiDoc) -> bool:
    """Whether the last part of `doc`'s api_name or the opening of its description (OPENING_CHARS) names a
    directory, folder or tree."""
    last = doc.api_name.rsplit(".", 1)[-1]
    return bool(_DIR_NAME_RE.search(last) or _DIR_TEXT_RE.search(doc.description[:OPENING_CHARS]))


def siblings(a: ApiDoc, b: ApiDoc) -> bool:
    """Whether `a` and `b` are of one family: one source, one parent (module or class: the api_name up to
    its last dot) and last names sharing a stem of at least STEM_CHARS characters."""
    (pa, _, la), (pb, _, lb) = a.api_name.rpartition("."), b.api_name.rpartition(".")
    return a.source == b.source and pa == pb and len(os.path.commonprefix([la, lb])) >= STEM_CHARS


#: A doc that removes only an empty folder, by its description or questions ("Remove this directory. The
#: directory must be empty.", os.rmdir's "delete an empty folder").
_EMPTY_ONLY = re.compile(
    r"\bmust\s+be\s+empty\b|\b(?:delete|remove)\s+an?\s+empty\b|\bhas\s+nothing\s+in\s+it\b", re.I
)
#: Words of a doc that removes something.
_REMOVES = re.compile(r"\b(?:delete|remove|wipe)\b", re.I)


def _text(doc: ApiDoc) -> str:
    return " ".join([doc.description[:OPENING_CHARS], *doc.questions])


def empty_only(doc: ApiDoc) -> bool:
    """Whether `doc` removes a folder only when it is empty (_EMPTY_ONLY in its description's opening or
    its questions: os.rmdir, pathlib.Path.rmdir)."""
    return bool(_EMPTY_ONLY.search(_text(doc)))


def by_folder(docs: Sequence[ApiDoc], picked: int, task: str) -> int:
    """Index of the doc to propose among `docs` (retrieval order): `picked`, or, when `task` is about a
    folder (about_folder) and the picked doc does not work on folders (works_on_folders), the first of its
    siblings (siblings) among the docs that does; or, when the picked doc removes a folder only when it is
    empty (empty_only) and the task does not say the folder is empty, the first doc that removes a folder
    whatever it holds (works on folders, removes, not empty_only): "delete the folder build" is
    ``shutil.rmtree('build')``, not ``os.rmdir('build')``, which fails on a folder with files in it. Raises
    IndexError for a `picked` outside `docs`."""
    chosen = docs[picked]
    if not about_folder(task):
        return picked
    if empty_only(chosen) and not re.search(r"\bempty\b", task, re.I):
        return next((i for i, d in enumerate(docs) if works_on_folders(d) and not empty_only(d)
                     and _REMOVES.search(_text(d))), picked)  # fmt: skip
    if works_on_folders(chosen):
        return picked
    return next((i for i, d in enumerate(docs) if siblings(d, chosen) and works_on_folders(d)), picked)
