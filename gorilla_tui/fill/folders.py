"""The folder a task names goes to the parameter named for a folder: ``shutil.make_archive``'s root_dir
("zip the folder photos into holiday.zip": ``make_archive('holiday', 'zip', 'photos')``; break-it round 32:
root_dir was never offered, the call archived the current folder and still "fit"), subprocess's cwd ("run
make in the folder build"), tempfile's dir ("make a temporary file in the directory cache")."""

from __future__ import annotations

import dataclasses
import re

from gorilla_tui.fill.call_grammar import FILLABLE, Slot, TaskValues
from gorilla_tui.fill.candidate import Candidate
from gorilla_tui.fill.named_paths import NAMED_PATH
from gorilla_tui.fill.spoken import PATHLIKE
from gorilla_tui.pool.params import Param

#: A parameter's name that says it takes a folder: root_dir, base_dir, dir, cwd, folder, directory (not
#: dir_fd, a file descriptor: an integer; not dirs_exist_ok, a flag).
FOLDER_PARAM = re.compile(r"(?:^|_)(?:dir|directory|folder)$|^cwd$", re.IGNORECASE)
#: The words NAMED_PATH's second group takes a folder by (its files' names are no folders).
_FOLDER_WORD = re.compile(r"^(?:folders?|dir(?:ectory|ectories)?|dirs)\b", re.IGNORECASE)


def folder_spans(task: str) -> list[tuple[int, int]]:
    """Spans of the folders `task` names with a folder word and a bare name (NAMED_PATH: "the folder photos",
    "into the directory out", "the directory my_docs", "the .py files under src"); not a folder "named" or
    "called" so (often the one a call makes: "create a folder called build")."""
    out = []
    for m in NAMED_PATH.finditer(task):
        if m.group(2) and _FOLDER_WORD.match(m.group()):
            out.append(m.span(2))
        out += [m.span(g) for g in (3, 4, 5) if m.group(g)]
    return out


def with_named_folder(params: list[Param], offered: list[Slot], values: TaskValues) -> list[Slot]:
    """`offered` with the first string parameter of `params` named for a folder (FOLDER_PARAM) that is not
    offered yet given the folders the task names (folder_spans) as its only values, required: the call acts
    on that folder, so its default (the current folder) is not what the task asks for. Unchanged when the
    task names no such folder, or a parameter offered already takes it (``os.listdir('build')``) or a
    required parameter is named for a folder (``shutil.rmtree``'s path is the folder)."""
    spans = set(folder_spans(values.text))
    folders = {c.text: c for c in values.strings if (c.start, c.end) in spans}
    if not folders or any(_takes(s, folders) for s in offered):
        return offered
    names = {s.param.name for s in offered}
    for p in params:
        if p.kind in FILLABLE and p.required and FOLDER_PARAM.search(p.name):
            return offered
    for p in params:
        if (p.kind in FILLABLE and p.name not in names and FOLDER_PARAM.search(p.name)
                and p.type in ("string", "any")):  # fmt: skip
            return [
                *(_spared(s, folders) for s in offered),
                Slot(dataclasses.replace(p, required=True), folders),
            ]
    return offered


def _spared(slot: Slot, folders: dict[str, Candidate]) -> Slot:
    """`slot` without `folders` where it has other values ("zip the folder photos into holiday.zip": base_name
    'holiday'), else with them as copies without a span, which the folder parameter's own may follow in the
    same call (fill/writer.py offers a span once a call: ``make_archive('photos', 'zip', 'photos')``)."""
    if not set(slot.values) & set(folders):
        return slot
    if set(slot.values) - set(folders):
        return dataclasses.replace(slot, values={t: c for t, c in slot.values.items() if t not in folders})
    return dataclasses.replace(
        slot, values={t: dataclasses.replace(c, start=-1, end=-1) for t, c in slot.values.items()}
    )


def _takes(slot: Slot, folders: dict[str, Candidate]) -> bool:
    """Whether `slot` takes one of `folders` already: a parameter named for a path offers it, or one of its
    values is a path inside it (glob's pattern 'src/**/*.py')."""
    names = [str(getattr(c, "value", "")) for c in folders.values()]
    if PATHLIKE.search(slot.param.name) and set(slot.values) & set(folders):
        return True
    return any(
        re.search(rf"(?:^|[/\\]){re.escape(n)}[/\\]", str(getattr(c, "value", "")))
        for c in slot.values.values()
        for n in names
    )


#: Functions that join path parts, each a later part that is absolute dropping the ones before it (the os.path
#: docs: "If a segment is an absolute path ..., then all previous segments are ignored").
_JOINS = frozenset({"os.path.join", "posixpath.join", "ntpath.join"})
#: An absolute path: from the root, the home folder or a Windows drive.
_ABSOLUTE = re.compile(r"^(?:[/\\~]|[A-Za-z]:[/\\])")


def with_folder_first(api_name: str, offered: list[Slot], task: str) -> list[Slot]:
    """`offered` of a function that joins path parts (_JOINS) with the one absolute path the task writes, or
    else the one folder it names by a bare word (folder_spans), as the first part's only value and as none
    of the later parts': "join the folder /var/www and the file index.html" is ``os.path.join('/var/www',
    'index.html')``, never ``os.path.join('index.html', '/var/www')``, which is '/var/www' (break-it round
    32). Unchanged when the task writes no such value, or several (which comes first is the task's to say)."""
    if api_name not in _JOINS or not offered:
        return offered
    first = offered[0]
    absolute = [t for t, c in first.values.items() if isinstance(c.value, str) and _ABSOLUTE.match(c.value)]
    if not absolute:
        spans = set(folder_spans(task))
        absolute = [t for t, c in first.values.items() if (c.start, c.end) in spans]
    if len(absolute) != 1:
        return offered
    out = [dataclasses.replace(first, values={absolute[0]: first.values[absolute[0]]})]
    return out + [dataclasses.replace(s, values={t: c for t, c in s.values.items() if t != absolute[0]})
                  for s in offered[1:]]  # fmt: skip
