"""A second call on the first call's result: "open notes.db and run SELECT * FROM notes" is
``sqlite3.connect('notes.db').execute('SELECT * FROM notes')``, "write the text 'done' into status.txt" is
``open('status.txt', 'w').write('done')``.

The class a function returns is read from its type stubs (pool/typeshed.py returned: ``sqlite3.connect`` ->
``sqlite3.Connection``), its methods from the pool (the python-env docs ``Class(...).method(...)``, found by
a `Methods` lookup). Each method becomes a Target received from the function's call (`links`): its own
parameters are the slots, the function's are the receiver's (fill/receivers.py Receiver, rendered inside
its parentheses). fill/writer.py offers ``.method(`` after the function's call only while the task has a
value left that the method's required parameter takes (writer._fresh); the model chooses the method or
ends the line.

The other way round, a method whose class the pool gives no constructor parameters
(``sqlite3.Connection().execute(sql)``: ``sqlite3.Connection()`` cannot take the database) is received
from the module's function that returns its class (`factory_receiver`: ``sqlite3.connect(database)``).
A method that writes (``write``, ``writelines``) on the result of a function with a ``mode`` parameter
opens it for writing (`implied`: ``open(p, 'w')``, ``gzip.open(p, 'wb')``).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence

from gorilla_tui.fill.biases import CHAIN_BIAS, MENTION_BIAS, NEAR_BIAS, marked, overlaps
from gorilla_tui.fill.call_grammar import FILLABLE, TaskValues, python_slots, slots
from gorilla_tui.fill.candidate import BYTES, Candidate
from gorilla_tui.fill.file_objects import path_slots
from gorilla_tui.fill.kinds import positions, stub_fit, with_variables
from gorilla_tui.fill.receivers import Constructors, Receiver, receiver_call
from gorilla_tui.fill.spoken import name_parts
from gorilla_tui.fill.sql import statements
from gorilla_tui.fill.target import Target
from gorilla_tui.pool.apidoc import ApiDoc
from gorilla_tui.pool.params import Param, params_of
from gorilla_tui.pool.stub_cache import takes_bytes as stub_bytes
from gorilla_tui.pool.typeshed import factories, returned

#: How filling finds the pool's docs of a class's methods by the class's dotted name ([] when none).
Methods = Callable[[str], Sequence[ApiDoc]]
#: Most methods offered after one call (the model scores each ``.method(`` it is offered).
MAX_LINKS = 24
#: A method that writes to what it is called on: the function that made it opens it for writing.
_WRITES = re.compile(r"^write")


def result_methods(function: str, methods: Methods) -> tuple[str, list[ApiDoc]]:
    """(the class, the pool's docs of its methods) of the class a call of `function` returns
    (pool/typeshed.py returned: the first of its names the pool has methods of), or ("", [])."""
    for cls in returned(function):
        docs = [d for d in methods(cls) if (r := receiver_call(d)) is not None and r[0] == cls]
        if docs:
            return cls, docs
    return "", []


def links(target: Target, values: TaskValues, methods: Methods | None,
          receivers: dict[str, Receiver]) -> list[Target]:  # fmt: skip
    """The Targets of the methods of the class `target`'s function returns, each received from that call
    (callee ``sqlite3.connect().execute``; its Receiver put in `receivers` by that callee): a method's own
    slots are offered (fill/call_grammar.py slots, as a Python function's, with the variables the task names:
    fill/kinds.py with_variables), the function's parameters are
    the receiver's. Only methods with a required parameter that the task gives a value (the ones
    fill/writer.py may offer), at most MAX_LINKS; a method parameter named like one of the function's is
    left out. [] without `methods`, for a target that is itself a method's, or a function whose result the
    stubs do not name."""
    if methods is None or target.callee.endswith(")") or "()." in target.callee:
        return []
    _cls, docs = result_methods(target.callee, methods)
    taken = {p.name for p in target.params}
    out: list[Target] = []
    for doc in docs:
        found = receiver_call(doc)
        if found is None:
            continue
        params = [
            dataclasses.replace(p, raw_type=BYTES)
            if not p.raw_type and stub_bytes(doc.api_name, p.name)
            else p
            for p in params_of(doc)
            if p.name not in taken
        ]  # send(data): bytes, never a str
        offered = python_slots(params, path_slots(doc, slots(params, values)), values)
        offered = stub_fit(
            doc.api_name, offered, positions(doc.api_name, params)
        )  # setblocking's flag: a bool
        # the variables the task names, as a function's slots take them (fill/filler.py _kept): "write `text`
        # to the file `out_file`" is open(out_file, 'w').write(text), not .write('text') (break-it 30, F-H4)
        offered = with_variables(offered, values.text, doc.api_name)
        if not any(s.param.required and s.values for s in offered if s.param.kind in FILLABLE):
            continue
        callee = f"{target.callee}().{found[1]}"
        receivers[callee] = Receiver(target.callee, found[1], tuple(target.params))
        out.append(Target(doc, callee, [*target.params, *params], offered))
        if len(out) >= MAX_LINKS:
            break
    return out


def factory_receiver(cls: str, method: str, ctor: ApiDoc | None, constructors: Constructors | None,
                     taken: set[str]) -> Receiver | None:  # fmt: skip
    """The Receiver of `method` made by a function of `cls`'s module that returns `cls` (pool/typeshed.py
    factories) and takes parameters, where the pool gives the class's constructor (`ctor`) none:
    ``sqlite3.connect(database).execute(sql)``, not ``sqlite3.Connection().execute(sql)``; None where the
    constructor has parameters, no such function is in the pool, or `constructors` is None. `taken`: the
    method's parameter names (a function parameter of the same name is left out)."""
    if constructors is None or (ctor is not None and params_of(ctor)):
        return None
    for name in factories(cls):
        doc = constructors(name)
        params = tuple(p for p in params_of(doc) if p.kind in FILLABLE and p.name not in taken) if doc else ()
        if params:
            spread = next((p.name for p in params[:1] if p.has_default and p.default is None), "")
            return Receiver(name, method, params, spread)
    return None


