"""Filling: the chosen API's call with the task's values, written by the model under a grammar.

After select mode has chosen a doc, `fill` asks the model for the call's arguments with a GBNF grammar
(fill/call_grammar.py) that admits only the values the task states (fill/values.py), the parameter's own
enum members and booleans, or a named placeholder for a required parameter the task gives no value for.
The model decides which value goes where and which optional parameters the task asks for; it cannot invent
a value. The result is parsed (never evaluated) and written back as the call Python will run: positional
where the signature wants it, keywords otherwise (fill/render.py).
"""

from __future__ import annotations

import ast
import dataclasses
import re
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from gorilla_tui.fill.addresses import with_addresses
from gorilla_tui.fill.call_grammar import FILLABLE, Slot, TaskValues, call_grammar, python_slots, slots
from gorilla_tui.fill.candidate import BYTES
from gorilla_tui.fill.chains import NOW_FACTORIES, Methods, factory_receiver, implied, links, now_receiver
from gorilla_tui.fill.derived import (
    with_bytes_names,
    with_characters,
    with_collected,
    with_commands,
    with_descending,
    with_formats,
    with_no_case,
    with_text_receiver,
)
from gorilla_tui.fill.documented import minus_extension, with_documented, without_extensions
from gorilla_tui.fill.examples import replace_examples
from gorilla_tui.fill.file_objects import path_slots
from gorilla_tui.fill.folders import with_folder_first, with_named_folder
from gorilla_tui.fill.format_specs import with_format_strings
from gorilla_tui.fill.kinds import (
    claim_numbers,
    forwarded_after,
    link_roles,
    named_variables,
    positions,
    stub_fit,
    with_forwarded,
    with_patterns,
    with_variables,
)
from gorilla_tui.fill.lengths import with_character_counts
from gorilla_tui.fill.naming import first_named
from gorilla_tui.fill.ranges import with_ranges
from gorilla_tui.fill.receivers import (
    Constructors,
    Receiver,
    by_file_type,
    receiver_of,
    stated_types,
    with_spread,
)
from gorilla_tui.fill.render import decoded_calls, render_target
from gorilla_tui.fill.roles import CONTAINER, doc_roles, with_container
from gorilla_tui.fill.target import Target
from gorilla_tui.fill.writer import write_calls
from gorilla_tui.pool.apidoc import ApiDoc
from gorilla_tui.pool.params import Param, params_of
from gorilla_tui.pool.stub_cache import takes_bytes as stub_bytes
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
#: Most functions the fill prompt shows (the chosen one and other hits).
MAX_FUNCTIONS = 4
#: Characters of a doc's description (and of each parameter's) kept in the fill prompt.
DESCRIPTION_CHARS = 300


@dataclass
class Filled:
    """A filled call. call: the call's source text (``time.sleep(10)``); arguments: one Argument per
    parameter given or left as a placeholder, in call order; calls: the call in BFCL's decoded form
    (``[{"time.sleep": {"secs": 10}}]``; placeholders left out); seconds: the model's time; doc: the doc
    of the first call, None when unknown (APIZoo's replaced examples: the chosen doc's). It is another hit's
    than the chosen doc when the task makes several requests and names that hit's words first
    (naming.first_named): the proposal then describes that doc (Pipeline._ask). types: each variable of
    the task written as a method's receiver -> the class the checker reads it as (fill/receivers.py
    own_receiver: ``{"text": "list"}`` for ``text.count('the')``)."""

    call: str
    arguments: list[Argument] = field(default_factory=list)
    calls: list[dict[str, dict[str, Any]]] = field(default_factory=list)
    seconds: float = 0.0
    doc: ApiDoc | None = None
    types: dict[str, str] = field(default_factory=dict)


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


