"""The prebuilt validator lookup: the API pool split by callee, saved with the index at refresh (issue 20).

A cold ``gorilla-tui check`` used to load every doc of the index and build a Validator over all ~10k
entries (about 0.8 s of a 1.0 s run, issue 20). The lookup lets it build a Validator over only the entries
the checked code can reach, with the pool-wide facts (all callees, model ids, repos...) read from a small
summary, so the verdicts are those of the full Validator (tests/apibench/test_lint_cli_apibench.py compares
them on Gorilla-7B responses of the three hubs and on the lint corpus).

Layout, inside an index version folder (every file zlib-compressed JSON; ~1.4 MB for the default index,
a fifth of docs.json)::

    lookup/<n>/summary.json   one per source, n = its position in the pool: source name, doc count, the
                              pool-wide facts of that source's entries (summary_of), its shard names
    lookup/<n>/<shard>.json   [[pool position, callee, ApiDoc dict], ...] of the entries whose callee
                              hashes to <shard> (crc32(callee) % SHARDS); "rest.json" holds the REST docs

A shard is read only when the code calls one of its callees (or names a pretrained model id of it); the
REST docs only when the code makes HTTP requests. No numpy or scipy is imported on this path.
"""

from __future__ import annotations

import os
import re
import shutil
import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from gorilla_tui.check.callsite import scan
from gorilla_tui.check.extract import extract
from gorilla_tui.check.imports import resolve_calls
from gorilla_tui.check.rest import http_method, request_lines
from gorilla_tui.check.runs_code import dynamic_import
from gorilla_tui.check.signature import canonical
from gorilla_tui.check.validator import Validator
from gorilla_tui.jsontext import dumps as json_text
from gorilla_tui.jsontext import loads as json_value
from gorilla_tui.pool.doc import ApiDoc
from gorilla_tui.types import Verdict

#: Bumped when the files change shape; an index with another version is checked the slow way.
LOOKUP_VERSION = 1
LOOKUP_DIR = "lookup"
#: Shards per source: ~40 docs per shard on the default index (10.6k docs), a few ms to read one.
SHARDS = 256


def root_of(callee: str) -> str:
    """The module part of a callee as the Validator groups them: ``torch.hub.load`` -> ``torch``."""
    return callee.split(".")[0].split("(")[0]


def shard_of(callee: str) -> int:
    """Shard number (0..SHARDS-1) of a pool callee: crc32 of its UTF-8 bytes modulo SHARDS."""
    return zlib.crc32(callee.encode("utf-8", "surrogatepass")) % SHARDS


def write_lookup(folder: Path, docs: Sequence[ApiDoc]) -> int:
    """Write the lookup of `docs` (the index's docs in pool order) into folder/lookup (built aside and
    renamed, so it can be added to a published version too); returns the bytes written. Builds one
    Validator per source (about the cost of one Validator over the whole pool: 0.6 s for the default index
    on an idle core). Raises OSError when the folder cannot be written."""
    final = folder / LOOKUP_DIR
    if final.exists():  # written meanwhile by another process (or a damaged one is in the way): keep it
        return 0
    base = folder / f".{LOOKUP_DIR}-{os.getpid()}"  # renamed when complete: readers see all or nothing
    shutil.rmtree(base, ignore_errors=True)
    base.mkdir()
    by_source: dict[str, list[tuple[int, ApiDoc]]] = {}
    for pos, doc in enumerate(docs):
        by_source.setdefault(doc.source, []).append((pos, doc))
    written = 0
    for n, (source, rows) in enumerate(by_source.items()):
        out = base / str(n)
        out.mkdir()
        validator = Validator([d for _, d in rows])
        shards: dict[str, list[list[Any]]] = {}
        callee_of = {id(e.doc): e.req.callee for e in validator.entries}
        for pos, doc in rows:
            if doc.kind == "rest":
                shards.setdefault("rest", []).append([pos, "", doc.to_dict()])
            elif id(doc) in callee_of:  # docs the Validator could not index are never looked up
                callee = callee_of[id(doc)]
                shards.setdefault(str(shard_of(callee)), []).append([pos, callee, doc.to_dict()])
        summary = {
            "version": LOOKUP_VERSION,
            "source": source,
            "docs": len(rows),
            "facts": summary_of(validator),
            "shards": sorted(shards),
        }
        for name, items in shards.items():
            written += _write_json(out / f"{name}.json", items)
        written += _write_json(out / "summary.json", summary)
    try:
        os.rename(base, final)
    except OSError:
        shutil.rmtree(base, ignore_errors=True)
        if not final.is_dir():  # else another process wrote the same lookup first
            raise
    return written