def implied(receiver: Receiver | None, params: Sequence[Param],
            given: dict[str, tuple[str, str]]) -> dict[str, tuple[str, str]]:  # fmt: skip
    """`given` with the receiver's ``mode`` set to write where the method writes (_WRITES) and the task gave
    no mode: "w", or "wb" where the mode's default is binary ('rb' of gzip.open); origin "method". `params`:
    the receiver's parameters. `given` itself otherwise."""
    if receiver is None or not _WRITES.match(receiver.method) or "mode" in given:
        return given
    mode = next((p for p in params if p.name == "mode" and p.kind in FILLABLE), None)
    if mode is None:
        return given
    binary = isinstance(mode.default, str) and "b" in mode.default
    return {**given, "mode": (repr("wb" if binary else "w"), "method")}


def onward(
    chain: Sequence[Target], before: Sequence[tuple[int, int]], task: str
) -> list[tuple[Target, float]]:
    """The links of `chain` a call may go on with, each with its bias in nats, their slots offered only the
    values no call used yet (`before`: the spans used): a link whose every required parameter takes such a
    value the task marks (biases.marked), a distinct one each (``create_function(name, narg, func)`` is no
    way on with one SQL statement left). CHAIN_BIAS, plus MENTION_BIAS where the task names the method by
    a word of its name ("write the text 'done' ..."), plus NEAR_BIAS where a required parameter is named
    for the kind of value left (_named_for: an SQL statement for ``sql``)."""
    out = []
    for link in chain:
        offered = [
            dataclasses.replace(s, values={k: c for k, c in s.values.items() if not overlaps(c, before)})
            for s in link.offered
        ]
        required = [s for s in offered if s.param.required and s.param.kind in FILLABLE]
        free: set[tuple[int, int]] = set()
        for slot in required:
            spans = [(c.start, c.end) for c in slot.values.values() if marked(c, slot)]
            pick = next((sp for sp in spans if sp not in free), None)
            if pick is None:
                break
            free.add(pick)
        else:
            if not required:
                continue
            bias = CHAIN_BIAS + (MENTION_BIAS if _spoken(link.callee, task) else 0.0)
            if any(_named_for(s.param.name, c, task) for s in required for c in s.values.values()):
                bias += NEAR_BIAS
            out.append((dataclasses.replace(link, offered=offered), bias))
    return out


#: Parameter names that take one SQL statement (fill/sql.py): sqlite3's execute(sql), DB-API's
#: execute(operation), pandas.read_sql(sql), psycopg's execute(query); not executescript(sql_script).
_SQL_NAMES = re.compile(r"^(?:sql|query|operation|statement)$")


def _named_for(name: str, c: Candidate, task: str) -> bool:
    """Whether parameter `name` is named for the kind of value `c` is: an SQL statement for sql/query."""
    return (
        c.start >= 0
        and bool(_SQL_NAMES.match(name))
        and any(c.start <= s and e <= c.end for s, e in statements(task))
    )  # quoted or not


def _spoken(callee: str, task: str) -> bool:
    """Whether the task speaks of the method `callee` ends with by a word of its name ("write the text
    'done' into status.txt": write)."""
    words = {w.lower() for w in re.findall(r"[A-Za-z]+", task)}
    return any(w in words for w in name_parts(callee.rsplit(".", 1)[-1]))


#: Words by which a task asks about the present moment ("the current time", "right now", "today's date").
_NOW = re.compile(r"\b(?:now|current(?:ly)?|today(?:'s)?|present|this\s+moment)\b", re.IGNORECASE)
#: The factories of a class that give the present moment, in the order tried (datetime.datetime.now,
#: datetime.date.today).
NOW_FACTORIES = ("now", "today")


def now_receiver(receiver: Receiver, constructors: Constructors | None, task: TaskValues) -> Receiver | None:
    """The Receiver made by the class's own factory of the present moment (NOW_FACTORIES, a pool doc
    taking no argument) when the task asks about it (_NOW: "show the current time in ISO 8601") and writes
    no date or number for the constructor: ``datetime.datetime.now().isoformat()``, not
    ``datetime.datetime(year).isoformat()``. None otherwise."""
    if constructors is None or not _NOW.search(task.text):
        return None
    if task.numbers or any(c.kind == "date" for c in task.strings):
        return None  # "the weekday of 2026-12-07": the date the task writes makes the receiver
    for name in NOW_FACTORIES:
        doc = constructors(f"{receiver.callee}.{name}")
        if doc is not None and not [p for p in params_of(doc) if p.kind in FILLABLE and p.required]:
            return Receiver(f"{receiver.callee}.{name}", receiver.method, ())
    return None
