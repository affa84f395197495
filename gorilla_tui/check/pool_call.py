"""The verdict of one call whose callee is a pool callee (the Validator's rule 2, check/validator.py): the
entry PoolIndex.match finds, its arguments held to its signature (check/imports.py argument_errors) or to
its JSON Schema (check/arguments.py), valid or wrong_args; a call no entry matches gets a cheap wrong_args
whose did-you-mean is built only when it decides the verdict (full_verdict); and a helper load a matched
model's example code makes the same way made valid (helper_rows)."""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable, Set

from gorilla_tui.check.arguments import has_schema, read_arguments, schema_errors
from gorilla_tui.check.callsite import CallSite
from gorilla_tui.check.file_args import file_arg_errors
from gorilla_tui.check.imports import argument_errors, needed_call
from gorilla_tui.check.pool_index import PoolEntry, PoolIndex, helper_loaded
from gorilla_tui.check.signature import bind, canonical, family
from gorilla_tui.check.stub_types import stub_call_errors, stub_type_errors
from gorilla_tui.check.wrong_args import did_you_mean, unmatched_reason
from gorilla_tui.pool.pyenv.compiled_signature import signature_unsure
from gorilla_tui.types import CallVerdict, Verdict

#: At most this many function-calling entries of one callee are tried for a call (_schema_verdict).
MAX_SCHEMAS = 32


#: ``from module import *``: bare names of the code may come from that module.
_STAR_IMPORT = re.compile(r"^[ \t]*from[ \t]+[\w.]+[ \t]+import[ \t]+\*", re.MULTILINE)


@functools.lru_cache(maxsize=8)
def _has_star_import(code: str) -> bool:
    """True when `code` has ``from module import *`` (searched once per code, not once per call: a large
    file has thousands of calls)."""
    return _STAR_IMPORT.search(code) is not None


#: id(cheap verdict) -> (its call, a function building the full verdict with suggestions), see full_verdict.
Lazy = dict[int, tuple[CallSite, Callable[[], Verdict]]]


def near_later(index: PoolIndex, verdict: Verdict, callee: str) -> Callable[[], Verdict]:
    """A function giving `verdict` with the pool callees nearest to `callee` as its suggestions
    (PoolIndex.near_callees), for the lazy table: ranked only when the verdict decides (full_verdict)."""

    def build() -> Verdict:
        return dataclasses.replace(verdict, suggestions=index.near_callees(callee))

    return build


def full_verdict(verdict: Verdict, per_call: list[CallVerdict], lazy: Lazy) -> Verdict:
    """The deciding verdict with its did-you-mean when it was built cheaply (cheap_wrong); its row in
    per_call gets the full reason too."""
    found = lazy.get(id(verdict))
    if found is None:
        return verdict
    call, build = found
    full = build()
    for row in per_call:
        if row.line == call.line and row.col == call.col and row.callee == canonical(call.callee):
            row.reason = full.reason
            row.matched = full.matched.id if full.matched else None
    return full


#: Reasons about how many arguments a call gives (not judged against a signature Python does not state).
_ARITY = frozenset({"wrong_args:missing_argument", "wrong_args:too_many_arguments"})