def parse_arguments(text: str) -> dict[str, str]:
    """The keyword arguments of ``name=value, ...)`` (the grammar's text): name -> the value's source as
    ast.unparse writes it, first occurrence kept. Read with ast, never evaluated.

    Raises:
        SyntaxError: the text is not such a list (a cut-short answer), or no text Python reads: a server
            that ignores the grammar can send a lone surrogate (UnicodeEncodeError), 12,000 unary minus
            signs (MemoryError) or 3,000 nested ``not`` (RecursionError, in parsing or in unparsing; break-it
            round 20, R20-1: each was "internal error").
    """
    try:
        node = ast.parse(f"f({text}", mode="eval").body
        if not isinstance(node, ast.Call) or node.args:
            raise SyntaxError("not a keyword argument list")
        out: dict[str, str] = {}
        for kw in node.keywords:
            if kw.arg is not None and kw.arg not in out:
                out[kw.arg] = ast.unparse(kw.value)
    except (ValueError, MemoryError, RecursionError) as e:
        raise SyntaxError(f"not readable as Python: {type(e).__name__}") from None
    return out


def takes_bytes(doc: ApiDoc, param: Param) -> bool:
    """Whether `param` of `doc` takes bytes: a default that is a bytes literal (``hashlib.md5(string=b'')``),
    or a description that says so of it by name ("Encode the bytes-like object s using Base64",
    ``base64.b64encode(s)``; "Writes the bytes b"), or a standard-library function's type stub
    (pool/stub_cache.py takes_bytes: ``s: ReadableBuffer``). A parameter whose source gave a type keeps
    it."""
    if param.raw_type or param.kind not in FILLABLE:
        return False
    if param.has_default and isinstance(param.default, bytes):
        return True
    if doc.source == "python-env" and stub_bytes(doc.api_name, param.name):  # typeshed: ReadableBuffer
        return True
    said = rf"\bbytes(?:-like)?(?: object| string)?s? {re.escape(param.name)}\b"
    return bool(re.search(said, doc.description))


def target_of(doc: ApiDoc, values: TaskValues, constructors: Constructors | None = None,
              receivers: dict[str, Receiver] | None = None) -> Target | None:  # fmt: skip
    """The Target of `doc` for a task's values, or None when its call has no plain callee or no parameter
    to fill (the hubs' complete calls). A method's call on a receiver of its own class
    (``zipfile.ZipFile(file).extractall(path)``, fill/receivers.py) offers the constructor's parameters
    first (found by `constructors`: class name -> its doc); its Target's callee leaves the receiver's
    arguments out (``zipfile.ZipFile().extractall``), and its Receiver is put in `receivers` by that
    callee. A function's parameters its doc names the part and the whole of ("choose k items from n
    items") get those roles (fill/roles.py doc_roles); a parameter named for a socket address takes the
    task's (host, port) pairs (fill/addresses.py). A receiver's slots have the role CONTAINER: the value the
    task's words make what the call acts on ("in `line`", "from the dict `d`") is the receiver's alone
    (fill/roles.py with_container)."""
    callee = callee_of(doc)
    params = [dataclasses.replace(p, raw_type=BYTES) if takes_bytes(doc, p) else p for p in params_of(doc)]
    params = with_forwarded(doc, params)  # check_output's **kwargs: cwd, env, ... (its stub's)
    params = with_documented(doc, params, values.text)  # make_archive's format 'zip' when the task says zip
    values = without_extensions(doc, params, values)  # "a tar.gz archive": format 'gztar', no file 'tar.gz'
    params, values = minus_extension(doc, params, values)  # make_archive('reports', 'zip') for reports.zip
    receiver = receiver_of(doc, params, constructors) if callee else None
    if receiver is not None and constructors is not None:  # sqlite3.connect(database), not Connection()
        made = factory_receiver(receiver.callee, receiver.method, constructors(receiver.callee), constructors,
                                {p.name for p in params})  # fmt: skip
        receiver = made or now_receiver(receiver, constructors, values) or receiver
    if receiver is not None:
        params = [*receiver.params, *params]
        callee = receiver.call_callee
        if receivers is not None:
            receivers[callee] = receiver
    made_now = receiver is not None and receiver.callee.rpartition(".")[2] in NOW_FACTORIES
    if not callee or not params and not made_now:  # date.today().weekday(): no parameter, but its receiver
        return None
    offered = with_addresses(slots(params, values), values, params)  # "8.8.8.8 ... port 53": one (host, port)
    offered = path_slots(doc, offered)  # a file-object parameter takes a path (opened when rendered)
    if doc.source == "python-env":  # "zip the folder photos": make_archive's root_dir takes photos
        offered = with_named_folder(params, offered, values)
    if receiver is None:
        offered = doc_roles(doc.description, python_slots(params, offered, values), params, values)
    else:
        offered = by_file_type(receiver, with_spread(receiver, offered, values))
        if doc.source == "python-env":  # a string method's receiver: ','.join(parts), line.replace(...)
            offered = with_text_receiver(
                receiver.callee, receiver.params, offered, values.text, receiver.method
            )
        # what "in `line`", "of `queue`" name (roles.with_container), unless the receiver has a role already
        # (with_spread: the archive read where its method writes to a path of its own) or is join's
        # separator (str.join(iterable): "join the words in `words` with `sep`" acts on words)
        own = {p.name for p in receiver.params}
        if receiver.method != "join" and not any(s.role for s in offered if s.param.name in own):
            offered = [dataclasses.replace(s, role=CONTAINER) if s.param.name in own else s for s in offered]
    owners = positions(doc.api_name, params_of(doc))  # a receiver's parameters are its class's (R26-1)
    owners = {**(positions(receiver.callee, receiver.params) if receiver else {}), **owners}
    kept = _kept(doc, offered, params, values.text, owners)
    python = receiver is not None or doc.source == "python-env"  # a tool's parameters are data, not names
    return Target(doc, callee, params, with_container(kept, values.text) if python else kept)


