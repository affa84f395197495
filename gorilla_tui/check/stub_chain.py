"""Standard-library attribute chains the python-env docs do not reach (R26-7): ``sys.stdout.buffer.write``.

The python-env docs hold a module's names and the methods of its module-level objects (``sys.stdout`` is
documented as an io.TextIOWrapper: ``sys.stdout.write``), not the attributes of those attributes
(``sys.stdout.buffer`` is a BufferedWriter). Such a callee was a near-miss of ``sys.stdout.write``, a
hallucination in `check CODE` and `run`, while `check FILE` left it unjudged (check/judged.py rule 3).
chain_verdict() follows the chain through typeshed's stubs (pool/stub_members.py: ``stdout: TextIO`` ->
``TextIO.buffer: BinaryIO`` -> ``IO.write``) and judges it as the one-level form is (break-it round 27):

- a name the class reached lacks (its bases too, all read) is a hallucination with the class's nearest
  members as did-you-mean (``sys.stdout.buffer.wirte``: ``sys.stdout.buffer.write``);
- a method's call is held to the stub's signature: when no overload takes the arguments as given (too
  many positional ones, a keyword it has no parameter for, a required one missing), wrong_args
  (``sys.stdout.buffer.write(b'x', 1)``: IO.write takes one); a call with ``*args`` / ``**kwargs`` is
  not counted;
- any other chain the stubs resolve is a real name (valid, its arguments not judged);
- one they cannot resolve, or that a stub's abstract type cannot list (a base the stubs cannot read) is
  not judged in either route (the linter's rule: never a false alarm on real code).
"""

from __future__ import annotations

import ast
import builtins
import io
import sys
from typing import TYPE_CHECKING

from gorilla_tui.check.stub_types import method_call_errors, stub_arguments
from gorilla_tui.check.verdicts import later_note
from gorilla_tui.pool.pyenv.binds import module_binds, split_callee
from gorilla_tui.types import Verdict

if TYPE_CHECKING:
    from collections.abc import Callable, Set

    from gorilla_tui.check.callsite import CallSite
    from gorilla_tui.check.pool_index import PoolIndex

#: What chain_verdict gives: (role, verdict or None, why it is not judged or "").
Judged = tuple[str, Verdict | None, str]


def chain_verdict(validator: PoolIndex, call: CallSite, callee: str, bound: Set[str]) -> Judged | None:
    """What the stubs say of standard-library callee `callee` (``module.name.attr...method``, no call in
    the chain) the pool lacks (see the module doc): ("python-env", a valid or wrong_args Verdict, "") for
    a real name, ("family", a hallucination Verdict, "") for a missing one, ("unjudged", None, why) when
    ``module.name`` exists but the rest is past the pool's docs and the stubs cannot say; None when the
    rule does not apply (a module's own name; ``sys.stdout.wrte``: the pool lists the methods of
    sys.stdout, so it is judged by them). bound: the names the code binds (a local ``sys`` is no module).
    """
    root = callee.split(".", 1)[0]
    if "(" in callee or root not in sys.stdlib_module_names or root in validator.api_roots:
        return None
    if root in bound or call.via:
        return None
    split = split_callee(callee)
    if split is None or len(split[1]) < 2:
        return None
    module, attrs = split
    from gorilla_tui.pool.stub_members import attribute_chain, chain_method  # deferred: typeshed_client, rare

    dotted = f"{module}.{'.'.join(attrs)}"
    found = attribute_chain(dotted)
    where = f"{call.line}:{call.col}: {call.callee}"
    if found:
        problem = arguments_problem(chain_method(dotted), call)
        if problem:
            reason, note = problem
            return "python-env", Verdict("wrong_args", call.text, None, [], [f"{where}: {note}"], reason), ""
        return "python-env", Verdict("valid", call.text, None), ""
    prefix = f"{module}.{attrs[0]}"
    # the pool lists that object's methods, or its class's (``logging.Handler().close``: a pool class)
    documented = any(c.startswith((prefix + ".", prefix + "().")) for c in validator.callees)
    if len(attrs) == 2 and documented:
        return None  # the pool lists that object's methods: judged by them (``sys.stdout.wrte``)
    if found is False and (missing := missing_by_stubs(dotted)) is not None:
        owner, name, near = missing
        note = f"{where} does not exist (the type stubs' {owner} has no attribute {name!r})"
        reason = "hallucination:unknown_callee"
        return "family", Verdict("hallucination", call.text, None, near, [note], reason), ""
    if not documented and module_binds(module, attrs[0]) is not True:
        return None  # ``module.name`` itself is not known to exist: judged as before
    return (
        "unjudged",
        None,
        f"{prefix} exists; {'.'.join(attrs[1:])} is past the pool's docs and its type stubs",
    )