def call_verdict(
    index: PoolIndex,
    call: CallSite,
    code: str,
    lazy: Lazy,
    bound: Set[str] = frozenset(),
    prefer: str | None = None,
) -> tuple[str, Verdict]:
    """(role, verdict) of one call whose callee is a pool callee (role "pool" or "python-env"). bound:
    the names the code binds (Scan.assigned); a callee whose first name is one of them (``def
    input(inplace=False)`` then ``input(inplace=True)``), or a bare name in code with a star import
    (os.py: ``from posix import *`` then ``open(path, flags, dir_fd=fd)``), may be another function than
    the pool entry, so its arguments are not held against the entry's signature. prefer: the doc id
    PoolIndex.match prefers among entries of the same identity. A string literal where the entry's doc
    says a file object goes is wrong_args, its did-you-mean the call with the file opened
    (check/file_args.py: ``json.load(open('config.json'))``)."""
    callee = canonical(call.callee)
    role = "pool" if callee in index.api_callees else "python-env"
    entry = index.match(call, code, prefer)
    partial = call.via.rsplit(".", 1)[-1] in ("partial", "partialmethod")  # the rest comes later
    head = call.callee.split(".", 1)[0].split("(", 1)[0]
    own = head in bound or (head == call.callee and _has_star_import(code))
    judged = entry is not None and not partial and not own
    if entry is not None and judged and has_schema(entry.doc):
        return role, _schema_verdict(index, call, entry)
    reason, notes = argument_errors(entry.doc, call) if judged else ("", [])
    if reason in _ARITY and role == "python-env" and signature_unsure(callee, reason):
        reason, notes = "", []  # time.ctime(): its doc's signature is a docstring's (the linter's rule too)
    if entry is not None and judged and not reason:  # a path where the doc says a file object goes
        reason, notes, opened = file_arg_errors(entry.doc, call)
        if reason:
            return role, Verdict("wrong_args", call.text, entry.doc, [opened], notes, reason)
        if role == "python-env":  # a literal its type stub refuses: threading.Thread('14:00')
            reason, notes = stub_type_errors(entry.doc, call)
            if not reason:  # no overload of its stub takes the call: datetime.date(2025) (break-it 30)
                reason, notes = stub_call_errors(callee, call)
    if entry is not None and not reason:
        return role, Verdict("valid", call.text, entry.doc)
    if entry is not None:
        return role, Verdict("wrong_args", call.text, entry.doc, [needed_call(entry.doc)], notes, reason)
    return role, cheap_wrong(index, call, lazy)


def _schema_verdict(index: PoolIndex, call: CallSite, entry: PoolEntry) -> Verdict:
    """The verdict of a call of a function-calling entry (ApiDoc.parameters, check/arguments.py): valid
    with the first entry of its callee whose schema the arguments meet (`entry`, the one
    PoolIndex.match chose, first; a pool may hold several functions of one name, BFCL's simple category
    has 27 such names), else wrong_args with `entry`'s problems. At most MAX_SCHEMAS entries are
    tried."""
    args = read_arguments(call)
    table = index.tables[canonical(call.callee)]
    others = [e for e in table.entries if e is not entry and has_schema(e.doc)][: MAX_SCHEMAS - 1]
    for candidate in (entry, *others):
        if not schema_errors(candidate.doc, call, args, suggest=False).reason:
            return Verdict("valid", call.text, candidate.doc)
    found = schema_errors(entry.doc, call, args)  # the did-you-mean only for the verdict given
    return Verdict("wrong_args", call.text, entry.doc, found.suggestions, found.notes, found.reason)


def cheap_wrong(index: PoolIndex, call: CallSite, lazy: Lazy) -> Verdict:
    """A cheap wrong_args verdict for a pool call that matches no entry (no did-you-mean ranking; the
    deciding call gets the full one, check/wrong_args.py did_you_mean). Its reason: unmatched_reason."""
    verdict = Verdict("wrong_args", call.text, None, [], [], unmatched_reason(index, call))
    lazy[id(verdict)] = (call, lambda: did_you_mean(index, call))  # the full verdict when it decides
    return verdict


def helper_rows(
    index: PoolIndex, rows: list[tuple[CallSite, str, Verdict | None]]
) -> list[tuple[CallSite, str, Verdict | None]]:
    """Rows with each helper load (``torch.hub.load(repo, 'nvidia_convnets_processing_utils')``) that a
    matched model's example_code loads the same way turned into role "helper", valid: the code loads
    the model and its pre-processing helper as the pool doc shows (the paper's error is a helper
    returned *instead of* the model)."""
    models = [v.matched for _, role, v in rows if role == "pool" and v is not None and v.ok and v.matched]
    if not models:
        return rows
    out = []
    for call, role, verdict in rows:
        if verdict is not None and verdict.kind == "wrong_args" and role == "pool":
            callee = canonical(call.callee)
            found = helper_loaded(callee, bind(call, family(callee) or ()), index.tables[callee].entries)
            users = {id(e.doc) for e in found[1]} if found else set()
            model = next((m for m in models if id(m) in users), None)
            if model is not None:
                out.append((call, "helper", Verdict("valid", call.text, model)))
                continue
        out.append((call, role, verdict))
    return out
