"""The AST validator: a verdict (valid, wrong_args, hallucination, unparseable, no_call) for code vs the pool.

Verdict rule (documented in docs/validator.md, section 3):
0. the code must compile with the running Python (``compile(code, ..., "exec", ast.PyCF_ONLY_AST)``: nothing
   is executed), else ``unparseable`` with Python's message and line:col (request lines are not Python);
1. every call is classified: *pool* (its callee is a pool callee of the APIBench hubs / APIZoo / user docs),
   *python-env* (a callee only the python-env pool knows), *family* (no pool callee, but it reaches a pool
   API family: a near-miss of a pool callee of the same module, ``torch.load`` for ``torch.hub.load``, or
   an argument that is a pool model id / repo / handle), *other* (unknown callee) or *incidental*
   (builtins outside the pool, methods of names the code assigned, calls on a call's result, unless the
   stubs say a standard-library call's result lacks the method: ``sqlite3.connect('a.db').exeucte`` is
   *family*, check/stub_chain.py result_verdict; never a call that runs code or a command,
   check/runs_code.py: ``__import__('os').system`` is ``os.system``, and one the pool does not hold
   decides as a hallucination; nor is such a call "part" of the pool call whose arguments hold it). A function
   passed as a value (``partial(f, ...)``, ``submit(f, ...)``, ``to_thread(f, ...)``, ``map(f, ...)``) is
   checked as a call of ``f`` with the arguments given;
2. each pool / python-env call gets its own verdict (valid, wrong_args with did-you-mean; the arguments of
   a function-calling entry, ApiDoc.parameters, are held to its JSON Schema: check/arguments.py), each
   family call ``hallucination``;
3. when a pool or family call exists, the verdict is the worst (hallucination > wrong_args > valid) over
   the pool, family and python-env calls: python-env and builtins make a call valid, never mask another;
4. else REST request lines / HTTP client calls are matched against the pool's REST templates;
5. else the first *other* call gives ``hallucination`` with the nearest known callees, same module first;
6. else the worst python-env call; else ``no_call``.
Every non-valid verdict carries a reason code (types.REASONS). Rule 2, the verdict of one pool call, is in
check/pool_call.py.
"""

from __future__ import annotations

import builtins
import dataclasses
import sys
from collections.abc import Mapping, Sequence

from gorilla_tui.check.builtin_types import builtin_method, has_method, missing_method
from gorilla_tui.check.callsite import CallSite, Scan, left_out_note, scan
from gorilla_tui.check.extract import extract
from gorilla_tui.check.imports import named_by_schema, resolve_calls
from gorilla_tui.check.judged import package_names_say, stdlib_bound
from gorilla_tui.check.pool_call import Lazy, call_verdict, full_verdict, helper_rows, near_later
from gorilla_tui.check.pool_index import NEAR_MISS, PoolEntry, PoolIndex
from gorilla_tui.check.receivers import in_place_copy, made_callee, receiver_verdict, typed_callee
from gorilla_tui.check.rest import http_method, path_of, request_lines
from gorilla_tui.check.runs_code import RUNS_CODE_NOTE, dynamic_import, runs_code
from gorilla_tui.check.signature import canonical, key
from gorilla_tui.check.stub_chain import chain_verdict, result_verdict
from gorilla_tui.check.suggest import dice, similarity
from gorilla_tui.check.verdicts import RANK, call_row, later_note, python_error, worst
from gorilla_tui.pool.doc import ApiDoc
from gorilla_tui.pool.typeshed import added_in
from gorilla_tui.types import Verdict

#: Importable from here too (callers and tests used them before the split).
__all__ = ["NEAR_MISS", "PoolEntry", "PoolIndex", "Validator", "python_error", "validate"]

_BUILTINS = frozenset(dir(builtins))


def later_python(callee: str) -> str:
    """ " (added in Python 3.12; the pool is Python 3.11's)" for a callee a later Python's stubs define and
    this one's do not (``itertools.batched``, found by a tester on tqdm), else "": the name is real, only
    not in the Python the pool was built from (pool/typeshed.py added_in)."""
    return later_note(added_in(callee))


