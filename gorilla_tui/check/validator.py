"""The AST validator: a verdict (valid, wrong_args, hallucination, unparseable, no_call) for code vs the pool.

Verdict rule (documented in docs/validator.md, section 3):
0. the code must compile with the running Python (``compile(code, ..., "exec", ast.PyCF_ONLY_AST)``: nothing
   is executed), else ``unparseable`` with Python's message and line:col (request lines are not Python);
1. every call is classified: *pool* (its callee is a pool callee of the APIBench hubs / APIZoo / user docs),
   *python-env* (a callee only the python-env pool knows), *family* (no pool callee, but it reaches a pool
   API family: a near-miss of a pool callee of the same module, ``torch.load`` for ``torch.hub.load``, or
   an argument that is a pool model id / repo / handle), *other* (unknown callee) or *incidental*
   (builtins outside the pool, methods of names the code assigned, calls on a call's result). A function
   passed as a value (``partial(f, ...)``, ``submit(f, ...)``, ``to_thread(f, ...)``, ``map(f, ...)``) is
   checked as a call of ``f`` with the arguments given;
2. each pool / python-env call gets its own verdict (valid, wrong_args with did-you-mean), each family call
   ``hallucination``;
3. when a pool or family call exists, the verdict is the worst (hallucination > wrong_args > valid) over
   the pool, family and python-env calls: python-env and builtins make a call valid, never mask another;
4. else REST request lines / HTTP client calls are matched against the pool's REST templates;
5. else the first *other* call gives ``hallucination`` with the nearest known callees, same module first;
6. else the worst python-env call; else ``no_call``.
Every non-valid verdict carries a reason code (types.REASONS).
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from gorilla_tui.check.callsite import CallSite, Scan, nesting_error, scan
from gorilla_tui.check.extract import extract
from gorilla_tui.check.imports import missing_required, resolve_calls
from gorilla_tui.check.rest import RestTable, http_method, path_of, request_lines
from gorilla_tui.check.signature import (
    ABSENT,
    SLOT,
    UNQUOTED,
    UNQUOTED_ID,
    Requirement,
    bind,
    canonical,
    family,
    key,
    primary_call,
    requirement,
)
from gorilla_tui.check.suggest import dice, nearest, similarity
from gorilla_tui.pool.doc import ApiDoc
from gorilla_tui.pool.pyenv import SOURCE as PYENV
from gorilla_tui.types import CallVerdict, Verdict, VerdictKind

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
        #: callees with at least one entry outside python-env (APIBench hubs, APIZoo, user docs)
        self.api_callees = {
            c for c, t in self.tables.items() if any(e.doc.source != PYENV for e in t.entries)
        }
        self.api_roots = {c.split(".")[0].split("(")[0] for c in self.api_callees}
        #: model id -> first entry of a ``*.from_pretrained`` callee: a tokenizer, processor or scheduler
        #: class loading a pool model's repo (``EulerDiscreteScheduler.from_pretrained(id)``) matches it
        self.pretrained: dict[str, PoolEntry] = {}
        for e in self.entries:
            if e.req.callee.endswith(".from_pretrained") and e.req.slots and e.req.slots[0][1]:
                self.pretrained.setdefault(str(e.req.slots[0][1]), e)
        #: torch.hub.load repos of the pool (a wrong model of a pool repo: unknown_model, else unknown_repo)
        self.repos = {
            str(v)
            for e in self.entries
            if e.req.callee == "torch.hub.load"
            for k, v in e.req.slots
            if k == "repo_or_dir"
        }
        self._by_root: dict[str, list[str]] = {}
        for c in self.callees:
            self._by_root.setdefault(c.split(".")[0].split("(")[0], []).append(c)
        #: identifying values of the fixed families' entries (model ids, repos, handles; not pipeline tasks):
        #: an unknown callee given one of them is a wrong loader (``torch.load('pytorch/vision', ...)``)
        self.identities = {
            v
            for e in self.entries
            if family(e.req.callee)
            for slot, v in e.req.slots
            if v and v != ABSENT and slot != "task" and len(v) >= 3
        }

    @staticmethod
    def _entry(doc: ApiDoc) -> tuple[PoolEntry | None, str]:
        result = scan(doc.call)
        if result.errors:
            result = scan(_repair(doc.call))
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
        hits = _lookup(table, bound)
        repo = bound.get("repo_or_dir", "")
        if not hits and callee == "torch.hub.load" and ":" in repo:
            # "owner/repo[:ref]" (pytorch.org/docs/stable/hub.html): a branch or tag of a pool repo is that
            # repo, unless the pool names the ref itself ('NVIDIA/DeepLearningExamples:torchhub')
            hits = _lookup(table, {**bound, "repo_or_dir": repo.split(":", 1)[0]})
        if not hits:
            return self.companion(call)
        if len(hits) > 1:
            for form in (str.strip, _squeeze):
                for text in (code, call.text):
                    same = form(text)
                    for entry in hits:
                        if form(entry.doc.api_call) == same:
                            return entry
        return hits[0] if hits else None

    def companion(self, call: CallSite) -> PoolEntry | None:
        """For a ``*.from_pretrained`` call of any class whose model id is a pool entry's id (loaded there
        by another class: a tokenizer, processor or scheduler of that repo), that entry; else None. The
        paper's Hugging Face match compares the model id, not the class (arXiv 2305.15334, section 4)."""
        callee = canonical(call.callee)
        if not callee.endswith(".from_pretrained"):
            return None
        value = bind(call, family(callee) or ()).get("pretrained_model_name_or_path")
        return self.pretrained.get(value) if value else None

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
        suggestions = list(dict.fromkeys(e.doc.call for e in ranked))[:3]
        best = ranked[0]
        reason = "wrong_args:helper_as_model" if helper is not None else ""
        for value in (*call.positional, *call.keywords.values()):
            if not value.literal and UNQUOTED_ID.fullmatch(value.text):  # runwayml/stable-diffusion-v1-5
                notes.insert(0, f"{value.text} is not quoted: Python reads it as arithmetic, not a model id")
                reason = reason or "wrong_args:unquoted_id"
                break
        for slot, want in best.req.slots:
            got = bound.get(slot)
            if want is None and got is None:
                notes.append(f"argument {slot.lstrip('#')!r} is required by {callee}")
                reason = reason or "wrong_args:missing_argument"
            elif want is not None and (got if got is not None else ABSENT) != want:
                shown = "missing" if got is None else repr(got)
                notes.append(f"{slot.lstrip('#')}={shown} is not in the API pool for {callee}")
                reason = reason or _WRONG_SLOT.get(slot, "wrong_args:unknown_value")
                break
        return Verdict("wrong_args", call.text, best.doc, suggestions, notes[:3], reason or _WRONG_DEFAULT)

    def _made_by_pool(self, call: CallSite, result: Scan) -> bool:
        """True for a call of a bare name the code assigned only results of API pool calls to
        (``classifier = pipeline(...)``; ``classifier(text)``): a call of that object, never the pool entry
        with the same bare callee (the HF pool has ``classifier(sequence, candidate_labels, ...)``)."""
        made = result.made_by.get(call.callee) if not call.via else None
        return bool(made) and all(canonical(m) in self.api_callees for m in made)

    def _incidental(self, call: CallSite, assigned: set[str]) -> bool:
        """True for calls that never decide (rule 1): no dotted-name callee, builtins the pool does not
        know, methods of names the code assigned (unless a pool root), calls on a call's result (unless a
        near-miss of a pool call chain such as ``service.users().getProfil().execute``)."""
        root = call.callee.split(".")[0].split("(")[0]
        if not call.callee or call.callee in _BUILTINS or (root in _BUILTINS and root not in self.api_roots):
            return True  # print, len, str.strip, dict.fromkeys (when the pool does not know them)
        if "()" in call.callee:
            return not self._chain_near_miss(canonical(call.callee))
        if root in self.roots:
            return False
        return root in assigned

    def _chain_near_miss(self, callee: str) -> bool:
        """True when a chained callee (``a.b().c``) is no method on a pool call's result but is a near-miss
        (difflib ratio >= NEAR_MISS) of a pool call chain of the same root."""
        cuts = [i for i in range(len(callee)) if callee.startswith("()", i)]
        if any(callee[:i] in self.tables for i in cuts):  # .execute() on service.users().get(...)
            return False
        root = callee.split(".")[0]
        chains = [c for c in self._by_root.get(root, ()) if "()" in c and c in self.api_callees]
        return any(similarity(callee, c) >= NEAR_MISS for c in chains)

    def near_callees(self, callee: str, n: int = 3) -> list[str]:
        """Did-you-mean callees for an unknown callee: pool callees of the same module (root) first, then
        others of the same side (API pool vs python-env), best difflib ratio first (cutoff 0.4)."""
        root = callee.split(".")[0]
        same = nearest(callee, self._by_root.get(root, []), n=n, cutoff=0.4)
        if len(same) >= n:  # the module's own callees fill the list: skip scoring all ~10k (issue 20)
            return same[:n]
        side = self.api_callees if root not in self.roots or root in self.api_roots else self.callees
        others = nearest(callee, [c for c in side if c not in same], n=n, cutoff=0.4)
        return (same + others)[:n]

    def _reaches_family(self, call: CallSite, callee: str) -> str:
        """Reason code when an unknown callee reaches a pool API family (rule 1), else "": an argument that
        is a pool model id / repo / handle (hallucination:wrong_loader), or a near-miss (difflib ratio >=
        NEAR_MISS) of a pool callee of the same module (hallucination:unknown_callee)."""
        values = [key(v) for v in (*call.positional, *call.keywords.values())]  # unquoted ids never equal
        if not callee.endswith(".from_pretrained") and any(v in self.identities for v in values):
            return "hallucination:wrong_loader"
        root = callee.split(".")[0]
        same = self._by_root.get(root, ())
        if any(c.startswith(callee + "()") for c in same):  # a step of a pool call chain: service.users()
            return ""
        if "()" in callee:
            return "hallucination:unknown_callee" if self._chain_near_miss(callee) else ""
        if any(similarity(callee, c) >= NEAR_MISS for c in same if "()" not in c):
            return "hallucination:unknown_callee"
        return ""

    def _helpers(
        self, rows: list[tuple[CallSite, str, Verdict | None]]
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
                found = _helper(callee, bind(call, family(callee) or ()), self.tables[callee].entries)
                users = {id(e.doc) for e in found[1]} if found else set()
                model = next((m for m in models if id(m) in users), None)
                if model is not None:
                    out.append((call, "helper", Verdict("valid", call.text, model)))
                    continue
            out.append((call, role, verdict))
        return out

    def _full(self, verdict: Verdict, per_call: list[CallVerdict], lazy: _Lazy) -> Verdict:
        """The deciding verdict with its did-you-mean when it was built cheaply (_wrong); its row in
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

    def _call_verdict(self, call: CallSite, code: str, lazy: _Lazy) -> tuple[str, Verdict]:
        """(role, verdict) of one call whose callee is a pool callee (role "pool" or "python-env")."""
        callee = canonical(call.callee)
        role = "pool" if callee in self.api_callees else "python-env"
        entry = self.match(call, code)
        partial = call.via.rsplit(".", 1)[-1] in ("partial", "partialmethod")  # the rest comes later
        missing = missing_required(entry.doc, call) if entry is not None and not partial else []
        if entry is not None and not missing:
            return role, Verdict("valid", call.text, entry.doc)
        if entry is not None:
            notes = [f"argument {m!r} is required by {entry.doc.api_name}" for m in missing]
            return role, Verdict(
                "wrong_args", call.text, entry.doc, [entry.doc.call], notes, "wrong_args:missing_argument"
            )
        return role, self._wrong(call, lazy)

    def _wrong(self, call: CallSite, lazy: _Lazy) -> Verdict:
        """A cheap wrong_args verdict for a pool call that matches no entry (no did-you-mean ranking; the
        deciding call gets the full _did_you_mean). Its reason: unquoted_id, unknown_repo (torch.hub.load
        with a repo the pool does not have), unknown_model (other fixed families) or unknown_value."""
        callee = canonical(call.callee)
        bound = bind(call, family(callee) or ())
        if any(v.startswith(UNQUOTED) for v in bound.values()):
            reason = "wrong_args:unquoted_id"
        elif callee == "torch.hub.load":
            repo = bound.get("repo_or_dir", "")
            known = repo in self.repos or repo.split(":", 1)[0] in self.repos
            reason = "wrong_args:unknown_model" if known else "wrong_args:unknown_repo"
        elif family(callee) is not None:
            reason = "wrong_args:unknown_model"
        else:
            reason = _WRONG_DEFAULT
        verdict = Verdict("wrong_args", call.text, None, [], [], reason)
        lazy[id(verdict)] = (call, lambda: self._did_you_mean(call))  # the full verdict when it decides
        return verdict

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
                        "hallucination",
                        f"{method} {path}",
                        None,
                        [],
                        ["no REST APIs in the pool"],
                        "hallucination:no_rest_pool",
                    )
                else:
                    note = f"line {line}: {method} {path} " + (
                        "exists with another method" if m.kind == "wrong_args" else "matches no path template"
                    )
                    reason = (
                        "wrong_args:wrong_method" if m.kind == "wrong_args" else "hallucination:unknown_path"
                    )
                    first = Verdict(m.kind, f"{method} {path}", m.doc, m.suggestions, [note], reason)
        return first or Verdict("no_call")

    def check_code(self, code: str) -> Verdict:
        """Verdict for code (Python, or request lines such as ``GET /api/v1/pods``); see the module rule."""
        requests = request_lines(code)
        if not requests:
            error = python_error(code)
            if error is not None:
                reason, message = error
                return Verdict("unparseable", None, None, [], [f"syntax error at {message}"], reason)
        result = scan(code)
        if result.errors and not requests:  # Python accepted it; tree-sitter may still differ: trust Python
            result.errors = []
        # `import x as y` / `from x import y` (issue 9): a call takes its import-qualified callee when the
        # pool knows that one, else keeps the callee as written (APIBench pools use bare `YOLO`, `pipeline`).
        resolved = resolve_calls(code, result.calls)
        calls = [
            q if q.callee != c.callee and canonical(q.callee) in self.tables else c
            for c, q in zip(result.calls, resolved, strict=True)
        ]
        rows: list[tuple[CallSite, str, Verdict | None]] = []  # (call, role, verdict)
        lazy: _Lazy = {}  # cheap verdicts (see _wrong, _full): did-you-mean only for the deciding one
        matched_spans: list[tuple[int, int]] = []  # calls inside a matched pool call are part of it
        wrapper_spans = {c.span for c in calls if c.via}
        for call in calls:
            callee = canonical(call.callee)
            start, end = call.span
            if not call.via and any(
                a <= start and end <= b and (a, b) != (start, end) for a, b in matched_spans
            ):
                rows.append((call, "part", None))
                continue
            companion = None if callee in self.tables else self.companion(call)
            if callee not in self.tables and not call.via and call.span in wrapper_spans:
                rows.append((call, "incidental", None))  # a wrapper: the call it passes on is checked
                continue
            if self._made_by_pool(call, result):
                # the object a pool API made (`classifier = pipeline(...)`; `classifier(text)`), not the pool
                # entry of the same bare name: its construction is the call that is checked
                role, verdict = "incidental", None
            elif callee in self.tables:
                role, verdict = self._call_verdict(call, code, lazy)
            elif companion is not None:
                role, verdict = "pool", Verdict("valid", call.text, companion.doc)
            elif self._incidental(call, result.assigned):
                role, verdict = "incidental", None
            else:
                reason = self._reaches_family(call, callee)
                if reason:
                    note = f"{call.line}:{call.col}: {call.callee} is not a callee of the API pool"
                    if reason == "hallucination:wrong_loader":
                        note += " (its argument names a pool API: wrong loader)"
                    role, verdict = "family", Verdict("hallucination", call.text, None, [], [note], reason)
                    lazy[id(verdict)] = (call, _with_near(self, verdict, callee))
                else:
                    role, verdict = "other", None
            rows.append((call, role, verdict))
            if role == "pool" and verdict is not None and verdict.ok and not call.via:
                matched_spans.append(call.span)
        rows = self._helpers(rows)
        per_call = [_call_row(c, role, v) for c, role, v in rows]
        api = [(c, v) for c, role, v in rows if role in ("pool", "family") and v is not None]
        env = [(c, v) for c, role, v in rows if role == "python-env" and v is not None]
        if api:
            decided = self._full(_worst(api + env, prefer=api), per_call, lazy)
            decided.calls = per_call
            return decided
        for call in calls:
            method = http_method(call.callee)
            if method and call.positional and call.positional[0].literal and self.rest:
                requests.append((method, path_of(call.positional[0].text), call.line))
        if requests:
            rest = self._rest(requests, code)
            bad_env = [(c, v) for c, v in env if v.kind != "valid"]
            first = calls[0] if calls else CallSite("", (), {}, "", 1, 1)
            decided = self._full(_worst([(first, rest), *bad_env]), per_call, lazy)
            decided.calls = per_call
            return decided
        others = [c for c, role, _ in rows if role == "other"]
        for call in self._culprit(others):
            near = self.near_callees(canonical(call.callee))
            note = f"{call.line}:{call.col}: {call.callee} is not a callee of the API pool"
            return Verdict(
                "hallucination", call.text, None, near, [note], "hallucination:unknown_callee", per_call
            )
        if env:
            decided = self._full(_worst(env), per_call, lazy)
            decided.calls = per_call
            return decided
        note = "only incidental calls (builtins, methods of local objects)" if calls else "no call found"
        reason = "no_call:only_incidental" if calls else "no_call:no_code"
        return Verdict("no_call", None, None, [], [note], reason, per_call)

    def check(self, text: str) -> Verdict:
        """Verdict for any model text or code: extract() first, then check_code() on the api_call field and,
        if that is not valid, on the code; the better verdict wins (valid > wrong_args > hallucination >
        unparseable > no_call). When the code as a whole is unparseable, its lines that parse on their own
        are not checked apart (they could make broken code look valid). Never raises for any str."""
        ex = extract(text)
        candidates = ex.candidates()
        if not candidates:
            note = "no code found in the text" if text and text.strip() else "empty input"
            return Verdict("no_call", None, None, [], [note], "no_call:no_code")
        best: Verdict | None = None
        for snippet in candidates:
            verdict = self.check_code(snippet)
            if verdict.kind == "valid":
                return verdict
            if best is None or _RANK[verdict.kind] < _RANK[best.kind]:
                best = verdict
            if snippet == ex.code and verdict.kind == "unparseable":
                break
        assert best is not None
        return best


def _lookup(table: _CalleeTable, bound: dict[str, str]) -> list[PoolEntry]:
    """Entries of one callee that bound arguments match: exact entries by dict lookup, else loose ones."""
    for names, lookup in table.exact.items():
        hits = lookup.get(tuple(bound.get(n, ABSENT) for n in names), [])
        if hits:
            return hits
    return [e for e in table.loose if e.req.accepts(bound)]


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


#: Reason code of a wrong_args verdict by the identifying slot that differs (signature.py families).
_WRONG_SLOT = {
    "repo_or_dir": "wrong_args:unknown_repo",
    "model": "wrong_args:unknown_model",
    "pretrained_model_name_or_path": "wrong_args:unknown_model",
    "handle": "wrong_args:unknown_model",
}
_WRONG_DEFAULT = "wrong_args:unknown_value"
#: A callee not in the pool is a near-miss of a pool callee of the same module at this difflib ratio
#: (``torch.load`` / ``torch.hub.load`` = 0.83; ``torch.save`` = 0.58, ``torch.no_grad`` = 0.48).
NEAR_MISS = 0.8
#: How bad a verdict is when code holds several calls (worst decides).
_WORST = {"valid": 0, "wrong_args": 1, "hallucination": 2}


def python_error(code: str) -> tuple[str, str] | None:
    """(reason code, "line:col: message") when the running Python refuses `code`, else None.

    Bracket nesting beyond CPython's limit (MAX_NESTING) is reported first without parsing; then
    ``compile(code, "<code>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)`` (nothing is executed) gives
    Python's own message and position (``'(' was never closed`` at the bracket). NUL bytes, lone
    surrogates and code too deep for Python's AST construction are refused with a message too."""
    deep = nesting_error(code)
    if deep is not None:
        return "unparseable:nesting_limit", deep
    try:
        compile(code, "<code>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as e:  # IndentationError and TabError included
        line, col = e.lineno or 1, e.offset or 1
        return "unparseable:python_syntax", f"{line}:{col}: {e.msg}"
    except ValueError as e:  # "source code string cannot contain null bytes"
        return "unparseable:python_syntax", f"1:1: {e}"
    except UnicodeError:
        return "unparseable:python_syntax", "1:1: text holds a lone surrogate (not UTF-8 encodable)"
    except (RecursionError, MemoryError):
        return "unparseable:python_syntax", "1:1: too deeply nested for Python's parser"
    return None


#: id(cheap verdict) -> (its call, a function building the full verdict with suggestions), see _full.
_Lazy = dict[int, tuple[CallSite, Callable[[], Verdict]]]


def _with_near(validator: Validator, verdict: Verdict, callee: str) -> Callable[[], Verdict]:
    def build() -> Verdict:
        return dataclasses.replace(verdict, suggestions=validator.near_callees(callee))

    return build


def _worst(
    found: list[tuple[CallSite, Verdict]], prefer: list[tuple[CallSite, Verdict]] | None = None
) -> Verdict:
    """The worst verdict of `found` (hallucination > wrong_args > valid), the first in source order among
    equals; a valid result is the first valid call of `prefer` (an API pool call rather than python-env)."""
    rank = max(_WORST.get(v.kind, 0) for _, v in found)
    if rank == 0 and prefer:
        return prefer[0][1] if prefer[0][1].kind == "valid" else next(v for _, v in prefer if v.ok)
    return next(v for _, v in found if _WORST.get(v.kind, 0) == rank)


def _call_row(call: CallSite, role: str, verdict: Verdict | None) -> CallVerdict:
    """One call's row in Verdict.calls: incidental calls and calls inside a matched pool call (role "part")
    are not checked (kind no_call); an "other" call's
    callee is not in the pool (hallucination:unknown_callee; it decides only when no API call does)."""
    kind: VerdictKind = "no_call"
    reason = ""
    if verdict is not None:
        kind, reason = verdict.kind, verdict.reason
    elif role == "other":
        kind, reason = "hallucination", "hallucination:unknown_callee"
    return CallVerdict(
        call=call.text if not call.via else f"{call.callee}(...) via {call.via}",
        callee=canonical(call.callee),
        line=call.line,
        col=call.col,
        role=role,
        kind=kind,
        reason=reason,
        matched=verdict.matched.id if verdict is not None and verdict.matched is not None else None,
        via=call.via,
    )


def _squeeze(text: str) -> str:
    return "".join(text.split()).replace('"', "'")


_RANK = {"valid": 0, "wrong_args": 1, "hallucination": 2, "unparseable": 3, "no_call": 4}


def validate(code: str, pool: Sequence[ApiDoc]) -> Verdict:
    """One-shot check of code (or model text) against a pool (builds a Validator: reuse one for many)."""
    return Validator(pool).check(code)
