"""The receiver of a method's call: its constructor's parameters are slots too (``pathlib.Path().iterdir()``
filled as ``pathlib.Path('/var/log').iterdir()``).

A python-env method doc's call is its class's constructor call, then the method (pool/pyenv/names.py:
``zipfile.ZipFile(file).extractall(path)``). The constructor's parameters, read from the class's own doc
when the pool has it (else the template's argument names, each required), are offered before the
method's, with the same rules (fill/call_grammar.py slots): a value only from the task, a named placeholder
for a required one the task lacks. They are rendered inside the receiver's parentheses.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from gorilla_tui.check.builtin_types import TYPES
from gorilla_tui.check.receivers import COPIES
from gorilla_tui.fill.backticks import backticked
from gorilla_tui.fill.call_grammar import PATH_SHAPED, Slot, TaskValues, is_quoted, values_for
from gorilla_tui.fill.roles import writes_to_path
from gorilla_tui.fill.spoken import PATHLIKE
from gorilla_tui.pool.apidoc import ApiDoc
from gorilla_tui.pool.params import Param, params_of

#: How a filled call finds the doc of a receiver's class by its dotted name (None when the pool lacks it).
Constructors = Callable[[str], "ApiDoc | None"]


@dataclass(frozen=True)
class Receiver:
    """A method call's receiver. callee: the class (``zipfile.ZipFile``); method: the method's name
    (``extractall``); params: the constructor's parameters as filling offers them (a name a method's
    parameter also has is left out: one name, one slot); spread: the name of a leading ``*args`` taken as
    one positional parameter (receiver_params), of a first parameter whose default is None
    (``tarfile.TarFile(name=None)``) or of one named for a collection's items (``list(iterable=())``): what
    the object is made of, offered a path or a list the task writes ("" when none)."""

    callee: str
    method: str
    params: tuple[Param, ...]
    spread: str = ""

    @property
    def call_callee(self) -> str:
        """The method's callee with the receiver's arguments left out (``zipfile.ZipFile().extractall``)."""
        return f"{self.callee}().{self.method}"


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = _dotted(node.value)
        return f"{head}.{node.attr}" if head else ""
    return ""


def receiver_call(doc: ApiDoc) -> tuple[str, str, list[str]] | None:
    """(class, method, the template's receiver argument names) of a call ``pkg.Class(a, b).method(...)``,
    or None for any other call (a function, a class method ``Class.method()``, a call Python cannot
    parse)."""
    try:
        node = ast.parse(doc.call.strip(), mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return None
    inner = node.func.value
    if not isinstance(inner, ast.Call) or not (cls := _dotted(inner.func)):
        return None
    names = [a.id for a in inner.args if isinstance(a, ast.Name)]
    names += [k.arg for k in inner.keywords if k.arg]
    return cls, node.func.attr, names


def receiver_params(ctor: ApiDoc | None, template: Sequence[str]) -> list[Param]:
    """The constructor's parameters: `ctor`'s (pool/params.py params_of; a leading ``*args``, as
    ``pathlib.Path(*args)`` has, becomes one optional positional parameter, since a path is what it takes;
    other ``*args`` / ``**kwargs`` are never filled), or, without a doc whose parameters are known, the
    `template`'s argument names, each required and positional."""
    params = params_of(ctor) if ctor is not None else []
    if not params:
        return [Param(name=n, required=True, kind="positional") for n in template]
    out = []
    for i, p in enumerate(params):
        if p.kind == "var" and i == 0:
            out.append(dataclasses.replace(p, kind="posonly"))
        elif p.kind not in ("var", "varkw"):
            out.append(p)
    return out


def receiver_of(doc: ApiDoc, method: Sequence[Param], constructors: Constructors | None) -> Receiver | None:
    """The Receiver of `doc`'s call (receiver_call), with its constructor's parameters from the class's doc
    that `constructors` finds; None when the call has no receiver of its own class. A constructor parameter
    named like one of the `method`'s parameters is left out."""
    found = receiver_call(doc)
    if found is None:
        return None
    cls, name, template = found
    ctor = constructors(cls) if constructors is not None else None
    taken = {p.name for p in method}
    params = tuple(p for p in receiver_params(ctor, template) if p.name not in taken)
    spread = next(
        (
            p.name
            for p in params[:1]
            if ctor is not None
            and not p.required
            and (
                p.kind == "posonly"
                and f"*{p.name}" in ctor.api_arguments  # pathlib.Path(*args)
                or p.kind == "positional"
                and p.has_default
                and p.default is None
                or p.kind in ("positional", "posonly")
                and _COLLECTION.fullmatch(p.name) is not None
            )
        ),
        "",
    )  # tarfile.TarFile(name=None), list(iterable=())
    return Receiver(cls, name, params, spread)


#: Names of a constructor's first parameter that takes the items the object is made of (``list(iterable=())``,
#: ``collections.Counter(iterable=None)``, ``collections.deque(iterable)``): it takes a list the task writes.
_COLLECTION = re.compile(r"iterable|seq|sequence|items|elements")


def with_spread(receiver: Receiver, offered: list[Slot], task: TaskValues) -> list[Slot]:
    """`offered` with the receiver's leading ``*args`` or optional first parameter (Receiver.spread) offered
    first when the task writes a string as one value (a path, a URL, quoted text:
    ``pathlib.Path('/var/log')``), optional, so the model may leave it out (``pathlib.Path()`` is the
    current folder), unless the task writes more such values than the method's required parameters take
    ("make a symlink called latest that points to releases/v2.1": ``pathlib.Path('latest')``, else the
    method's target, chosen first, had left the receiver out); quoted text is no receiver where the task
    writes a path ("save the word 'ready' to a file flag.txt": ``pathlib.Path('flag.txt')``); `offered`
    itself otherwise. Where the method writes to a path of its own (roles.writes_to_path), the receiver is
    the source (Slot.role): "extract backup.tar.gz to /opt/app" gives the archive to the receiver and
    /opt/app to the method. A collection's items (_COLLECTION: list's iterable) are the list the task writes
    whole, where it writes one ("sort ['pear', 'apple', 'fig']": ``list(['pear', 'apple', 'fig']).sort()``;
    dev task s12-sorted lost the list)."""
    if not receiver.spread or any(s.param.name == receiver.spread for s in offered):
        return offered
    param = next(p for p in receiver.params if p.name == receiver.spread)
    values = {t: c for t, c in values_for(param, task).items() if c.kind == "string" and c.atomic}
    if _COLLECTION.fullmatch(param.name):  # "sort ['pear', 'apple']": list([...]).sort(), not list().sort()
        lists = {t: c for t, c in values_for(param, task).items() if c.kind == "list"}
        values = lists or values
    if any(isinstance(c.value, str) and PATH_SHAPED.search(c.value) for c in values.values()):
        # "save 'ready' to flag.txt": not 'ready'
        values = {t: c for t, c in values.items()
                  if PATH_SHAPED.search(c.value) or not is_quoted(c, task.text)}  # fmt: skip
    own = {p.name for p in receiver.params}
    method = [s for s in offered if s.param.name not in own]
    role = "source" if writes_to_path([s.param for s in method]) else ""
    if len(values) > sum(1 for s in method if s.param.required and s.values):  # one value left for it
        param = dataclasses.replace(param, required=True)
    return [Slot(param, values, role), *offered] if values else offered


def _suffixes(value: str) -> list[str]:
    """The file-type suffixes of a path, lower case ('backup.tar.gz' -> ['tar', 'gz'])."""
    name = re.split(r"[/\\]", value)[-1]
    return [x.lower() for x in re.findall(r"\.([A-Za-z][A-Za-z0-9]{1,7})(?=\.|$)", name)]


def by_file_type(receiver: Receiver, offered: list[Slot]) -> list[Slot]:
    """`offered` with the receiver's path parameter (named for a path or file, or its spread one) offered
    only the task's paths whose file type names the receiver's module (a suffix of two letters or more that
    begins the module's name: 'bundle.zip' for zipfile.ZipFile, 'backup.tar.gz' for tarfile.TarFile), where
    the task writes such a path: "put report.pdf and data.csv into a new archive bundle.zip" is
    ``zipfile.ZipFile('bundle.zip').write(...)``; the task's order had given ZipFile('report.pdf'). So too
    where the method writes out of it (extractall): "unzip archive.zip into the folder out" is
    ``zipfile.ZipFile('archive.zip').extractall('out')``, whatever the model makes of the words (it had
    given ZipFile('out')); unchanged where the task writes no such path."""
    module = receiver.callee.rsplit(".", 1)[0].lower()
    own = {p.name for p in receiver.params}
    out = []
    for slot in offered:
        name = slot.param.name
        if name in own and (PATHLIKE.search(name) or name == receiver.spread):
            typed = {
                text: c
                for text, c in slot.values.items()
                if isinstance(c.value, str) and any(module.startswith(x) for x in _suffixes(c.value))
            }
            slot = dataclasses.replace(slot, values=typed) if typed else slot
        out.append(slot)
    return out


#: The words a task types its variable with, before it in backticks ("the string `s`", "the list
#: `scores`"), and the class each names; "" for a number, which a text method's receiver converts
#: (``str(n).zfill(6)``).
_TYPE_WORDS = {
    "string": "str", "str": "str", "text": "str", "list": "list", "dict": "dict", "dictionary": "dict",
    "set": "set", "tuple": "tuple", "bytes": "bytes", "bytearray": "bytearray", "deque": "collections.deque",
    "counter": "collections.Counter", "number": "", "integer": "", "int": "", "float": "",
}  # fmt: skip
_TYPED = re.compile(r"\b(" + "|".join(_TYPE_WORDS) + r")\s+(?:(?:named|called)\s+)?$", re.IGNORECASE)
#: Classes whose constructor, given one object, makes a copy or a conversion of it (builtins' types of
#: check/builtin_types.py TYPES, collections' containers of check/receivers.py COPIES).
CONVERSIONS = frozenset(TYPES) | COPIES


def stated_types(task: str) -> dict[str, str]:
    """The class `task` gives each variable it writes in backticks by the word right before it
    (_TYPE_WORDS: "reverse the string `s`" -> {"s": "str"}); variables with no such word are left out."""
    out = {}
    for b in backticked(task):
        found = _TYPED.search(task[max(0, b.start - 40) : b.start]) if b.code else None
        if found is not None:
            out[b.code] = _TYPE_WORDS[found.group(1).lower()]
    return out


def own_receiver(receiver: Receiver, given: Mapping[str, tuple[str, str]],
                 stated: Mapping[str, str]) -> tuple[str, str] | None:  # fmt: skip
    """(the variable, the class the checker reads it as) where a method's receiver is the person's own
    variable, written as it is (``text.count('the')``, ``scores.sort(reverse=True)``), not converted to
    the chosen API's class (``list(text).count('the')`` counts list items, always 0 on a string;
    ``list(scores).sort()`` sorts a copy and drops it: break-it rounds 31 and 32); None where the
    receiver's constructor call is kept. `given`: the receiver's arguments (name -> (value source,
    origin)); it must be one variable the task names (origin "variable"), the receiver's class a container
    whose constructor copies it (COPIES) or the type the task gives the variable (`stated`, stated_types:
    "the string `s`" is str, read so by the checker: ``s.reverse()`` then fails the check as str has no
    reverse). A conversion is kept where the type is another or unsaid and the class is immutable
    (``str(n).zfill(6)``: a number made text)."""
    if receiver.callee not in CONVERSIONS or len(given) != 1:
        return None
    ((value, origin),) = given.values()
    if origin != "variable":
        return None
    kind = stated.get(value)
    if kind in CONVERSIONS:
        return value, kind  # the type the task gives it: "the list `xs`", "the string `s`"
    return (value, receiver.callee) if kind is None and receiver.callee in COPIES else None


def of_stated_type(docs: Sequence[ApiDoc], picked: int, task: str) -> int:
    """The hit (index into `docs`) of the chosen method on the class the task gives its variable, where the
    chosen hit `picked` is that method of another container or text class (CONVERSIONS) and a hit of the
    same source has it on the stated one ("count 'the' in the string `text`": ``str.count``, not
    ``list.count``, which counts a list's items; break-it round 32); `picked` otherwise."""
    stated = {v for v in stated_types(task).values() if v}
    chosen = docs[picked]
    owner, _, method = chosen.api_name.rpartition(".")
    if not stated or owner in stated or owner not in CONVERSIONS or not chosen.call.startswith(owner + "("):
        return picked  # str.count of a str: already; a function or a class method: no receiver
    wanted = {f"{cls}.{method}" for cls in stated}
    return next((i for i, d in enumerate(docs) if d.api_name in wanted and d.source == chosen.source), picked)
