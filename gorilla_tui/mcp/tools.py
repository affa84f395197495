"""The three MCP tools as plain functions over the live index, with no MCP import (gorilla_tui/mcp/server.py
wires them to the SDK): search the API pool, check a call, propose a call.

Results are JSON-ready dicts. Bad arguments and every failure the user can act on raise ToolInputError
(a GorillaError), which the server turns into an MCP tool error (is_error=True) with the one-line message.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from gorilla_tui import services
from gorilla_tui.check.extract import json_error
from gorilla_tui.check.validator import Validator
from gorilla_tui.config import MAX_NAME_CHARS, Settings
from gorilla_tui.constraints.rank import search_with_constraints
from gorilla_tui.errors import GorillaError
from gorilla_tui.pipeline import clean_task
from gorilla_tui.retrieve.index import ApiIndex
from gorilla_tui.store.versions import current_version
from gorilla_tui.textsafe import MAX_TASK_INPUT_CHARS, cut
from gorilla_tui.types import FIT_LINES

T = TypeVar("T")

#: Longest task accepted (characters; the CLI's too: textsafe.MAX_TASK_INPUT_CHARS); pipeline.MAX_TASK_CHARS
#: cuts what a model sees to 2,000 anyway.
MAX_TASK_CHARS = MAX_TASK_INPUT_CHARS
#: Longest code accepted by check_api_call (characters): a few source files' worth.
MAX_CODE_CHARS = 100_000
#: Hits per search: the same bound as `search -k` and the TUI.
K_MAX = 50
#: Characters of a doc's functionality + description kept in a hit's summary.
SUMMARY_CHARS = 300


class ToolInputError(GorillaError):
    """An argument the tool cannot use (the message says which and what is allowed)."""


class CallCancelled(GorillaError):
    """The client cancelled the call (notifications/cancelled) while it waited for its turn: it never ran
    (the SDK sends no reply for a cancelled request)."""


#: How often a call waiting for its turn looks whether it was cancelled (seconds).
TURN_POLL_S = 0.05


class ToolCancel(threading.Event):
    """ToolBox.cancel: set by Ctrl+C or the end of input (every call stops), and also reads as set while
    the running call's own event (`current`, set when the client cancels that call) is. So the model, the
    endpoint's requests and the pipeline, which were all given this one event, stop at their next check
    when the client cancels the call they work for (break-it round 18, R18-3: 20 cancelled proposals still
    ran one after another, and the next search waited 42 s)."""

    def __init__(self) -> None:
        super().__init__()
        self.current: threading.Event | None = None

    def is_set(self) -> bool:
        current = self.current
        return super().is_set() or (current is not None and current.is_set())

    def ends_all(self) -> bool:
        """Whether the event itself is set (Ctrl+C, end of input: every call stops), not just the running
        call cancelled."""
        return super().is_set()


def _summary(doc: Any) -> str:
    text = " ".join(" ".join(x for x in (doc.functionality, doc.description) if x).split())
    return text if len(text) <= SUMMARY_CHARS else text[: SUMMARY_CHARS - 3].rstrip() + "..."


def _entry(doc: Any) -> dict[str, Any]:
    """The compact JSON shape of an API pool entry."""
    return {
        "id": doc.id,
        "api_call": doc.api_call,
        "api_name": doc.api_name,
        "domain": doc.domain,
        "provider": doc.framework,
        "source": doc.source,
        "summary": _summary(doc),
        "env_requirements": list(doc.env_requirements),
        **({"repaired_call": doc.repaired} if getattr(doc, "repaired", "") else {}),
    }


@dataclass
class ToolBox:
    """The state behind the tools: the index (loaded on first use, reloaded when `index --refresh` swaps
    the live version), a validator per source, and the model backend (opened on the first proposal); the
    backend, validators and pipelines come from the composition root (gorilla_tui/services.py).

    settings: config.toml settings with the `mcp` command's model flags applied. index_dir: the index root
    (default: get_paths().index_dir). Calls are serialised by a lock (one model, one index swap at a time;
    `run` takes a call's turn). cancel: once set (Ctrl+C, or the client closed stdin), a proposal stops
    (the model load, the endpoint's requests, the pipeline; AskCancelled) instead of running to its end;
    it reads as set too while the running call was cancelled by the client (ToolCancel).
    """

    settings: Settings
    index_dir: Path | None = None
    _index: ApiIndex | None = None
    _version: Path | None = None
    _validators: dict[str, Validator] = field(default_factory=dict)
    _backend: Any = None
    _lock: threading.RLock = field(default_factory=threading.RLock)
    reloads: int = 0
    cancel: ToolCancel = field(default_factory=ToolCancel)

    def run(self, stop: threading.Event, fn: Callable[..., T], *args: Any) -> T:
        """fn(*args) (a tool: search, check, propose) in its turn, with `stop` as the call's cancel event.

        A call waits for the lock while another runs; cancelled meanwhile (`stop` or self.cancel set), it
        gives up without running. While it runs, self.cancel reads as set once `stop` is
        (ToolCancel.current), so a cancelled proposal stops at its next check.

        Args:
            stop: set when the client cancels this call (mcp/lines.py in_daemon_thread).
            fn: the tool.
            args: its arguments.

        Returns:
            What fn returns.

        Raises:
            CallCancelled: cancelled before its turn came. And what fn raises (AskCancelled: cancelled
            while it ran).
        """
        while not self._lock.acquire(timeout=TURN_POLL_S):
            if stop.is_set() or self.cancel.ends_all():  # not is_set(): that is the running call's cancel too
                raise CallCancelled("cancelled before it ran")
        try:
            if stop.is_set():
                raise CallCancelled("cancelled before it ran")
            self.cancel.current = stop
            return fn(*args)
        finally:
            self.cancel.current = None
            self._lock.release()

    def index(self) -> ApiIndex:
        """The live index; reloaded when the CURRENT pointer names another version than the loaded one.
        Raises IndexMissingError / GorillaError (ApiIndex.load)."""
        with self._lock:
            version = current_version(self.index_dir)
            if self._index is None or version != self._version:
                self._index = ApiIndex.load(version) if version is not None else ApiIndex.load(self.index_dir)
                if self._version is not None:
                    self.reloads += 1
                self._version = version
                self._validators.clear()
            return self._index

    def _source(self, source: str) -> str | None:
        if not isinstance(source, str):
            raise ToolInputError(f"source must be a string (a source name, or empty for all), not {source!r}")
        source = source.strip()
        if not source:
            return None
        known = self.index().sources
        if source not in known:
            shown = cut(source, MAX_NAME_CHARS)
            raise ToolInputError(f"unknown source {shown!r}; the index holds: {', '.join(known) or 'none'}")
        return source

    @staticmethod
    def _task(task: str, whole: bool = False) -> str:
        """`task` cleaned (textsafe.clean_task): cut as a search cuts it, or `whole` (up to MAX_TASK_CHARS)
        for an ask, whose pipeline keeps a long input a colon hands over whole (fill/set_aside.py).
        Raises ToolInputError (not a string, too long), UsageError (empty)."""
        if not isinstance(task, str):
            raise ToolInputError(f"task must be a string, not {type(task).__name__}")
        if len(task) > MAX_TASK_CHARS:
            raise ToolInputError(f"task is {len(task)} characters; at most {MAX_TASK_CHARS} are accepted")
        return clean_task(task, MAX_TASK_CHARS)[0] if whole else clean_task(task)[0]

    def search(self, task: str, k: int = 5, source: str = "") -> dict[str, Any]:
        """BM25 hits for `task`, reranked by the constraints the task states (constraints/rank.py).

        Returns {"task", "source", "k", "hits": [{rank, score, constraints_met, ...entry}], "constraints":
        [one report per stated constraint], "note"} (the note also says why a search was BM25 alone).
        Raises ToolInputError (k outside 1..K_MAX, a task too long or empty, an unknown source),
        IndexMissingError (no index built)."""
        task = self._task(task)
        if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= K_MAX:
            raise ToolInputError(f"k must be an integer in 1..{K_MAX}, not {k!r}")
        with self._lock:
            hub = self._source(source)
            result = search_with_constraints(self.index(), task, k=k, hub=hub)
            # BM25 alone (damaged vectors, a failed embedder): said as `search` and propose say it
            failure = getattr(self.index(), "dense_failure", lambda: "")()
        hits = []
        for h in result.hits:
            row = {"rank": h.rank, "score": round(h.score, 3), **_entry(h.doc)}
            if result.constraints:
                row["constraints"] = result.for_doc(h.doc)
            hits.append(row)
        said = "; ".join(n for n in (*result.notes, result.message, failure) if n)  # no words, constraints
        note = said or ("" if hits else "no API doc shares a word with the task")
        return {"task": task, "source": hub or "all", "k": k, "hits": hits, "constraints": result.report,
                "note": note}  # fmt: skip

    def _validator(self, hub: str | None) -> Validator:
        key = hub or ""
        if key not in self._validators:
            self._validators[key] = services.build_validator(self.index().pool(hub))
        return self._validators[key]

    def check(self, code: str, source: str = "") -> dict[str, Any]:
        """The verdict of `code` (one call or a snippet) by the AST sub-tree match against the API pool
        (check/validator.py): {"verdict", "reason" (a types.REASONS code, e.g. "wrong_args:unknown_model";
        "" for valid), "api_call", "matched" (entry or null), "did_you_mean", "diagnostics" (sentences)}.
        Raises ToolInputError (empty or too long code, an unknown source, text that starts like a JSON tool
        call and is not JSON: "not valid JSON: ...", as `check` says)."""
        if not isinstance(code, str):
            raise ToolInputError(f"code must be a string, not {type(code).__name__}")
        if not code.strip():
            raise ToolInputError("code is empty: pass the API call or snippet to check")
        if len(code) > MAX_CODE_CHARS:
            raise ToolInputError(f"code is {len(code)} characters; at most {MAX_CODE_CHARS} are accepted")
        if (bad_json := json_error(code)) is not None:  # a tool call cut short: not a `no_call` verdict
            raise ToolInputError(f"not valid JSON: {bad_json}")
        with self._lock:
            hub = self._source(source)
            verdict = self._validator(hub).check(code)
        return _verdict(verdict)

    def propose(self, task: str, source: str = "") -> dict[str, Any]:
        """What `ask` proposes in select mode: one of the hits' api_calls, chosen by the model (likelihood
        or grammar, as configured), with the matched doc's example code and the verdict. The model is
        opened on the first call (seconds). Returns {"task", "translation" (Proposal.translation: the task in
        English when it was in another language, else ""), "api_call", "code", "code_source", "verdict"
        (its "verdict" may be "incomplete": the call still holds placeholders, check/verdicts.py; its "of"
        says which call it judges: "api_call", or "nearest_call" when nothing fits), "needs"
        (Proposal.needs: the parameters left as placeholders, [] when none), "arguments" (name, value,
        origin of each argument filled from the task, fill/), "calls" (every proposed call in BFCL's decoded
        form, [{"func": {"param": value}}]), "fit" (Proposal.fit: "fits", "unsure", or "nothing": no API in
        the index does the task, so "api_call", "code" and "calls" are empty and "nearest_call" holds the
        nearest hit's call, not a proposal; "" when not judged), "fit_line" (types.FIT_LINES), "select_by",
        "model", "hits" (when nothing fits, the nearest hits), "constraints", "warnings"}. Raises
        ToolInputError, GorillaError
        (model or endpoint failures, one line)."""
        task = self._task(task, whole=True)
        with self._lock:
            hub = self._source(source)
            index = self.index()
            if self._backend is None:
                self._backend = services.load_backend(self.settings, cancel=self.cancel)
            settings = self.settings.replace(mode="select", hub=hub or "")
            pipeline = services.build_pipeline(settings, index, self._backend, validator=self._validator(hub))
            proposal = pipeline.ask(task, mode="select", cancel=self.cancel)
        nothing = proposal.fit == "nothing"  # the nearest hit's call, not a proposal
        return {
            "task": proposal.task,
            "translation": proposal.translation,
            "fit": proposal.fit,
            "fit_line": FIT_LINES.get(proposal.fit, ""),
            "api_call": "" if nothing else proposal.api_call,
            "nearest_call": proposal.api_call if nothing else "",
            "code": "" if nothing else proposal.code,
            "code_source": proposal.code_source,
            # "of": which call the verdict judges; when nothing fits it is the nearest hit's, not a proposal
            "verdict": {**_verdict(proposal.verdict), "of": "nearest_call" if nothing else "api_call"},
            "needs": proposal.needs,
            "unused": [] if nothing else list(proposal.unused),
            "arguments": [a.to_dict() for a in proposal.arguments],
            "calls": [] if nothing else proposal.calls,
            "select_by": proposal.select_by,
            "model": proposal.model,
            "hits": [
                {
                    "rank": h.rank,
                    "score": round(h.score, 3),
                    "api_call": h.doc.api_call,
                    "domain": h.doc.domain,
                }
                for h in proposal.hits
            ],  # fmt: skip
            "constraints": proposal.constraints,
            "warnings": list(proposal.warnings),
        }


def _verdict(verdict: Any) -> dict[str, Any]:
    d = verdict.to_dict()
    return {
        "verdict": d.get("verdict"),
        "reason": d.get("reason") or "",
        "api_call": d.get("api_call", ""),
        "matched": _entry(verdict.matched) if verdict.matched is not None else None,
        "did_you_mean": list(d.get("suggestions") or []),
        "diagnostics": list(d.get("diagnostics") or []),
    }
