"""Filling: the chosen API's call with the task's values, written by the model under a grammar.

After select mode has chosen a doc, `fill` asks the model for the call's arguments with a GBNF grammar
(fill/call_grammar.py) that admits only the values the task states (fill/values.py), the parameter's own
enum members and booleans, or a named placeholder for a required parameter the task gives no value for.
The model decides which value goes where and which optional parameters the task asks for; it cannot invent
a value. The result is parsed (never evaluated) and written back as the call Python will run: positional
where the signature wants it, keywords otherwise.
"""

from __future__ import annotations

import ast
import dataclasses
import keyword
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from gorilla_tui.fill.call_grammar import Slot, TaskValues, call_grammar, slots
from gorilla_tui.fill.values import Candidate, literal
from gorilla_tui.pool.apidoc import ApiDoc
from gorilla_tui.pool.params import Param, params_of
from gorilla_tui.types import Argument

#: Few-shot examples of the fill prompt: made-up functions, none from an eval set (BFCL, APIBench).
FILL_PREFIX = """Write the function calls for the request. Use the values the request gives.

Functions:
set_alarm(time: string, days: array, label: string) - Set an alarm. time: As HH:MM. days: The days it rings.
Request: Wake me up at 06:30 on Monday and Friday and call it gym.
Calls: set_alarm(time='06:30', days=['Monday', 'Friday'], label='gym')

Functions:
get_forecast(city: string, days: integer) - Get the weather forecast. city: The city. days: Days ahead.
convert_currency(amount: number, source: string, target: string) - Convert money.
Request: What will the weather be in Oslo and in Rome over the next 2 days?
Calls: get_forecast(city='Oslo', days=2); get_forecast(city='Rome', days=2)

Functions:
move_file(source: string, destination: string) - Move a file. source: The file to move.
Request: move notes/today.md into archive/2024.md
Calls: move_file(source='notes/today.md', destination='archive/2024.md')

"""
#: Nats added to a value of the task that comes before the previous argument's value ("copy src to
#: backup/src": arguments mostly follow the task's order); chosen on BFCL's even ids (docs/benchmarks.md).
ORDER_BIAS = -1.0
NEXT_BIAS = -0.5
#: Nats added to going on with another call ("; callee(") rather than ending the line (offered only while a
#: value is left for it, _fresh: the model's own preference for ending the line was over 8 nats on every
#: BFCL dev question, parallel ones included), and to a value an earlier call of the task used; chosen on
#: BFCL's even ids (docs/benchmarks.md).
CALL_BIAS = 10.0
REUSE_BIAS = -3.0
#: Most calls one task gets, and most functions the fill prompt shows (the chosen one and other hits).
MAX_CALLS = 8
MAX_FUNCTIONS = 4
#: Characters of a doc's description (and of each parameter's) kept in the fill prompt.
DESCRIPTION_CHARS = 300


@dataclass
class Filled:
    """A filled call. call: the call's source text (``time.sleep(10)``); arguments: one Argument per
    parameter given or left as a placeholder, in call order; calls: the call in BFCL's decoded form
    (``[{"time.sleep": {"secs": 10}}]``; placeholders left out); seconds: the model's time."""

    call: str
    arguments: list[Argument] = field(default_factory=list)
    calls: list[dict[str, dict[str, Any]]] = field(default_factory=list)
    seconds: float = 0.0


