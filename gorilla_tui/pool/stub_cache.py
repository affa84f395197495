"""What typeshed's stubs say of a function's parameters, read once and kept in memory and on disk: the one
cache of the stub readers (pool/typeshed.py file_parameters, pool/stub_params.py read_params). `stub_files`
(the parameters that take a file object; `check` and filling ask), `kinds`, `admits`, `typed` and `forwarded`
(the kinds of value each parameter admits, the keywords a ``**kwargs`` passes on; filling asks), `required`
(the positional parameters every overload requires; `check` asks of a ``*args`` signature).

Reading stubs costs: importing typeshed_client and making its Resolver took 0.16-0.22 s, then 8-200 ms per
module cold (pickle 55 ms, subprocess 56 ms, json 8 ms; this machine, 2 shared cores), against `check`'s
budget of 0.25 s per file (0.1 s measured, docs/benchmarks.md "check speed"), and filling paid it in every
process. So a function's facts (StubFacts: all four answers, found from one reading of its stub) are kept in
this process and in a JSON file per top-level module under the cache dir (paths.get_paths().cache / FOLDER /
key / "pickle.json": {"pickle.load": {"files": [[0, "file", "rb"]], "kinds": {"file": [...]}, ...}}), written
when first looked up; the key names the Python version, the stubs (the size and mtime of typeshed_client's
VERSIONS file, found without importing it) and RULE, so a new interpreter, new stubs or a new rule read none
of it. A lookup found in the file imports no stubs. A cache file that cannot be read or is not sound (cut
short, no JSON, a folder or a FIFO in its place, values of the wrong type) is looked past and replaced on the
next write; one that cannot be written is left as it is (the answers are kept in memory).
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import re
import sys
from pathlib import Path
from typing import NamedTuple

from gorilla_tui.errors import UsageError
from gorilla_tui.jsontext import loads as json_value
from gorilla_tui.paths import get_paths, read_regular_bytes
from gorilla_tui.pool.stub_params import ANY, KINDS, PARAM_TYPES, POSITION, SHAPES, read_params

#: Bumped when a rule of file_parameters, read_params or method_returns changes (a cache written by another
#: is not read). 9: a class's methods under ``sys.version_info`` gates read for the running Python only.
#: 10: a stub type whose bases or alias are bytes-like only (``SizedBuffer``) is bytes (shapes).
#: 11: a class whose own ``__new__`` returns another class is read by that ``__new__`` (ast.Ellipsis).
RULE = 11
#: Folder of the cached answers inside the cache dir.
FOLDER = "stubs"
#: Largest cache file read, bytes (all 432 names of os, the largest module, took 46 KB: this machine).
MAX_CACHE_BYTES = 2**22
#: A top-level module name that may name a cache file (one of a doc's api_name: no path in it).
_GROUP = re.compile(r"[A-Za-z_]\w{0,99}")
#: The modes file_parameters gives: a direction or none, then "b" for bytes.
_MODE = re.compile(r"[rw]?b?")

FileParams = tuple[tuple[int, str, str], ...]


class StubFacts(NamedTuple):
    """What a function's stub says of its parameters (empty where no stub has it)."""

    #: (position, name, mode) of each parameter that takes a file object (typeshed.py file_parameters).
    files: FileParams
    #: parameter name -> the kinds of value (stub_params.KINDS) it admits (stub_params.read_params).
    kinds: dict[str, frozenset[str]]
    #: the parameters every overload types with types stub_params reads (stub_params.read_params).
    typed: frozenset[str]
    #: (name, Param type) of the keywords its ``**kwargs`` passes on (stub_params.read_params).
    forwarded: tuple[tuple[str, str], ...]
    #: parameter name -> "bytes" or "command" (stub_params.read_params shapes).
    shapes: dict[str, str]
    #: the positional parameters every overload requires (stub_params.read_params required).
    required: tuple[str, ...]


#: top-level module -> function -> its facts, as read or found in this process.
_MEMORY: dict[str, dict[str, StubFacts]] = {}


