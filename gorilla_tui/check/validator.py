"""The AST validator: a verdict (valid, wrong_args, hallucination, unparseable, no_call) for code vs the pool.

Verdict rule when code holds several calls (documented in docs/validator.md):
1. every call whose (alias-folded) callee is a pool callee is a *pool call*; if any pool call matches a pool
   entry on its identifying arguments the verdict is ``valid`` (the first such call, in source order);
2. else, if there is a pool call, ``wrong_args`` for the first one, with did-you-mean entries of that callee;
3. else a request line / HTTP client call is matched against the pool's REST templates;
4. else the first call that is not *incidental* gives ``hallucination`` with the nearest known callees.
   Incidental calls never decide a verdict: builtins (print, len), calls on a name the code assigned itself
   (``model = ...; model.eval()``) unless that name is a pool root (``hub``, ``torch``), and calls on a
   call's result with a non-pool root;
5. else ``no_call``. Code that does not parse is ``unparseable`` (line:col of the first errors).
"""

from __future__ import annotations

import builtins
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from gorilla_tui.check.callsite import CallSite, scan
from gorilla_tui.check.extract import extract
from gorilla_tui.check.imports import missing_required, resolve_calls
from gorilla_tui.check.rest import RestTable, http_method, path_of, request_lines
from gorilla_tui.check.signature import (
    ABSENT,
    SLOT,
    Requirement,
    bind,
    canonical,
    family,
    primary_call,
    requirement,
)
from gorilla_tui.check.suggest import dice, nearest, similarity
from gorilla_tui.pool.doc import ApiDoc
from gorilla_tui.types import Verdict

_BUILTINS = frozenset(dir(builtins))
_SIGNATURE_ARG = re.compile(r"(?<=[(,])(\s*)(\w+)\s*:\s*[\w.\[\]| ]+?(?=\s*[,)=])")
_BARE_PLACEHOLDER = re.compile(r"(?<=[(,\s])\{\w*\}")


@dataclass(frozen=True)
class PoolEntry:
    """One indexed pool doc: the doc and the Requirement of its primary call."""

    doc: ApiDoc
    req: Requirement


@dataclass
class _CalleeTable:
    """Entries of one callee: exact entries by (slot names) -> (values) -> first entry; others in a list."""

    entries: list[PoolEntry] = field(default_factory=list)
    exact: dict[tuple[str, ...], dict[tuple[str | None, ...], list[PoolEntry]]] = field(default_factory=dict)
    loose: list[PoolEntry] = field(default_factory=list)


def _repair(api_call: str) -> str:
    """Pool api_call text made parseable where the intent is clear: a trailing "." removed, signature-style
    arguments (``id: str``) and bare ``{placeholders}`` turned into any-value slots."""
    text = api_call.strip().rstrip(".;").strip()
    text = _SIGNATURE_ARG.sub(lambda m: f"{m.group(1)}{m.group(2)}={SLOT}", text)
    return _BARE_PLACEHOLDER.sub(SLOT, text)


