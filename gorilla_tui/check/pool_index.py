"""The API pool indexed by callee, as the validator looks it up: `PoolIndex` (built once from the docs:
entries by callee, exact lookups by identifying arguments, the pool-wide facts the verdict rule reads) and
`match`, the AST sub-tree match of one call against it (identifying arguments equal, after signature.py's
binding; the paper's match, arXiv 2305.15334 section 4). check/validator.py's `Validator` is a PoolIndex
that gives verdicts; check/lookup.py saves the facts with the index."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

from gorilla_tui.check.arguments import has_schema
from gorilla_tui.check.callsite import CallSite, scan
from gorilla_tui.check.rest import RestTable
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
from gorilla_tui.check.suggest import nearest, similarity
from gorilla_tui.pool.doc import ApiDoc
from gorilla_tui.pool.examples import holds_shaped
from gorilla_tui.pool.manifest import EXAMPLE_VALUES, packaged_values
from gorilla_tui.pool.pyenv import SOURCE as PYENV

_SIGNATURE_ARG = re.compile(r"(?<=[(,])(\s*)(\w+)\s*:\s*[\w.\[\]| ]+?(?=\s*[,)=])")
_BARE_PLACEHOLDER = re.compile(r"(?<=[(,\s])\{\w*\}")
#: A callee not in the pool is a near-miss of a pool callee of the same module at this difflib ratio
#: (``torch.load`` / ``torch.hub.load`` = 0.83; ``torch.save`` = 0.58, ``torch.no_grad`` = 0.48).
NEAR_MISS = 0.8


@dataclass(frozen=True)
class PoolEntry:
    """One indexed pool doc: the doc and the Requirement of its primary call."""

    doc: ApiDoc
    req: Requirement


@dataclass
class CalleeTable:
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


class PoolIndex:
    """The API pool indexed by callee. Building it indexes the pool once (~1 ms per 100 docs); lookups are
    then dict lookups. Read-only after construction (thread-safe).

    Attributes: entries (indexed python docs), tables (callee -> CalleeTable), rest (REST templates),
    skipped ("id: reason" for pool docs that could not be indexed, e.g. shell lines; reported, never
    raised), and the pool-wide facts: callees, roots, methods, api_callees / api_roots (outside
    python-env), pretrained (model id -> entry), tasks, repos, identities.
    """

    def __init__(self, pool: Sequence[ApiDoc]) -> None:
        self.tables: dict[str, CalleeTable] = {}
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
            table = self.tables.setdefault(entry.req.callee, CalleeTable())
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
        #: tasks of the pool's pipeline entries: ``pipeline(task, model=id)`` of a pool model id loaded
        #: there through a class (``Wav2Vec2ForCTC.from_pretrained(id)``) matches that entry
        self.tasks = {
            str(v) for e in self.entries if e.req.callee == "pipeline" for k, v in e.req.slots if k == "task"
        }
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

    @cached_property
    def environment_owners(self) -> set[str]:
        """Owners (the callee without its last name: ``numpy.linalg`` of ``numpy.linalg.norm``) of the
        callees that come only from python-env (an installed package indexed with ``--source python:NAME``,
        or the standard library), not from a hub, APIZoo or user doc. Computed once, on first use (a scan
        of every callee); check/lookup.with_facts drops it when it sets the pool-wide facts."""
        return {c.rsplit(".", 1)[0] if "." in c else "" for c in self.callees if c not in self.api_callees}

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
        if has_schema(doc):  # a function's identity is its callee; its arguments meet its schema instead
            return PoolEntry(doc, Requirement(canonical(call.callee), ())), ""
        req = requirement(call)
        if doc.source != PYENV and packaged_values(EXAMPLE_VALUES).get(doc.source):
            # its values of a shape are made-up examples (APIZoo's sendAsEmail='alias@example.com'): any
            # value of the person's own is right, the argument still has to be given (fill/examples.py
            # replaces them); a plain word ('full', 'draft_body') stays the entry's own
            slots = tuple(
                (s, None if s != "." and v not in (None, ABSENT) and holds_shaped(v) else v)
                for s, v in req.slots
            )
            req = Requirement(req.callee, slots)
        return PoolEntry(doc, req), ""

    def named(self, api_name: str) -> ApiDoc | None:
        """The pool's doc named `api_name` whose call calls that name (a class's doc: ``pathlib.Path`` of
        ``pathlib.Path()``; fill/receivers.py fills a method's receiver with its parameters), or None."""
        table = self.tables.get(canonical(api_name))
        return next((e.doc for e in table.entries if e.doc.api_name == api_name), None) if table else None

    def key_of(self, api_call: str) -> Requirement | None:
        """The identity (Requirement) of any api_call text, as the pool indexes it; None if it has no call."""
        entry, _ = self._entry(ApiDoc(id="key", source="key", api_call=api_call))
        return entry.req if entry else None

    # ------------------------------------------------------------------------------------------------
    def match(self, call: CallSite, code: str = "", prefer: str | None = None) -> PoolEntry | None:
        """The pool entry a call matches (identifying arguments equal), or None. Among entries with the same
        identity, the doc with id `prefer` wins when it is one of them (select mode's chosen doc: a call can
        have several docs, APIBench's TensorFlow Hub pool has 696 docs and 80 distinct api_calls, whose
        descriptions, example code and performance differ), then the one whose api_call reads like `code`
        (or the call itself), else the first."""
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
            chosen = next((e for e in hits if prefer is not None and e.doc.id == prefer), None)
            if chosen is not None:
                return chosen
            for form in (str.strip, _squeeze):
                for text in (code, call.text):
                    same = form(text)
                    for entry in hits:
                        if form(entry.doc.api_call) == same:
                            return entry
        return hits[0] if hits else None

    def companion(self, call: CallSite) -> PoolEntry | None:
        """For a ``*.from_pretrained`` call of any class, or a ``pipeline(task, model=id)`` of a pool task,
        whose model id is a pool entry's id (loaded there by another class: a tokenizer, processor or
        scheduler of that repo, or ``Wav2Vec2ForCTC``), that entry; else None. The
        paper's Hugging Face match compares the model id, not the class (arXiv 2305.15334, section 4). The
        receiver must read as a class (its last name starts with a capital letter, as PEP 8 names classes and
        as every transformers, diffusers and sentence-transformers class is named): a made-up
        ``auto_model_for_causal_lm.from_pretrained(id)`` is no class loading that repo, and running it
        fails with a NameError."""
        callee = canonical(call.callee)
        if callee == "pipeline":  # same repo, loaded by the pipeline of a pool task
            bound = bind(call, family(callee) or ())
            model, task = bound.get("model"), bound.get("task")
            return self.pretrained.get(model) if model and task in self.tasks else None
        if not callee.endswith(".from_pretrained"):
            return None
        receiver = callee[: -len(".from_pretrained")].rsplit(".", 1)[-1]
        if not receiver[:1].isupper():
            return None
        value = bind(call, family(callee) or ()).get("pretrained_model_name_or_path")
        return self.pretrained.get(value) if value else None

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


def _lookup(table: CalleeTable, bound: dict[str, str]) -> list[PoolEntry]:
    """Entries of one callee that bound arguments match: exact entries by dict lookup, else loose ones."""
    for names, lookup in table.exact.items():
        hits = lookup.get(tuple(bound.get(n, ABSENT) for n in names), [])
        if hits:
            return hits
    return [e for e in table.loose if e.req.accepts(bound)]


def helper_loaded(
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