class LookupMissing(Exception):
    """The index has no usable lookup (built before it existed, or damaged): check the slow way."""


def load_validator(folder: Path, code: str | Sequence[str], hub: str | None = None) -> Validator:
    """A Validator for `code` (one text, or several checked apart: files, cells) built from the lookup of
    the index version `folder`: only the entries of the callees the code calls (see code_callees) and of
    the pretrained model ids it names, the REST docs only when it makes HTTP requests, plus the pool-wide
    facts of every source (only the source `hub` when given). Its verdicts for each text equal those of
    Validator(index.pool(hub)): check and check_code for one text; check_code for several (`check PATH`
    reads files as code: the snippets extract() would find in them are not looked up, which was half of
    the linter's time on a large tree).

    Raises LookupMissing when folder/lookup is absent, of another LOOKUP_VERSION or unreadable (the
    caller then builds the Validator from the whole index). An unknown `hub` yields an empty pool."""
    base = folder / LOOKUP_DIR
    try:
        names = sorted((n for n in os.listdir(base) if n.isdigit()), key=int)
        summaries = [(base / n, _read_json(base / n / "summary.json")) for n in names]
    except (OSError, ValueError, zlib.error) as e:
        raise LookupMissing(str(e)) from None
    if not summaries or any(s.get("version") != LOOKUP_VERSION for _, s in summaries):
        raise LookupMissing("lookup of another version")
    if hub is not None:
        summaries = [(p, s) for p, s in summaries if s["source"] == hub]
    texts = [code] if isinstance(code, str) else list(code)
    callees: set[str] = set()
    http = False
    scans: dict[str, Any] | None = None if isinstance(code, str) else {}
    for text in texts:  # each text apart: one unparseable file must not hide the calls of the next
        found, makes_requests = code_callees(text, candidates=isinstance(code, str), keep=scans)
        callees |= found
        http = http or makes_requests
    rows: list[list[Any]] = []
    facts = []
    joined = texts[0] if len(texts) == 1 else "\x00".join(texts)
    words: dict[str, Any] = {}  # named_ids' index of `joined`, made once for every source
    try:
        for path, summary in summaries:
            fact = summary["facts"]
            facts.append(fact)
            known = set(fact["callees"])
            needed = {c for c in callees if c in known}
            # model ids named in the texts joined (a match across two texts only reads more)
            needed.update(fact["pretrained"][i] for i in named_ids(fact["pretrained"], joined, words))
            shards = set(summary["shards"])
            for name in sorted({str(shard_of(c)) for c in needed}):
                if name in shards:
                    rows.extend(r for r in _read_json(path / f"{name}.json") if r[1] in needed)
            if http and "rest" in shards:
                rows.extend(_read_json(path / "rest.json"))
    except (OSError, ValueError, KeyError, TypeError, IndexError, zlib.error) as e:
        raise LookupMissing(str(e)) from None
    rows.sort(key=lambda r: r[0])
    validator = with_facts(Validator([ApiDoc.from_dict(r[2]) for r in rows]), merge_facts(facts))
    validator.scans = scans
    return validator