class Validator(PoolIndex):
    """Checks code against an API pool (the verdict rule of the module docstring). Building it indexes the
    pool once (PoolIndex, ~1 ms per 100 docs); check() is then a tree-sitter parse plus dict lookups
    (thousands of responses per second per core, see docs/benchmarks.md). Thread-safe for concurrent
    check() calls after construction.

    Attributes: those of PoolIndex (entries, rest, skipped: "id: reason" for pool docs that could not be
    indexed, e.g. shell lines; reported, never raised); scans: code -> its callsite.Scan, made while the
    validator was built for that code (check/lookup.py, several texts) and taken (once) by check_code
    instead of parsing the same text again.
    """

    scans: dict[str, Scan] | None = None
    #: (code, its Scan) of the last check_code(per_call=True): the linter's file, read once (one thread).
    last_scan: tuple[str, Scan] | None = None

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

    def _builtin_method(self, call: CallSite, callee: str) -> tuple[str, Verdict] | None:
        """(role, verdict) of a method called on a builtin type's instance the pool's docs lack
        (``T().method``: a literal receiver or a constructor's result, check/builtin_types.py), when the
        pool documents that type (python-env's ``str().join``): a method the type has is python-env and
        valid (arguments not judged: no doc), one it lacks a hallucination with the type's nearest methods
        (``','.jion(x)``: did you mean str().join). None for other callees."""
        typed = builtin_method(callee)
        if typed is None or typed[0] not in self.roots or call.via:
            return None
        type_name, method = typed
        if has_method(type_name, method):
            return "python-env", Verdict("valid", call.text, None)
        note = f"{call.line}:{call.col}: {type_name} has no method {method!r} ({call.callee} does not exist)"
        reason, near = "hallucination:unknown_callee", missing_method(type_name, method)
        return "family", Verdict("hallucination", call.text, None, near, [note], reason)

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

    def _stdlib_alias(self, call: CallSite) -> bool:
        """True when `call`'s import-qualified callee (a chain's: its first callee, break-it round 30) is in
        a standard-library module the pool's python-env docs cover (its root is a stdlib module that no
        model-hub callee shares, and some pool callee lives in that module)."""
        head = call.callee.split("(", 1)[0]  # a chain's first callee: sqlite3.connect of sq.connect().exeucte
        root = head.split(".", 1)[0]
        if root not in sys.stdlib_module_names or root in self.api_roots or "." not in head:
            return False
        module = head.rsplit(".", 1)[0]
        return any(c.startswith(module + ".") for c in self.callees)

    def check_code(self, code: str, prefer: str | None = None, per_call: bool = False,
                   types: Mapping[str, str] | None = None) -> Verdict:  # fmt: skip
        """Verdict for code (Python, or request lines such as ``GET /api/v1/pods``); see the module rule.
        prefer: the id of the doc a matched call names when several pool entries share its identity (the
        doc select mode chose; PoolIndex.match), None for the usual choice. Code with more than
        callsite.MAX_CALLS calls has only the first ones checked, and its verdict's last diagnostic says
        how many were not (callsite.left_out_note). per_call: the caller reads only the calls' rows
        (Verdict.calls) and the verdict of pool, family and python-env calls (`check PATH`, check/lint.py):
        a verdict decided by an unknown callee (rule 5) is then "hallucination" without its culprit and
        nearest callees, whose ranking over every pool callee was half of the linter's time. types: names
        the code uses without binding them (the caller's variables) -> the class each is an instance of;
        a method called on one is judged as that class's (check/receivers.py typed_callee)."""
        requests = request_lines(code)
        if not requests:
            error = python_error(code)
            if error is not None:
                reason, message = error
                return Verdict("unparseable", None, None, [], [f"syntax error at {message}"], reason)
        result = self.scans.pop(code, None) if self.scans else None  # scanned by lookup already
        result = result if result is not None else scan(code)
        if per_call:  # check/lint.py reads the calls as written from it (no second parse of the file)
            self.last_scan = (code, result)
        if result.errors and not requests:  # Python accepted it; tree-sitter may still differ: trust Python
            result.errors = []
        verdict = self._decide(code, prefer, requests, result, per_call, types or {})
        if result.left_out:  # a verdict never hides that calls went unchecked (`check` on a large file)
            verdict = dataclasses.replace(
                verdict, diagnostics=[*verdict.diagnostics, left_out_note(result.left_out)]
            )
        return verdict

    def _decide(
        self,
        code: str,
        prefer: str | None,
        requests: list[tuple[str, str, int]],
        result: Scan,
        rows_only: bool = False,
        types: Mapping[str, str] | None = None,
    ) -> Verdict:
        """check_code's verdict for code that Python accepts (or request lines): `result` is its scan;
        `types` as check_code takes them."""
        # `import x as y` / `from x import y` (issue 9): a call takes its import-qualified callee when the
        # pool knows that one, else keeps the callee as written (APIBench pools use bare `YOLO`, `pipeline`).
        # A standard-library callee reached through an alias (`import shutil as sh; sh.copytreee()`) is
        # judged by its qualified name even when the pool lacks it: a typo behind an alias is a finding too.
        resolved = resolve_calls(code, result.calls, result)
        known, alias = self.tables, self._stdlib_alias
        calls = [
            dynamic_import(q if q.callee != c.callee and (canonical(q.callee) in known or alias(q)) else c)
            for c, q in zip(result.calls, resolved, strict=True)
        ]
        rows: list[tuple[CallSite, str, Verdict | None]] = []  # (call, role, verdict)
        lazy: Lazy = {}  # cheap verdicts (pool_call.cheap_wrong): did-you-mean only for the deciding one
        matched_spans: list[tuple[int, int]] = []  # calls inside a matched pool call are part of it
        wrapper_spans = {c.span for c in calls if c.via}
        imported = {q.span: canonical(q.callee) for q in resolved}  # np.array -> numpy.array (rule 5)
        unjudged: list[str] = []  # calls of modules that cannot list their names (judged.py rule 5)
        by_start = {(c.span[0], canonical(c.callee)): c for c in calls}
        # the names each call sees bound (its scopes, check/scopes.py); a callee qualified through an
        # import alias (`from socket import error as SocketError`) has its module as first name, not a local
        through = {id(q) for c, q in zip(result.calls, calls, strict=True) if q.callee != c.callee}

        def chain_call(call: CallSite, prefix: str) -> CallSite | None:  # a call of a chain, its arguments
            return by_start.get((call.span[0], prefix))

        for call in calls:
            bound = result.bound_at(call)
            fresh = in_place_copy(canonical(call.callee))  # list(scores).sort(): a copy sorted and dropped
            written = call.callee
            if types and (typed := typed_callee(written, types, bound)) != written:
                call = dataclasses.replace(call, callee=typed)  # text.count as str().count: the caller's str
            callee = canonical(call.callee)
            start, end = call.span
            if id(call) in through:
                bound = bound - {callee.split(".", 1)[0].split("(", 1)[0]}
            if (
                not call.via
                and not runs_code(callee)  # os.system(...) in a pool call's arguments is a call of its own
                and any(a <= start and end <= b and (a, b) != (start, end) for a, b in matched_spans)
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
                role, verdict = call_verdict(self, call, code, lazy, bound, prefer)
            elif companion is not None:
                role, verdict = "pool", Verdict("valid", call.text, companion.doc)
            elif (typed := self._builtin_method(call, callee)) is not None:
                role, verdict = typed  # ','.jion(x): str has no jion; [].append(x) beside the pool's docs
            elif (resulted := result_verdict(self, call, callee, bound, chain_call)) is not None or (
                id(call) not in through
                and (made := made_callee(call, result.made_once))
                and (resulted := result_verdict(self, call, made, bound)) is not None
            ):  # sqlite3.connect('a.db').exeucte: Connection has no exeucte; h = md5(); h.update('x')
                role, verdict, _ = resulted
            elif stdlib_bound(self, call, callee, bound):
                role, verdict = "python-env", Verdict("valid", call.text, None)
            elif said := package_names_say(self, call, imported.get(call.span, callee), bound):
                role = "python-env" if said == "bound" else "unjudged"  # a real name, or not judged
                verdict = Verdict("valid", call.text, None) if said == "bound" else None
                unjudged += (
                    [] if verdict else [f"{call.line}:{call.col}: {call.callee} not judged: {said[9:]}"]
                )
            elif chained := chain_verdict(self, call, callee, bound):  # sys.stdout.buffer.write
                role, verdict, why = chained
                unjudged += [f"{call.line}:{call.col}: {call.callee} not judged: {why}"] if why else []
            elif runs_code(callee):  # never incidental (R24-5): what it is, and the pool does not hold it
                note = f"{call.line}:{call.col}: {call.callee} {RUNS_CODE_NOTE}; not a callee of the API pool"
                reason = "hallucination:unknown_callee"
                role, verdict = "family", Verdict("hallucination", call.text, None, [], [note], reason)
            elif self._incidental(call, bound):
                role, verdict = "incidental", None
            else:
                reason = self._reaches_family(call, callee)
                if reason:
                    note = f"{call.line}:{call.col}: {call.callee} is not a callee of the API pool"
                    note += later_python(callee)
                    if reason == "hallucination:wrong_loader":
                        note += " (its argument names a pool API: wrong loader)"
                    role, verdict = "family", Verdict("hallucination", call.text, None, [], [note], reason)
                    lazy[id(verdict)] = (call, near_later(self, verdict, callee))
                else:
                    role, verdict = "other", None
            role, verdict = receiver_verdict(call, role, verdict, fresh, written)  # list(x).sort(); s.reverse
            rows.append((call, role, verdict))
            if role == "pool" and verdict is not None and verdict.ok and not call.via:
                matched_spans.append(call.span)
        rows = helper_rows(self, rows)
        per_call = [call_row(c, role, v) for c, role, v in rows]
        api = [(c, v) for c, role, v in rows if role in ("pool", "family") and v is not None]
        env = [(c, v) for c, role, v in rows if role == "python-env" and v is not None]
        if api:
            decided = full_verdict(worst(api + env, prefer=api), per_call, lazy)
            decided.calls = per_call
            return decided
        for call in calls:
            method = http_method(call.callee)
            url = call.positional[0].text if method and call.positional and call.positional[0].literal else ""
            if url and self.rest and self.rest.serves(url):  # http://x is no request of a REST source
                requests.append((method, path_of(url), call.line))
        if requests:
            rest = self._rest(requests, code)
            bad_env = [(c, v) for c, v in env if v.kind != "valid"]
            first = calls[0] if calls else CallSite("", (), {}, "", 1, 1)
            decided = full_verdict(worst([(first, rest), *bad_env]), per_call, lazy)
            decided.calls = per_call
            return decided
        others = [c for c, role, _ in rows if role == "other"]
        if others and rows_only:  # check_code(per_call=True): the culprit is never reported
            note = "an unknown callee decides (not ranked: per_call)"
            return Verdict("hallucination", None, None, [], [note], "hallucination:unknown_callee", per_call)
        for call in self._culprit(others):
            qualified = imported.get(call.span, "")  # np.arrray: numpy.array is near numpy.arrray
            near = self.near_callees(qualified) if qualified else []
            near = near or self.near_callees(canonical(call.callee))
            note = f"{call.line}:{call.col}: {call.callee} is not a callee of the API pool"
            note += later_python(qualified or canonical(call.callee))
            return Verdict(
                "hallucination", call.text, None, near, [note], "hallucination:unknown_callee", per_call
            )
        if env:
            decided = full_verdict(worst(env), per_call, lazy)
            decided.calls = per_call
            return decided
        note = "only incidental calls (builtins, methods of local objects)" if calls else "no call found"
        reason = "no_call:only_incidental" if calls else "no_call:no_code"
        return Verdict("no_call", None, None, [], [*unjudged, note], reason, per_call)

    def check(self, text: str, prefer: str | None = None, types: Mapping[str, str] | None = None) -> Verdict:
        """Verdict for any model text or code: extract() first, then check_code() on the api_call field and,
        if that is not valid, on the code; the better verdict wins (valid > wrong_args > hallucination >
        unparseable > no_call). When the code as a whole is unparseable, its lines that parse on their own
        are not checked apart (they could make broken code look valid). prefer, types: as check_code.
        Never raises for any str."""
        ex = extract(text)
        candidates = ex.candidates()
        if not candidates:
            note = "no code found in the text" if text and text.strip() else "empty input"
            return Verdict("no_call", None, None, [], [note], "no_call:no_code")
        best: Verdict | None = None
        with named_by_schema(ex.format == "json"):
            for snippet in candidates:
                verdict = self.check_code(snippet, prefer, types=types)
                if verdict.kind == "valid" or (best is None or RANK[verdict.kind] < RANK[best.kind]):
                    best = verdict
                if verdict.kind == "valid" or (snippet == ex.code and verdict.kind == "unparseable"):
                    break
        assert best is not None
        if ex.left_out:  # JSON tool calls past callsite.MAX_CALLS were not rendered (extract.tool_calls)
            best = dataclasses.replace(best, diagnostics=[*best.diagnostics, left_out_note(ex.left_out)])
        return best


def validate(code: str, pool: Sequence[ApiDoc]) -> Verdict:
    """One-shot check of code (or model text) against a pool (builds a Validator: reuse one for many)."""
    return Validator(pool).check(code)