#: Classes a stub names as a call's result that only say what the real object has at least: a name they lack
#: may be the real object's (``ZipFile('a').open('x').read1()``: a ZipExtFile; ``tarfile.open(...)
#: .extractfile('x').peek()``: an ExFileObject; break-it round 31), so it is not called a hallucination.
INTERFACE_RESULTS = frozenset({"typing.IO", "typing.BinaryIO", "typing.TextIO", "IO", "BinaryIO", "TextIO"})


def result_verdict(
    validator: PoolIndex,
    call: CallSite,
    callee: str,
    bound: Set[str],
    chain_call: Callable[[CallSite, str], CallSite | None] | None = None,
) -> Judged | None:
    """What the stubs say of a method called on a standard-library call's result (break-it round 29, F5:
    ``sqlite3.connect('a.db').exeucte('x')``, pool/stub_results.py): ("family", a hallucination Verdict
    with the classes' nearest members as did-you-mean, "") when no class the result may be has the name;
    ("python-env", a wrong_args Verdict, "") when the one class it has is the name's gives it a literal its
    stub refuses (``hashlib.md5().update('x')``: check/stub_types.py method_call_errors); None when one
    has it otherwise (the call stays incidental: the verdict is its first call's, with that call's
    doc matched), when the stubs cannot say, or when the rule does not apply (a root the code binds or a
    hub shares, a call passed to a wrapper, no call in the chain).
    chain_call: the scanned call of the chain `call` whose callee is a prefix (``sqlite3.connect``,
    ``sqlite3.connect().cursor``): its arguments choose the overloads each step may take (break-it round
    30, F-M1: ``check_output(['ls'])`` returns bytes, ``Path('a').open()`` a TextIOWrapper)."""
    root = callee.split(".", 1)[0].split("(", 1)[0]
    builtin = root in _BUILTIN_NAMES and "." not in callee.split("(", 1)[0]
    if "()" not in callee or root in bound or call.via or root in validator.api_roots:
        return None
    if not builtin and root not in sys.stdlib_module_names:
        return None
    from gorilla_tui.pool.stub_results import result_chain  # deferred: typeshed_client, rare

    reached = result_chain(callee, None, _chain_arguments(call, callee, chain_call))
    if reached.state == "found":  # hashlib.md5().update('x'): a literal its one class's stub refuses
        reason, notes = method_call_errors(reached.owners, callee.rsplit(".", 1)[-1], call)
        verdict = Verdict("wrong_args", call.text, None, [], notes, reason) if reason else None
        return ("python-env", verdict, "") if verdict is not None else None
    if reached.state != "missing":
        return None  # real or unknown: incidental as before, the chain's first call decides (its doc matched)
    if any(o.split("[", 1)[0] in INTERFACE_RESULTS for o in reached.owners):
        return None  # the stub names an interface the real object is more than (ZipFile.open(): ZipExtFile)
    parts = callee.split(".")
    owners = " / ".join(reached.owners[:3]) + (" ..." if len(reached.owners) > 3 else "")
    note = f"{call.line}:{call.col}: {call.callee} does not exist (the type stubs' {owners} has no attribute"
    note += f" {parts[reached.at].removesuffix('()')!r})"
    note += later_note(reached.later)
    reason = "hallucination:unknown_callee"
    return "family", Verdict("hallucination", call.text, None, list(reached.near), [note], reason), ""


def _chain_arguments(
    call: CallSite, callee: str, chain_call: Callable[[CallSite, str], CallSite | None] | None
) -> tuple:
    """Per part of `callee`, the arguments (pool/stub_results.py CallArgs) of the call that part makes,
    None where the part is not called or its call is not known (every overload kept)."""
    parts = callee.split(".")
    out: list = []
    for i, part in enumerate(parts):
        site = None
        if part.endswith("()") and chain_call is not None:
            site = chain_call(call, ".".join([*parts[:i], part.removesuffix("()")]))
        out.append(stub_arguments(site) if site is not None and not site.splat else None)
    return tuple(out)


