"""A parameter that takes a file object, filled with the file the task names, opened: "read config.json
into a dict" -> ``json.load(open('config.json'))``, not ``json.load('config.json')``, which fails when run
(AttributeError: 'str' object has no attribute 'read').

Which parameters take a file object (or a text file's lines: ``csv.reader``), and the mode to open it in
('rb' for binary readers such as pickle.load and tomllib.load, 'w' for writers such as json.dump), is
pool/file_objects.py file_params's rule (the doc's description, else its type stub), the one `check` holds
calls to. `path_slots` offers such a parameter only the paths and strings the task writes (a number is no
file); `opened` writes the path the model chose as the call that opens it (pool/file_objects.py open_call:
``csv.reader(open('sales.csv', newline=''))``) when the call is rendered (fill/render.py render_target).
BFCL's decoded form leaves such a call's argument out, as any value that is not a literal (render.decoded).
"""

from __future__ import annotations

import ast
import dataclasses
import re
from collections.abc import Sequence

from gorilla_tui.fill.call_grammar import Slot
from gorilla_tui.pool.apidoc import ApiDoc
from gorilla_tui.pool.file_objects import PATH_SHAPED, file_params, open_call


def path_slots(doc: ApiDoc, offered: Sequence[Slot]) -> list[Slot]:
    """`offered` with each file-object parameter's values kept to the paths the task writes (a slash or a
    file name's extension), else to its strings: ``json.load(fp)`` takes no number, and no quoted JSON
    text beside a file name. A path one of them takes goes to it
    alone, not to a parameter of unknown type beside it: "write the dict settings to out.json" is
    ``json.dump(obj, open('out.json', 'w'))``, obj left a placeholder, not ``json.dump('out.json', fp)``. A
    required slot left with no value keeps its placeholder; an optional file-object parameter is left out
    (its default applies: ``tarfile.open(name=None, fileobj=None)`` takes the task's path as its name)."""
    files = file_params(doc)
    if not files:
        return list(offered)
    paths = {
        k
        for s in offered
        if s.param.name in files
        for k, c in s.values.items()
        if isinstance(c.value, str) and PATH_SHAPED.search(c.value)
    }
    out = []
    for slot in offered:
        if slot.param.name in files and not slot.param.required:
            continue
        if slot.param.name in files:  # the paths the task writes, else any string it does
            kept = {k: c for k, c in slot.values.items() if k in paths} or {
                k: c for k, c in slot.values.items() if isinstance(c.value, str)
            }
        elif slot.param.type == "any":
            kept = {k: c for k, c in slot.values.items() if k not in paths}
        else:
            kept = slot.values
        if kept != slot.values:
            if not kept and not slot.param.required:
                continue
            slot = dataclasses.replace(slot, values=kept)
        out.append(slot)
    return out


def opened(doc: ApiDoc, given: dict[str, tuple[str, str]]) -> dict[str, tuple[str, str]]:
    """`given` (name -> (value source, origin)) with each file-object parameter of `doc` that holds a
    string literal from the task, or a variable whose name says it holds a path (names_path), written as the
    call that opens it (open_call: ``open('data.plist', 'rb')``, ``open(csv_path, newline='')``); the
    origin stays. Placeholders and other values are kept."""
    files = file_params(doc)
    if not files:
        return given
    out = dict(given)
    for name, mode in files.items():
        value, origin = given.get(name, ("", ""))
        if not (origin == "task" and _is_str_literal(value) or origin == "variable" and names_path(value)):
            continue
        out[name] = (open_call(doc.api_name, mode, value), origin)
    return out


#: Parts of a variable's name that say it holds a path, not an open file: csv_path, out_file, fname.
_PATH_PARTS = frozenset(("path", "filename", "fname", "filepath", "file", "pathname"))


def names_path(variable: str) -> bool:
    """Whether a variable the task names (fill/kinds.py) holds a path by its name (_PATH_PARTS: `csv_path`,
    `out_file`, `configFile`), so a file-object parameter gets it opened: "read the csv file `csv_path` as
    dicts" is ``csv.reader(open(csv_path, newline=''))``, not ``csv.reader(csv_path)``, which iterates the
    path's characters (break-it round 30, F-H4). A name such as `f`, `fp` or `fh` is the open file itself;
    an expression (`args.path`, `paths[0]`) is read by its last name."""
    last = re.split(r"[.\[\]'\"]", variable.strip())
    name = next((x for x in reversed(last) if x), "")
    parts = {p.lower() for p in re.split(r"_|(?<=[a-z])(?=[A-Z])", name) if p}
    return bool(parts & _PATH_PARTS)


def _is_str_literal(source: str) -> bool:
    try:
        return isinstance(ast.literal_eval(source), str)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