def _kept(doc: ApiDoc, offered: list[Slot], params: list[Param], task: str,
          owners: dict[str, tuple[str, int]]) -> list[Slot]:  # fmt: skip
    """`offered` with what fill/kinds.py knows of the values each takes: only the kinds a Python function's
    stub admits (stub_fit; `owners` as it takes them), the variables the task names (with_variables), a glob
    pattern of the extension and folder the task names (with_patterns), a number beside a parameter's name
    given to that one (claim_numbers); for a standard-library function the values it takes in another form
    (fill/derived.py: a command line's words, characters named in words, bytes of a named string, a date's
    strptime format, a collection variable passed to ``*args``, a key or flags that ignore case; a range the
    task bounds for a function that draws from one, fill/ranges.py)."""
    if doc.source == "python-env":
        offered = with_variables(
            stub_fit(doc.api_name, forwarded_after(doc, offered, task), owners), task, doc.api_name
        )
        offered = link_roles(doc.api_name, with_patterns(doc.api_name, offered, params, task))
        offered = with_folder_first(doc.api_name, offered, task)  # os.path.join('/var/www', 'index.html')
        offered = with_formats(doc.api_name, with_commands(doc.api_name, offered), task)
        offered = with_format_strings(doc.api_name, offered, params, task)  # 'DD/MM/YYYY' -> '%d/%m/%Y'
        offered = with_collected(params, with_bytes_names(offered, task), task)
        offered = with_characters(doc.api_name, offered, params, task)
        offered = with_ranges(doc.api_name, with_no_case(doc.api_name, offered, params, task), task)
        offered = with_character_counts(doc.api_name, offered, task)  # "32 character hex": token_hex(16)
        offered = with_descending(offered, params, task)  # scores.sort(reverse=True) for "descending"
    return claim_numbers(offered, task)