#: The builtins a chain may start with (``open('a').read``), not rebound by the code.
_BUILTIN_NAMES = frozenset(dir(builtins))


#: The standard library's own classes a stub's abstract IO type stands for (typing.TextIO is sys.stdout's
#: type in the stubs, io.TextIOWrapper at run time; typing.BinaryIO its buffer's, io.BufferedWriter).
_IO_CLASSES = tuple(c for c in vars(io).values() if isinstance(c, type) and c.__module__ in ("io", "_io"))


def _runtime_may_have(owner: str, name: str) -> bool:
    """True when the object a chain reaches may have attribute `name` though its stub class `owner` lacks
    it: the stub's class is one of typing's abstract IO types and a class of io has it
    (``sys.stdout.buffer.detach``, ``sys.stderr.buffer.raw``: BufferedWriter's, not BinaryIO's)."""
    return owner.startswith("typing.") and any(hasattr(c, name) for c in _IO_CLASSES)


def missing_by_stubs(dotted: str) -> tuple[str, str, list[str]] | None:
    """(the stub class that lacks it, the missing name, did-you-mean callees) when standard-library chain
    `dotted` (``sys.stdout.buffer.wirte``) names an attribute its stub class and every base lack and the
    runtime object cannot have it either (_runtime_may_have); None otherwise. check/judged.py reports
    such a hallucination in `check FILE` too (one verdict whatever the route)."""
    from gorilla_tui.pool.stub_members import attribute_chain, chain_near  # deferred: typeshed_client

    if attribute_chain(dotted) is not False:
        return None
    owner, name, near = chain_near(dotted)
    return None if not owner or _runtime_may_have(owner, name) else (owner, name, near)


def arguments_problem(
    overloads: list[ast.FunctionDef | ast.AsyncFunctionDef], call: CallSite
) -> tuple[str, str] | None:
    """(reason code, note) when no overload of a stub method (bound: its first parameter is the instance,
    unless a staticmethod) takes `call`'s arguments, judged as Python binds them: too many positional
    arguments, a keyword naming no parameter (or a positional-only one), one given twice, a required
    parameter missing; the first overload's problem is reported. None when one takes them, there is no
    overload, or the call has ``*args`` / ``**kwargs``."""
    if not overloads or call.splat:
        return None
    problems = [_problem(fn, len(call.positional), list(call.keywords)) for fn in overloads]
    return None if any(p is None for p in problems) else problems[0]


def _problem(
    fn: ast.FunctionDef | ast.AsyncFunctionDef, given: int, keywords: list[str], method: bool = True
) -> tuple[str, str] | None:
    """The first problem of binding `given` positional arguments and `keywords` to stub method `fn` (not
    `method`: a module-level function, no instance bound to its first parameter)."""
    a = fn.args
    slots = [*a.posonlyargs, *a.args]
    if method and not any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in fn.decorator_list):
        slots = slots[1:]  # self / cls
    n_default = len(a.defaults)
    required = {p.arg for p in [*a.posonlyargs, *a.args][: len(a.posonlyargs) + len(a.args) - n_default]}
    positional_only = {p.arg for p in a.posonlyargs} | {p.arg for p in slots if p.arg.startswith("__")}
    named = {p.arg for p in slots if p.arg not in positional_only} | {p.arg for p in a.kwonlyargs}
    name = fn.name
    if given > len(slots) and a.vararg is None:
        n = len(slots)
        return (
            "wrong_args:too_many_arguments",
            f"{name} takes {n} positional argument{'s' * (n != 1)}, {given} given",
        )
    for key in keywords:
        if key not in named and a.kwarg is None:
            return "wrong_args:unknown_keyword", f"{name} has no parameter {key!r} it takes by keyword"
        if key in {p.arg for p in slots[:given]}:
            return "wrong_args:duplicate_argument", f"{name} got multiple values for argument {key!r}"
    filled = {p.arg for p in slots[:given]} | set(keywords)
    missing = [p.arg for p in slots if p.arg in required and p.arg not in filled]
    missing += [
        p.arg for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True) if d is None and p.arg not in filled
    ]
    if missing:
        return "wrong_args:missing_argument", f"{name} requires {missing[0]!r}"
    return None