class LookupChecker:
    """A checker (pipeline.Checker) over the lookup of index version `folder`: each check builds a Validator
    over only the entries the text can reach (load_validator: ~30-60 ms) instead of one Validator over the
    whole pool (~0.6 s for the default index, issue 19: most of a cold `ask`'s validator build). Its verdicts
    are those of Validator(index.pool(hub)) (load_validator's guarantee).

    Args:
        folder: the index version folder (ApiIndex.path).
        hub: the source the pool is limited to, or None for every source.
        fallback: builds the whole-pool Validator; used, once, when the lookup is missing or damaged
            (LookupMissing) or names no entry of `hub`.
    """

    #: Validators kept per checked text (an ask checks its call and the doc's example code).
    KEEP = 8

    def __init__(self, folder: Path, hub: str | None, fallback: Callable[[], Validator]) -> None:
        self.folder = folder
        self.hub = hub or None
        self._fallback = fallback
        self._whole: Validator | None = None
        self._by_text: dict[str, Validator] = {}

    def validator_for(self, text: str) -> Validator:
        """The Validator whose verdicts for `text` are those of the whole pool's."""
        if self._whole is not None:
            return self._whole
        found = self._by_text.get(text)
        if found is not None:
            return found
        try:
            found = load_validator(self.folder, text, self.hub)
        except LookupMissing:
            found = None
        if found is None or (self.hub is not None and not (found.callees or found.rest)):
            self._whole = self._fallback()
            return self._whole
        if len(self._by_text) >= self.KEEP:
            self._by_text.pop(next(iter(self._by_text)))
        self._by_text[text] = found
        return found

    def named(self, api_name: str) -> ApiDoc | None:
        """PoolIndex.named: the pool's doc named `api_name` whose call calls that name (a class's doc), read
        from the entries of that callee (load_validator of the text ``api_name()``), or None."""
        return self.validator_for(f"{api_name}()").named(api_name)

    def check(self, code: str, prefer: str | None = None, types: Mapping[str, str] | None = None) -> Verdict:
        """Validator.check of `code` (any model text: the call is extracted first); prefer: the doc id a
        match names among entries of one identity (PoolIndex.match); types: the classes of names the code
        does not bind (Validator.check_code), whose methods' entries are looked up too."""
        if not types:
            return self.validator_for(code).check(code, prefer)
        # the typed callees' entries too (str().count of text.count): a text of its own in the cache
        typed = "\n".join(sorted({f"{cls}().{m}()" for cls in types.values() for m in _methods(code)}))
        return self.validator_for(f"{code}\n{typed}" if typed else code).check(code, prefer, types)

    def check_code(self, code: str, prefer: str | None = None) -> Verdict:
        """Validator.check_code of `code` (Python code as it is); prefer: as check."""
        return self.validator_for(code).check_code(code, prefer)


#: A method's name after a dot and before its parentheses (``.count(`` of ``text.count('the')``).
_METHOD = re.compile(r"\.([^\W\d]\w*)\s*\(")


def _methods(code: str) -> set[str]:
    """The names `code` calls as methods (_METHOD), at most 64: the typed callees LookupChecker.check looks
    up for names the caller types."""
    return set(list(dict.fromkeys(_METHOD.findall(code)))[:64])


def code_callees(
    text: str, candidates: bool = True, keep: dict[str, Any] | None = None
) -> tuple[set[str], bool]:
    """(every pool-side callee the Validator may look up for `text`, whether it makes HTTP requests).

    The callees are those of the calls in `text` and in each code candidate extract() finds in it, as
    written and as import-qualified (imports.resolve_calls), with aliases folded (signature.canonical),
    plus every prefix of a call chain ending before a ``()`` (``service.users()``). HTTP: request lines
    (``GET /path``) or an HTTP client call (``requests.get``). candidates=False: `text` alone, for a
    caller that checks it as code (Validator.check_code), not as model text (Validator.check). keep: when
    given, keep[text] is set to the callsite.Scan of `text` (Validator.scans: not parsed twice)."""
    callees: set[str] = set()
    http = False
    found = extract(text) if candidates else None
    # a JSON tool call is checked as its rendered calls only: its text read as Python (a list of dicts)
    # has none, and scanning 5 MB of it took 10 s
    codes = set() if found is not None and found.format == "json" else {text}
    for code in codes | set(found.candidates() if found is not None else ()):
        if request_lines(code):
            http = True
        scanned = scan(code)
        if keep is not None and code == text:
            keep[text] = scanned
        calls = scanned.calls
        for call in (*calls, *resolve_calls(code, calls)):
            callee = canonical(call.callee)
            callees.update((callee, canonical(dynamic_import(call).callee)))  # __import__('os').system
            callees.update(callee[:i] for i in range(len(callee)) if callee.startswith("()", i))
            http = http or http_method(call.callee) is not None
    return callees, http


#: An ASCII letter-or-digit run: the unit of named_ids' pre-check.
_RUN = re.compile(r"[A-Za-z0-9]+")
#: Texts shorter than this (characters) are searched for each id directly (one file, a snippet).
_SHORT_TEXT = 200_000