class Validator:
    """Checks code against an API pool. Building it indexes the pool once (~1 ms per 100 docs); check() is
    then a tree-sitter parse plus dict lookups (thousands of responses per second per core, see
    docs/benchmarks.md). Thread-safe for concurrent check() calls after construction.

    Attributes: entries (indexed python docs), rest (REST templates), skipped ("id: reason" for pool docs
    that could not be indexed, e.g. shell lines; reported, never raised).
    """

    def __init__(self, pool: Sequence[ApiDoc]) -> None:
        self.tables: dict[str, _CalleeTable] = {}
        self.entries: list[PoolEntry] = []
        self.skipped: list[str] = []
        self.rest = RestTable([d for d in pool if d.kind == "rest"])
        for doc in pool:
            if doc.kind == "rest":
                continue
            entry, reason = self._entry(doc)
            if entry is None:
                self.skipped.append(f"{doc.id}: {reason}")
                continue
            self.entries.append(entry)
            table = self.tables.setdefault(entry.req.callee, _CalleeTable())
            table.entries.append(entry)
            if entry.req.exact:
                names = tuple(s for s, _ in entry.req.slots)
                values = tuple(v for _, v in entry.req.slots)
                table.exact.setdefault(names, {}).setdefault(values, []).append(entry)
            else:
                table.loose.append(entry)
        self.callees = list(self.tables)
        self.roots = {c.split(".")[0].split("(")[0] for c in self.callees}
        self.methods = {c.rsplit(".", 1)[-1] for c in self.callees if "." in c}

    @staticmethod
    def _entry(doc: ApiDoc) -> tuple[PoolEntry | None, str]:
        result = scan(doc.api_call)
        if result.errors:
            result = scan(_repair(doc.api_call))
        if result.errors:
            return None, f"not valid Python ({result.errors[0]})"
        call = primary_call(result.calls)
        if call is None or not call.callee:
            return None, "no call in api_call"
        return PoolEntry(doc, requirement(call)), ""

    def key_of(self, api_call: str) -> Requirement | None:
        """The identity (Requirement) of any api_call text, as the pool indexes it; None if it has no call."""
        entry, _ = self._entry(ApiDoc(id="key", source="key", api_call=api_call))
        return entry.req if entry else None

    # ------------------------------------------------------------------------------------------------
    def match(self, call: CallSite, code: str = "") -> PoolEntry | None:
        """The pool entry a call matches (identifying arguments equal), or None. Among entries with the same
        identity, the one whose api_call reads like `code` (or the call itself) wins, else the first."""
        callee = canonical(call.callee)
        table = self.tables.get(callee)
        if table is None:
            return None
        bound = bind(call, family(callee) or ())
        hits: list[PoolEntry] = []
        for names, lookup in table.exact.items():
            hits = lookup.get(tuple(bound.get(n, ABSENT) for n in names), [])
            if hits:
                break
        if not hits:
            hits = [e for e in table.loose if e.req.accepts(bound)]
        if len(hits) > 1:
            for form in (str.strip, _squeeze):
                for text in (code, call.text):
                    same = form(text)
                    for entry in hits:
                        if form(entry.doc.api_call) == same:
                            return entry
        return hits[0] if hits else None

    def _did_you_mean(self, call: CallSite) -> Verdict:
        callee = canonical(call.callee)
        bound = bind(call, family(callee) or ())

        def score(entry: PoolEntry, sim: Callable[[str, str], float]) -> float:
            parts = []
            for slot, want in entry.req.slots:
                got = bound.get(slot)
                if want is None:
                    parts.append(1.0 if got is not None else 0.0)
                elif want == ABSENT or got is None:
                    parts.append(1.0 if (got is None) == (want == ABSENT) else 0.3)
                else:
                    parts.append(sim(got, want))
            return sum(parts) / len(parts) if parts else 0.0

        entries = self.tables[callee].entries
        rough = sorted(range(len(entries)), key=lambda i: (-score(entries[i], dice), i))[:12]
        scored = sorted(
            ((score(entries[i], similarity), i, entries[i]) for i in rough), key=lambda s: (-s[0], s[1])
        )
        ranked = [e for _, _, e in scored]
        notes = []
        helper = _helper(callee, bound, entries)
        if helper is not None:  # Gorilla's "helper returned instead of the model" error
            value, users = helper
            notes.append(
                f"{value!r} is a pre-processing helper used with {users[0].doc.api_call}, not a model"
            )
            ranked = users + ranked
        suggestions = list(dict.fromkeys(e.doc.api_call for e in ranked))[:3]
        best = ranked[0]
        for slot, want in best.req.slots:
            got = bound.get(slot)
            if want is None and got is None:
                notes.append(f"argument {slot.lstrip('#')!r} is required by {callee}")
            elif want is not None and (got if got is not None else ABSENT) != want:
                shown = "missing" if got is None else repr(got)
                notes.append(f"{slot.lstrip('#')}={shown} is not in the API pool for {callee}")
                break
        return Verdict("wrong_args", call.text, best.doc, suggestions, notes[:3])

    def _incidental(self, call: CallSite, assigned: set[str]) -> bool:
        root = call.callee.split(".")[0].split("(")[0]
        if not call.callee or call.callee in _BUILTINS:
            return True
        if root in self.roots:
            return False
        return root in assigned or "()" in call.callee

    def _culprit(self, calls: list[CallSite]) -> list[CallSite]:
        """The call a hallucination verdict names (as a 0/1-item list): the first call of a pool API family
        (root like ``torch``, or method like ``from_pretrained``), else the one whose callee is nearest to a
        pool callee by bigram dice (first 8 calls considered)."""
        for call in calls:
            parts = call.callee.split(".")
            if parts[0].split("(")[0] in self.roots or (len(parts) > 1 and parts[-1] in self.methods):
                return [call]
        if not calls:
            return []
        best = max(
            calls[:8], key=lambda c: max((dice(canonical(c.callee), k) for k in self.callees), default=0)
        )
        return [best]

    def _rest(self, requests: list[tuple[str, str, int]], text: str) -> Verdict:
        first: Verdict | None = None
        for method, path, line in requests:
            m = self.rest.match(method, path) if self.rest else None
            if m is not None and m.kind == "valid":
                return Verdict("valid", f"{method} {path}", m.doc)
            if first is None:
                if m is None:
                    first = Verdict(
                        "hallucination", f"{method} {path}", None, [], ["no REST APIs in the pool"]
                    )
                else:
                    note = f"line {line}: {method} {path} " + (
                        "exists with another method" if m.kind == "wrong_args" else "matches no path template"
                    )
                    first = Verdict(m.kind, f"{method} {path}", m.doc, m.suggestions, [note])
        return first or Verdict("no_call")

    def check_code(self, code: str) -> Verdict:
        """Verdict for code (Python, or request lines such as ``GET /api/v1/pods``); see the module rule."""
        requests = request_lines(code)
        result = scan(code)
        if result.errors and not requests:
            return Verdict("unparseable", None, None, [], [f"syntax error at {e}" for e in result.errors])
        # `import x as y` / `from x import y` (issue 9): a call takes its import-qualified callee when the
        # pool knows that one, else keeps the callee as written (APIBench pools use bare `YOLO`, `pipeline`).
        resolved = resolve_calls(code, result.calls)
        result.calls = [
            q if q.callee != c.callee and canonical(q.callee) in self.tables else c
            for c, q in zip(result.calls, resolved, strict=True)
        ]
        first_wrong: CallSite | None = None
        missed: Verdict | None = None  # a pool callee called without a required parameter (python-env docs)
        for call in result.calls:
            if canonical(call.callee) in self.tables:
                entry = self.match(call, code)
                missing = missing_required(entry.doc, call) if entry is not None else []
                if entry is not None and not missing:
                    return Verdict("valid", call.text, entry.doc)
                if entry is not None and missed is None:
                    notes = [f"argument {m!r} is required by {entry.doc.api_name}" for m in missing]
                    missed = Verdict("wrong_args", call.text, entry.doc, [entry.doc.api_call], notes)
                first_wrong = first_wrong or (call if entry is None else None)
        if missed is not None:
            return missed
        if first_wrong is not None:
            return self._did_you_mean(first_wrong)
        for call in result.calls:
            method = http_method(call.callee)
            if method and call.positional and call.positional[0].literal and self.rest:
                requests.append((method, path_of(call.positional[0].text), call.line))
        if requests:
            return self._rest(requests, code)
        culprit = self._culprit([c for c in result.calls if not self._incidental(c, result.assigned)])
        for call in culprit:
            near = nearest(canonical(call.callee), self.callees, n=3, cutoff=0.4)
            note = f"{call.line}:{call.col}: {call.callee} is not a callee of the API pool"
            return Verdict("hallucination", call.text, None, near, [note])
        note = (
            "only incidental calls (builtins, methods of local objects)" if result.calls else "no call found"
        )
        return Verdict("no_call", None, None, [], [note])

    def check(self, text: str) -> Verdict:
        """Verdict for any model text or code: extract() first, then check_code() on the api_call field and,
        if that is not valid, on the code; the better verdict wins (valid > wrong_args > hallucination >
        unparseable > no_call). Never raises for any str."""
        ex = extract(text)
        candidates = ex.candidates()
        if not candidates:
            note = "no code found in the text" if text and text.strip() else "empty input"
            return Verdict("no_call", None, None, [], [note])
        best: Verdict | None = None
        for snippet in candidates:
            verdict = self.check_code(snippet)
            if verdict.kind == "valid":
                return verdict
            if best is None or _RANK[verdict.kind] < _RANK[best.kind]:
                best = verdict
        assert best is not None
        return best