def stub_facts(function: str) -> StubFacts:
    """The facts of `function` ("pickle.load", "csv.DictReader", "sorted", "datetime.datetime.now"), from
    this process's memory, else the cache file of its top-level module, else the stubs (then written there).

    Args:
        function: a module-level function or class, a builtin, or ``module.Class.method``.

    Returns:
        Its StubFacts; empty ones where no stub has it.
    """
    group = function.split(".", 1)[0] if "." in function else "builtins"
    table = _MEMORY.get(group)
    if table is None:
        table = _MEMORY[group] = _read(group)
    facts = table.get(function)
    if facts is None:
        from gorilla_tui.pool.typeshed import file_parameters  # imported on a miss only: ~0.2 s

        facts = table[function] = StubFacts(file_parameters(function), *read_params(function))
        _write(group, table)
    return facts


def stub_files(function: str) -> FileParams:
    """(position, name, mode) of each parameter of `function` that its stub types as a file object or a text
    file's lines (pool/typeshed.py file_parameters): ``pickle.load`` -> ((0, "file", "rb"),).

    Args:
        function: a module-level function or class ("pickle.load", "csv.DictReader").

    Returns:
        The parameters, in the stub's order; () where no stub has it.
    """
    return stub_facts(function).files


def kinds(function: str) -> dict[str, frozenset[str]]:
    """Parameter name -> the kinds of value (KINDS) its annotations admit in any overload of `function`'s
    stub (``re.sub`` -> {"pattern": {"string"}, "count": {"number"}, ...}); a parameter some overload leaves
    unannotated, or types by a name stub_params does not know, admits ANY.

    Args:
        function: as stub_facts takes it.

    Returns:
        The parameters' kinds (one dict a function, shared: not to be changed); {} where no stub has it.
    """
    return stub_facts(function).kinds


def admits(function: str, name: str, kind: str, position: int = -1) -> bool:
    """Whether parameter `name` of `function` may take a value of `kind` by its stub.

    Args:
        function: as stub_facts takes it.
        name: a parameter's name.
        kind: one of KINDS.
        position: its place among the positional parameters (self left out), -1 for none: where the stub
            names no parameter `name`, the one at that place is asked of (stub_params.POSITION:
            ``datetime.datetime.fromisoformat``'s ``date_string`` is its stub's ``string``).

    Returns:
        False where the stub types the parameter with no type of that kind; True where the stub does not
        say (no stub, no such parameter, an annotation stub_params cannot read).
    """
    found = stub_facts(function).kinds
    if name not in found and position >= 0:
        return kind in found.get(f"{POSITION}{position}", ANY)
    return kind in found.get(name, ANY)


def typed(function: str, name: str) -> bool:
    """Whether every overload of `function`'s stub types parameter `name` with types stub_params reads:
    ``json.dump``'s obj (``Any``), not its fp (``SupportsWrite[str]``, a file object).

    Args:
        function: as stub_facts takes it.
        name: a parameter's name.

    Returns:
        True where it does; False where it does not or no stub has the parameter.
    """
    return name in stub_facts(function).typed


def forwarded(function: str) -> tuple[tuple[str, str], ...]:
    """(name, Param type) of each optional keyword `function`'s stub declares in its first overload, for a
    function whose signature takes ``**kwargs`` and passes them on (``subprocess.check_output``: cwd, env,
    shell, text, timeout...); stub_params.read_params tells which.

    Args:
        function: as stub_facts takes it.

    Returns:
        The keywords, in the stub's order; () where no stub has the function.
    """
    return stub_facts(function).forwarded


def takes_bytes(function: str, name: str) -> bool:
    """Whether `function`'s stub types parameter `name` as bytes-like values only (stub_params._shapes):
    ``base64.b64encode``'s s (``ReadableBuffer``); False where no stub has it."""
    return stub_facts(function).shapes.get(name) == "bytes"