def fill(backend: Any, task: str, doc: ApiDoc, *, others: Sequence[ApiDoc] = (), max_tokens: int = 200,
         cancel: threading.Event | None = None, constructors: Constructors | None = None,
         methods: Methods | None = None) -> Filled | None:  # fmt: skip
    """The call of `doc` with the task's values, and further calls where the task asks for several
    ("the weather in Oslo and in Rome": one call each), or None when `doc` has no parameter to fill (the
    hubs' complete calls; unknown parameters) or its call has no plain callee. A complete call whose
    source writes example values (APIZoo) has them replaced by the task's of the same shape, the rest
    listed as the doc's (fill/examples.py replace_examples; no model call).

    Args:
        backend: a model.backend.Backend; with a `chooser` (LlamaBackend: model/constrained.py) the model
            writes the calls step by step, else it completes one call under the GBNF grammar.
        task: the task as typed (values are read from it, not from the text retrieval searched).
        doc: the chosen pool entry: the first call's.
        others: the other docs a further call may call (the hits; at most MAX_FUNCTIONS are shown).
        max_tokens: a bound on the arguments' tokens (grammar path).
        cancel: set to stop the model early.
        constructors: class name -> its doc, or None (the pool's; fill/receivers.py): where a method's
            receiver gets its constructor's parameters; without it, the template's receiver arguments.
        methods: class name -> the pool's docs of its methods, or None: where a call's result takes a
            second call (fill/chains.py: ``sqlite3.connect('notes.db').execute('SELECT ...')``).

    Raises:
        GorillaError: what the backend raises (ContextOverflowError when the prompt does not fit n_ctx).
    """
    values = TaskValues.of(task)
    receivers: dict[str, Receiver] = {}
    first = target_of(doc, values, constructors, receivers)
    if first is None:  # a complete call: its example values (APIZoo's) give way to the task's
        replaced = replace_examples(doc, task)
        return None if replaced is None else Filled(replaced[0], replaced[1], decoded_calls(replaced[0]))
    targets = [first]
    for other in others:
        t = target_of(other, values, constructors, receivers)
        if t is not None and len(targets) < MAX_FUNCTIONS and t.callee not in {x.callee for x in targets}:
            targets.append(t)
    targets = first_named(targets, task)
    first = targets[0]
    started = time.perf_counter()
    prompt = fill_prompt(task, targets)
    if callable(getattr(backend, "chooser", None)):
        chained = {t.callee: links(t, values, methods, receivers) for t in targets[:1]}
        written = write_calls(backend, prompt, targets, FILL_PREFIX, cancel, task, chained)
    else:  # a backend without the KV-cache chooser (a server): one call, the same language as a GBNF grammar
        text = "".join(backend.complete(prompt, max_tokens=max_tokens, grammar=call_grammar(first.offered),
                                        temperature=0.0, cancel=cancel))  # fmt: skip
        written = [(first, _given(text, first.offered))]
    lead = written[0][0].doc if written else first.doc
    if written and all(
        written[0][0] is not t for t in targets
    ):  # a method on a call's result (chains.links):
        # the call's own doc leads (sqlite3.connect of ``sqlite3.connect('notes.db').execute(...)``)
        lead = next((t.doc for t in targets if written[0][0].callee.startswith(f"{t.callee}().")), first.doc)
    filled = Filled("", seconds=time.perf_counter() - started, doc=lead)
    texts = []
    stated = stated_types(task)
    for n, (target, given) in enumerate(written):
        receiver = receivers.get(target.callee)
        given = implied(receiver, receiver.params if receiver is not None else (), given)
        given = named_variables(target, given)
        call, arguments, calls = render_target(target, given, receiver, stated, filled.types)
        texts.append(call)
        filled.arguments += [dataclasses.replace(a, call=n) for a in arguments]
        filled.calls += calls
    filled.call = "\n".join(texts)
    return filled


def _given(text: str, offered: Sequence[Slot]) -> dict[str, tuple[str, str]]:
    """name -> (value source, origin) of the model's text: each value as the grammar admitted it (origin
    "task"), the placeholder of a slot with no value ("missing"); a required slot the text lacks (cut
    short) gets its placeholder."""
    try:
        sources = parse_arguments(text)
    except SyntaxError:
        sources = {}
    by_name = {s.param.name: s for s in offered}
    given: dict[str, tuple[str, str]] = {}
    for name, source in sources.items():
        slot = by_name.get(name)
        if slot is None:
            continue
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