def _helper(
    callee: str, bound: dict[str, str], entries: list[PoolEntry]
) -> tuple[str, list[PoolEntry]] | None:
    """For a call of a fixed family (``torch.hub.load``) whose identifying value is no pool entry's but is
    loaded by the same callee in pool docs' example_code (``'nvidia_convnets_processing_utils'``, MiDaS
    ``'transforms'``): (that value, the entries whose example_code loads it, those sharing the call's other
    identifying values, e.g. the repo, first). None otherwise. Substring test first, then one regex per doc
    that passes it; the Gorilla paper (arXiv 2305.15334) names this error: a helper returned as the model."""
    params = family(callee) or ()
    method = re.escape(callee.rsplit(".", 1)[-1])
    for slot in params:
        value = bound.get(slot)
        if not value or len(value) < 3 or any(dict(e.req.slots).get(slot) == value for e in entries):
            continue
        quoted = re.compile(rf"{method}\s*\([^()]*?['\"]{re.escape(value)}['\"]")
        users = [e for e in entries if value in e.doc.example_code and quoted.search(e.doc.example_code)]
        if users:
            others = [(p, bound.get(p, ABSENT)) for p in params if p != slot]
            users.sort(key=lambda e: not all(dict(e.req.slots).get(p) == v for p, v in others))
            return value, users
    return None


def _squeeze(text: str) -> str:
    return "".join(text.split()).replace('"', "'")


_RANK = {"valid": 0, "wrong_args": 1, "hallucination": 2, "unparseable": 3, "no_call": 4}


def validate(code: str, pool: Sequence[ApiDoc]) -> Verdict:
    """One-shot check of code (or model text) against a pool (builds a Validator: reuse one for many)."""
    return Validator(pool).check(code)