def takes_none_only(function: str, name: str) -> bool:
    """Whether `function`'s stub types parameter `name` as None alone in every overload (stub_params._shapes:
    ``threading.Thread``'s group, "must be None for now"); False where no stub has it."""
    return stub_facts(function).shapes.get(name) == "none"


def takes_command(function: str, name: str) -> bool:
    """Whether `function`'s stub types parameter `name` as a command line (stub_params._shapes): the
    ``args`` of ``subprocess.run`` and ``check_output``, the program and its arguments as a list."""
    return stub_facts(function).shapes.get(name) == "command"


def required(function: str) -> tuple[str, ...]:
    """The positional parameters every overload of `function`'s stub requires (stub_params.read_params):
    ``subprocess.run`` -> ("args",), whose signature is ``run(*popenargs, ...)``; () where no stub has it.

    Args:
        function: as stub_facts takes it.

    Returns:
        Their names, in the stub's order, of the overload that requires fewest.
    """
    return stub_facts(function).required


#: The cache file (as a group name) of method_returns.
_RETURNS = "__returns__"
#: "module.Class.method" -> the class a call of it returns ("" for none), as read or found in this process.
_RETURNED: dict[str, str] = {}


def method_returns(owner: str, method: str) -> str:
    """The class (dotted, ``builtins.str``) a call of method `method` of class `owner` (dotted,
    ``builtins.str``) returns by its stub in every overload (pool/stub_members.py chain_class:
    ``str.join`` -> builtins.str, ``str.split`` -> builtins.list), "" when not one class for sure. Kept in
    memory and in the cache file ``__returns__.json`` beside the facts' files (same key), so `check` of a
    file with ``','.join(x).strip()`` imports no stubs once it was looked up (R26-4)."""
    name = f"{owner}.{method}"
    if not _RETURNED:
        _RETURNED.update(_read_returns())
    found = _RETURNED.get(name)
    if found is None:
        from gorilla_tui.pool.stub_members import chain_class  # imported on a miss only: ~0.2 s

        reached = chain_class(owner, ((method, True),))
        found = _RETURNED[name] = reached[0] if reached is not None else ""
        path = _path(_RETURNS)
        if path is not None:
            _write_json(path, dict(_RETURNED))
    return found


def in_place(owner: str, method: str) -> bool:
    """Whether method `method` of class `owner` (dotted) returns None in every overload of its stub
    (pool/stub_members.py returns_none: ``builtins.list.sort``), kept as method_returns keeps its answers
    (key ``owner.method()``, value "None" or "")."""
    name = f"{owner}.{method}()"
    if not _RETURNED:
        _RETURNED.update(_read_returns())
    found = _RETURNED.get(name)
    if found is None:
        from gorilla_tui.pool.stub_members import returns_none  # imported on a miss only: ~0.2 s

        found = _RETURNED[name] = "None" if returns_none(owner, method) else ""
        path = _path(_RETURNS)
        if path is not None:
            _write_json(path, dict(_RETURNED))
    return found == "None"


def _read_returns() -> dict[str, str]:
    path = _path(_RETURNS)
    try:
        data = json_value(read_regular_bytes(path, MAX_CACHE_BYTES)) if path is not None else None
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str)}


def _folder() -> Path | None:
    """The cache folder of this interpreter, these stubs and this rule; None where there is none (no
    typeshed_client installed, its VERSIONS file missing, an unusable GORILLA_TUI_HOME)."""
    try:
        spec = importlib.util.find_spec("typeshed_client")
        if spec is None or not spec.submodule_search_locations:
            return None
        st = os.stat(Path(spec.submodule_search_locations[0], "typeshed", "VERSIONS"))
        cache = get_paths().cache
    except (OSError, ValueError, ImportError, UsageError):  # UsageError: GORILLA_TUI_HOME is no folder
        return None
    key = f"py{sys.version_info[0]}.{sys.version_info[1]}-r{RULE}-{st.st_size}-{st.st_mtime_ns}"
    return cache / FOLDER / key