def named_ids(ids: Iterable[str], text: str, index: dict[str, Any] | None = None) -> list[str]:
    """The ids of `ids` (model ids: ``facebook/bart-large-cnn``) that occur in `text`, in `ids` order:
    exactly ``[i for i in ids if i in text]``, fast on a long text (`check` of a tree joins every file: 506
    searches of 20 MB took 7.7 s of CPU for 1,000 files, issue 39; this takes 0.9 s).

    Pre-check: every maximal letter-or-digit run (_RUN) of an id that has other characters on both sides
    in the id must be a whole run of `text` (a set look-up); its first and last runs must be substrings of
    `text`'s distinct runs joined (an occurrence of the id puts them inside runs of `text`). Only ids that
    pass are searched in `text`. index: a dict kept by the caller for several calls on the same `text`
    (the runs are read once)."""
    if len(text) < _SHORT_TEXT:
        return [i for i in ids if i in text]
    index = {} if index is None else index
    if "runs" not in index:
        index["runs"] = set(_RUN.findall(text))
        index["words"] = "\n".join(index["runs"])
    runs, words = index["runs"], index["words"]
    out = []
    for i in ids:
        for m in _RUN.finditer(i):
            inner = m.start() > 0 and m.end() < len(i)
            if not (m.group() in runs if inner else m.group() in words):
                break
        else:
            if i in text:
                out.append(i)
    return out


def summary_of(validator: Validator) -> dict[str, Any]:
    """The pool-wide facts a Validator's rules read besides the entries of the called callees (JSON-able):
    callees (in pool order), by_root (root -> its callees in pool order), methods, api_callees (callees
    outside python-env), repos (torch.hub repos), identities (identifying values of the fixed families),
    pretrained (model id -> callee of its first ``*.from_pretrained`` entry)."""
    return {
        "callees": list(validator.callees),
        "by_root": validator._by_root,
        "methods": sorted(validator.methods),
        "api_callees": sorted(validator.api_callees),
        "repos": sorted(validator.repos),
        "identities": sorted(validator.identities),
        "pretrained": {k: e.req.callee for k, e in validator.pretrained.items()},
    }


def merge_facts(facts: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The facts of several sources as one pool in source order (what summary_of gives for the
    concatenated pool: callees in first-seen order, the other sets united)."""
    if len(facts) == 1:
        return {k: set(v) if k in _SETS else v for k, v in facts[0].items()}
    merged: dict[str, Any] = {k: set() for k in _SETS}
    by_root: dict[str, list[str]] = {}
    callees: list[str] = []
    for fact in facts:
        callees.extend(fact["callees"])
        for key in _SETS:
            merged[key].update(fact[key])
        for root, items in fact["by_root"].items():
            by_root.setdefault(root, []).extend(items)
    merged["callees"] = list(dict.fromkeys(callees))
    merged["by_root"] = {r: list(dict.fromkeys(items)) for r, items in by_root.items()}
    return merged


_SETS = ("methods", "api_callees", "repos", "identities")


def with_facts(validator: Validator, facts: dict[str, Any]) -> Validator:
    """`validator` (built over the looked-up entries) given the pool-wide facts, derived the way
    Validator.__init__ derives them; returns it."""
    validator.callees = facts["callees"]
    validator._by_root = facts["by_root"]
    validator.roots = set(facts["by_root"])
    validator.methods = facts["methods"]
    validator.api_callees = facts["api_callees"]
    validator.api_roots = {root_of(c) for c in validator.api_callees}
    validator.repos = facts["repos"]
    validator.identities = facts["identities"]
    validator.__dict__.pop("environment_owners", None)  # a cached_property of the facts set above
    return validator


def _read_json(path: Path) -> Any:
    with open(path, "rb") as fh:
        return json_value(zlib.decompress(fh.read()))  # nested too deep: a ValueError too


def _write_json(path: Path, value: Any) -> int:
    """zlib-compressed JSON (docs compress ~5x: the lookup adds ~20 % to the index, not 100 %)."""
    data = zlib.compress(json_text(value, separators=(",", ":")).encode(), 6)
    with open(path, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    return len(data)