def callee_of(doc: ApiDoc) -> str:
    """The callee of a doc's call (``os.renames`` of ``os.renames(old, new)``), or "" when its call is not
    a plain call of a dotted name."""
    try:
        node = ast.parse(doc.call.strip(), mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return ""
    if not isinstance(node, ast.Call):
        return ""
    try:
        return ast.unparse(node.func)
    except (ValueError, RecursionError):  # pragma: no cover - ast.unparse of a parsed name
        return ""


def python_code(doc: ApiDoc, call: str) -> str:
    """The code to copy and run for a filled `call` of `doc`: the doc's example code with its template call
    replaced by the filled one where the example holds it (python-env's ``import shutil`` + the call), else
    the call alone."""
    template = doc.call.strip()
    if template and template in doc.example_code:
        return doc.example_code.replace(template, call, 1)
    return call


def decoded_calls(code: str) -> list[dict[str, dict[str, Any]]]:
    """Every call of `code` whose arguments are all literals given by keyword, in BFCL's decoded form
    ``[{"callee": {"param": value}}]`` (values as ast.literal_eval reads them; never evaluated). A call
    with a positional argument or a non-literal value is left out (its parameter names are not known here);
    [] for text Python cannot parse."""
    try:
        tree = ast.parse(code.strip())
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return []
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or node.args or any(k.arg is None for k in node.keywords):
            continue
        try:
            values = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
            out.append({ast.unparse(node.func): values})
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
    return out


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."


def signature_line(callee: str, params: Sequence[Param]) -> str:
    """``callee(name: type, ...)`` as the fill prompt shows a function (types "any" left unsaid)."""
    parts = [p.name + (f": {p.type}" if p.type != "any" else "") for p in params]
    return f"{callee}({', '.join(parts)})"


def function_line(target: Target) -> str:
    """One function as the fill prompt lists it: its signature (the offered parameters), " - ", its
    description and each parameter's, clipped."""
    params = [sl.param for sl in target.offered]
    described = " ".join(f"{p.name}: {_clip(p.description, 80)}" for p in params if p.description.strip())
    doc = target.doc
    about = _clip(doc.description or doc.functionality or doc.api_name, DESCRIPTION_CHARS)
    text = " ".join(x for x in (about, described) if x)
    return signature_line(target.callee, params) + (f" - {_clip(text, DESCRIPTION_CHARS)}" if text else "")


def fill_prompt(task: str, targets: Sequence[Target]) -> str:
    """FILL_PREFIX, the functions (the chosen one first), the request and ``Calls: callee(`` of the first,
    after which the arguments follow."""
    functions = "\n".join(function_line(t) for t in targets)
    request = " ".join(task.split())
    return f"{FILL_PREFIX}Functions:\n{functions}\nRequest: {request}\nCalls: {targets[0].callee}("


def parse_arguments(text: str) -> dict[str, ast.expr]:
    """The keyword arguments of ``name=value, ...)`` (the grammar's text): name -> value node, first
    occurrence kept. Raises SyntaxError when the text is not such a list (a cut-short answer)."""
    node = ast.parse(f"f({text}", mode="eval").body
    if not isinstance(node, ast.Call) or node.args:
        raise SyntaxError("not a keyword argument list")
    out: dict[str, ast.expr] = {}
    for kw in node.keywords:
        if kw.arg is not None and kw.arg not in out:
            out[kw.arg] = kw.value
    return out


def render(
    callee: str, params: Sequence[Param], given: dict[str, tuple[str, str]]
) -> tuple[str, list[Argument]]:
    """The call's text and its arguments in call order.

    Args:
        callee: the dotted callee; params: the doc's parameters in declared order.
        given: name -> (value source text, origin) of the parameters filled or left as placeholders.

    Returns:
        (call text, [Argument]): parameters that may be given by position and come before any gap are
        positional (``os.renames('a', 'b')``), the rest by keyword (``**{'class': 3}`` for a name Python
        cannot write as a keyword); a positional-only parameter after a gap
        gets its default written out (origin "default"), or the placeholder when it has none.
    """
    positional: list[str] = []
    keywords: list[str] = []
    unnamed: list[str] = []
    args: list[Argument] = []
    gap = False
    for p in params:
        if p.name not in given:
            if p.kind in ("positional", "posonly"):
                gap = True
            continue
        value, origin = given[p.name]
        if p.kind == "posonly" or (p.kind == "positional" and not gap):
            if p.kind == "posonly" and gap:  # cannot be given by keyword: fill the gap before it
                for q in params[: params.index(p)]:
                    if q.kind == "posonly" and q.name not in given and q.has_default:
                        positional.append(_default(q))
                        args.append(Argument(q.name, _default(q), "default"))
            positional.append(value)
        elif p.name.isidentifier() and not keyword.iskeyword(p.name):
            keywords.append(f"{p.name}={value}")
        else:  # a tool's parameter named "class" or "my-param": Python's own way to pass it
            unnamed.append(f"{literal(p.name)}: {value}")
        args.append(Argument(p.name, value, origin))
    if unnamed:
        keywords.append("**{" + ", ".join(unnamed) + "}")
    return f"{callee}({', '.join(positional + keywords)})", args


def _default(param: Param) -> str:
    try:
        return literal(param.default)
    except TypeError:
        return str(param.default)


def decoded(callee: str, given: dict[str, tuple[str, str]]) -> list[dict[str, dict[str, Any]]]:
    """The call in BFCL's decoded form: ``[{callee: {name: value}}]`` with the values Python reads from the
    literals; placeholders are left out."""
    values = {}
    for name, (source, origin) in given.items():
        if origin == "missing":
            continue
        try:
            values[name] = ast.literal_eval(source)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
    return [{callee: values}]


@dataclass
class Target:
    """A function the filled calls may call: its doc, callee, parameters and the slots offered for this
    task (fill/call_grammar.py slots)."""

    doc: ApiDoc
    callee: str
    params: list[Param]
    offered: list[Slot]


def target_of(doc: ApiDoc, values: TaskValues) -> Target | None:
    """The Target of `doc` for a task's values, or None when its call has no plain callee or no parameter
    to fill (the hubs' complete calls)."""
    callee = callee_of(doc)
    params = params_of(doc)
    if not callee or not params:
        return None
    return Target(doc, callee, params, slots(params, values))


def fill(backend: Any, task: str, doc: ApiDoc, *, others: Sequence[ApiDoc] = (), max_tokens: int = 200,
         cancel: threading.Event | None = None) -> Filled | None:  # fmt: skip
    """The call of `doc` with the task's values, and further calls where the task asks for several
    ("the weather in Oslo and in Rome": one call each), or None when `doc` has no parameter to fill (the
    hubs' complete calls; unknown parameters) or its call has no plain callee.

    Args:
        backend: a model.backend.Backend; with a `chooser` (LlamaBackend: model/constrained.py) the model
            writes the calls step by step, else it completes one call under the GBNF grammar.
        task: the task as typed (values are read from it, not from the text retrieval searched).
        doc: the chosen pool entry: the first call's.
        others: the other docs a further call may call (the hits; at most MAX_FUNCTIONS are shown).
        max_tokens: a bound on the arguments' tokens (grammar path).
        cancel: set to stop the model early.

    Raises:
        GorillaError: what the backend raises (ContextOverflowError when the prompt does not fit n_ctx).
    """
    values = TaskValues.of(task)
    first = target_of(doc, values)
    if first is None:
        return None
    targets = [first]
    for other in others:
        t = target_of(other, values)
        if t is not None and len(targets) < MAX_FUNCTIONS and t.callee not in {x.callee for x in targets}:
            targets.append(t)
    started = time.perf_counter()
    prompt = fill_prompt(task, targets)
    if callable(getattr(backend, "chooser", None)):
        written = _write_calls(backend, prompt, targets, cancel)
    else:  # a backend without the KV-cache chooser (a server): one call, the same language as a GBNF grammar
        text = "".join(backend.complete(prompt, max_tokens=max_tokens, grammar=call_grammar(first.offered),
                                        temperature=0.0, cancel=cancel))  # fmt: skip
        written = [(first, _given(text, first.offered))]
    filled = Filled("", seconds=time.perf_counter() - started)
    texts = []
    for n, (target, given) in enumerate(written):
        call, arguments = render(target.callee, target.params, given)
        texts.append(call)
        filled.arguments += [dataclasses.replace(a, call=n) for a in arguments]
        filled.calls += decoded(target.callee, given)
    filled.call = "\n".join(texts)
    return filled


Written = list[tuple["Target", dict[str, tuple[str, str]]]]


def _write_calls(backend: Any, prompt: str, targets: Sequence[Target],
                 cancel: threading.Event | None) -> Written:  # fmt: skip
    """The calls the model writes with backend.chooser: the first target's arguments, then, while the model
    goes on with "; callee(" rather than ending the line, another call of any target (at most MAX_CALLS).
    A value an earlier call used may be used again, at REUSE_BIAS."""
    out: Written = []
    before: list[tuple[int, int]] = []
    with backend.chooser(prompt, cancel, prefix=FILL_PREFIX) as chooser:
        target = targets[0]
        while True:
            given = _arguments_stepwise(chooser, target.offered, before)
            if any(t.callee == target.callee and g == given for t, g in out):
                break  # the same call again: the task asks for no more
            out.append((target, given))
            if len(out) >= MAX_CALLS:
                break
            # another function only among tools the source describes (a schema); an API of a library is
            # called again only itself ("delete a.txt and b.txt"), never a neighbour hit (textwrap.shorten
            # after textwrap.wrap)
            fresh = [
                t for t in targets if (t is targets[0] or t.doc.parameters is not None) and _fresh(t, before)
            ]
            if not fresh:
                break
            pick = chooser.choose([f"; {t.callee}(" for t in fresh] + ["\n"],
                                  bias=[CALL_BIAS] * len(fresh))  # fmt: skip
            if pick >= len(fresh):
                break
            target = fresh[pick]
    return out


def _arguments_stepwise(chooser: Any, offered: Sequence[Slot],
                        before: list[tuple[int, int]]) -> dict[str, tuple[str, str]]:  # fmt: skip
    """name -> (value source, origin) of one call, written by the model one argument at a time (after
    ``callee(``, through the closing ")"): at each step the options are ``name=value`` of every slot up to
    and including the next required one (so optional slots may be skipped), or ")" once no required slot is
    left. A value of the task used by one argument is not offered to a later one of the same call (its
    span, fill/values.py); one an earlier call used (`before`, extended here) is, at REUSE_BIAS."""
    given: dict[str, tuple[str, str]] = {}
    used: list[tuple[int, int]] = []
    i = 0
    while i < len(offered):
        sep = ", " if given else ""
        nxt = next((j for j in range(i, len(offered)) if offered[j].param.required), None)
        reach = offered[i : (nxt + 1 if nxt is not None else len(offered))]
        options: list[tuple[int, str, str]] = []  # (slot index, value source, origin)
        for k, slot in enumerate(reach, start=i):
            if slot.placeholder:
                options.append((k, slot.param.name, "missing"))
                continue
            for text, c in slot.values.items():
                if c.start < 0 or not _overlaps(c, used):
                    options.append((k, text, "task"))
            if slot.param.required and not any(o[0] == k for o in options):
                options.append((k, slot.param.name, "missing"))  # every value is taken
        texts = [
            f"{sep}{offered[k].param.name}={'[' if offered[k].is_list and o == 'task' else ''}{v}"
            for k, v, o in options
        ]
        if nxt is None:
            texts.append(")")
        bias = _order_bias([_start(offered[k], v) for k, v, _o in options], used)
        bias = [b + (REUSE_BIAS if o == "task" and _overlaps(offered[k].values.get(v), before) else 0.0)
                for b, (k, v, o) in zip(bias, options, strict=True)]  # fmt: skip
        pick = chooser.choose(texts, ends=(",", ")"), bias=bias)
        if pick >= len(options):  # ")" : no more optional arguments
            break
        k, value, origin = options[pick]
        slot = offered[k]
        if slot.is_list and origin == "task":
            value = _list_items(chooser, slot, value, used)
        else:
            _use(slot, value, used)
        given[slot.param.name] = (value, origin)
        i = k + 1
    else:
        chooser.choose([")"])
    before.extend(used)
    return given


def _fresh(target: Target, before: Sequence[tuple[int, int]]) -> bool:
    """True when `target` can be called again with a value no call used yet: a required slot that takes
    numbers or values the task writes whole (paths, URLs, quoted text, dates, digits) has one whose span is
    still unused
    ("20 minutes and 15 minutes": 15 is left for a second call). Runs of words are always left over, so
    they do not count."""
    marked = [
        sl for sl in target.offered
        if sl.param.required and any(_marked(c, sl) for c in sl.values.values())
    ]  # fmt: skip
    return bool(marked) and any(
        _marked(c, sl) and not _overlaps(c, before) for sl in marked for c in sl.values.values()
    )  # fmt: skip


def _marked(c: Candidate, slot: Slot) -> bool:
    """A value the task marks as one: a string it writes whole, digits ("Case No 28473"), or a number for
    a parameter declared a number (a parameter of unknown type, python-env's, does not count numbers: the
    2024 of "05/01/2024" is no second call of strptime)."""
    if c.start < 0:
        return False
    if c.kind == "number":
        return slot.param.type in ("integer", "number")
    return c.atomic or str(c.value).isdigit()


def _overlaps(c: Candidate | None, spans: Sequence[tuple[int, int]]) -> bool:
    return c is not None and c.start >= 0 and any(s < c.end and c.start < e for s, e in spans)


def _order_bias(starts: Sequence[int], used: Sequence[tuple[int, int]]) -> list[float]:
    """Nats added to each option by where its value stands in the task: ORDER_BIAS before the last value
    used, NEXT_BIAS after it but not the first value there (arguments mostly follow the task's order: "copy
    src to backup/src"); 0 for the first value after it and for values the task does not write."""
    last = max((e for _s, e in used), default=-1)
    ahead = [s for s in starts if last <= s < 1 << 30]
    first = min(ahead, default=-1)
    return [0.0 if s >= 1 << 30 or s == first else ORDER_BIAS if s < last else NEXT_BIAS for s in starts]


def _start(slot: Slot, value: str) -> int:
    c = slot.values.get(value)
    return c.start if c is not None and c.start >= 0 else 1 << 30


def _use(slot: Slot, value: str, used: list[tuple[int, int]]) -> None:
    """Mark the span of the task `value` came from as used (a declared value has none)."""
    c = slot.values.get(value)
    if c is not None and c.start >= 0:
        used.append((c.start, c.end))


def _list_items(chooser: Any, slot: Slot, first: str, used: list[tuple[int, int]]) -> str:
    """The list literal of an array slot whose first item `first` was chosen: further items (", item", each
    value of the task once) until the model closes it with "]"."""
    items = [first]
    _use(slot, first, used)
    while len(items) < 50:
        rest = [t for t, c in slot.values.items() if t not in items and not any(
            s < c.end and c.start < e for s, e in used)]  # fmt: skip
        pick = chooser.choose([f", {t}" for t in rest] + ["]"], ends=(",", ")"))
        if pick >= len(rest):
            break
        items.append(rest[pick])
        _use(slot, rest[pick], used)
    else:
        chooser.choose(["]"])
    return "[" + ", ".join(items) + "]"


def _given(text: str, offered: Sequence[Slot]) -> dict[str, tuple[str, str]]:
    """name -> (value source, origin) of the model's text: each value as the grammar admitted it (origin
    "task"), the placeholder of a slot with no value ("missing"); a required slot the text lacks (cut
    short) gets its placeholder."""
    try:
        nodes = parse_arguments(text)
    except SyntaxError:
        nodes = {}
    by_name = {s.param.name: s for s in offered}
    given: dict[str, tuple[str, str]] = {}
    for name, node in nodes.items():
        slot = by_name.get(name)
        if slot is None:
            continue
        source = ast.unparse(node)
        if slot.placeholder:
            given[name] = (name, "missing")
        elif source in slot.values or (source := _match(source, slot)):
            given[name] = (source, "task")
    for slot in offered:
        if slot.param.required and slot.param.name not in given:
            given[slot.param.name] = (slot.param.name, "missing")
    return given


def _match(source: str, slot: Slot) -> str:
    """The slot's value whose literal reads as `source` (ast.unparse writes 'x' where the grammar had "x")."""
    try:
        value = ast.literal_eval(source)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return ""
    return next((text for text, c in slot.values.items() if c.value == value), "")