def _path(group: str) -> Path | None:
    """The cache file of top-level module `group`; None where there is no cache folder or `group` is no
    plain name (a doc's api_name such as "../x.y" names no file)."""
    folder = _folder() if _GROUP.fullmatch(group) else None
    return folder / f"{group}.json" if folder is not None else None


def _read(group: str) -> dict[str, StubFacts]:
    """The cached facts of top-level module `group`, {} when there are none or they are not sound (a
    damaged file is looked past and replaced on the next write)."""
    path = _path(group)
    if path is None:
        return {}
    try:
        data = json_value(read_regular_bytes(path, MAX_CACHE_BYTES))
    except (OSError, ValueError):  # NotRegularFileError, FileTooLargeError are OSErrors
        return {}
    if not isinstance(data, dict):
        return {}
    table = {}
    for name, found in data.items():
        facts = _decoded(found)
        if not isinstance(name, str) or facts is None:
            return {}
        table[name] = facts
    return table


def _decoded(found: object) -> StubFacts | None:
    """One function's cached facts as StubFacts, or None where they do not have the shape _encoded gives
    (a field missing or of the wrong type, a kind not in KINDS, a Param type not offered)."""
    if not isinstance(found, dict) or set(found) != set(StubFacts._fields):
        return None
    files, kind_lists, typed_names, keywords, shapes, required = (found[f] for f in StubFacts._fields)
    ok = (
        _rows(files, (int, str, str))
        and all(_MODE.fullmatch(mode) and name.isidentifier() for _, name, mode in files)
        and isinstance(kind_lists, dict)
        and all(_names(v, KINDS) for v in kind_lists.values())
        and _names(typed_names, None)
        and _rows(keywords, (str, str))
        and all(name.isidentifier() and t in PARAM_TYPES for name, t in keywords)
        and isinstance(shapes, dict)
        and all(isinstance(k, str) and k.isidentifier() and v in SHAPES for k, v in shapes.items())
        and _names(required, None)
        and all(name.isidentifier() for name in required)
    )
    if not ok:
        return None
    return StubFacts(
        tuple((at, name, mode) for at, name, mode in files),
        {k: frozenset(v) for k, v in kind_lists.items()},
        frozenset(typed_names),
        tuple((name, t) for name, t in keywords),
        dict(shapes),
        tuple(required),
    )


def _rows(value: object, types: tuple[type, ...]) -> bool:
    """Whether `value` is a list of lists whose items have exactly `types` (a bool is no int)."""
    return isinstance(value, list) and all(
        isinstance(row, list)
        and len(row) == len(types)
        and all(type(x) is t for x, t in zip(row, types, strict=True))
        for row in value
    )


def _names(value: object, allowed: tuple[str, ...] | None) -> bool:
    """Whether `value` is a list of strings (each one of `allowed`, where given)."""
    return isinstance(value, list) and all(
        isinstance(x, str) and (allowed is None or x in allowed) for x in value
    )


def _encoded(facts: StubFacts) -> dict[str, object]:
    """`facts` as JSON values (what _decoded reads back)."""
    return {
        "files": [list(t) for t in facts.files],
        "kinds": {k: sorted(v) for k, v in facts.kinds.items()},
        "typed": sorted(facts.typed),
        "forwarded": [list(t) for t in facts.forwarded],
        "shapes": dict(facts.shapes),
        "required": list(facts.required),
    }


def _write(group: str, table: dict[str, StubFacts]) -> None:
    """Write `table` as the cache file of `group` (a temporary file, then os.replace); a failure is ignored:
    the answer is looked up again in the next process."""
    path = _path(group)
    if path is not None:
        _write_json(path, {name: _encoded(facts) for name, facts in table.items()})


def _write_json(path: Path, data: dict[str, object]) -> None:
    """Write `data` as JSON to `path` (a temporary file, then os.replace); a failure is ignored."""
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)  # a FIFO left there would block the write
        tmp.write_text(json.dumps(data, sort_keys=True), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
