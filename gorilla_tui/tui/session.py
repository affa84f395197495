"""The TUI's non-UI state: settings, index, backend, pipeline and history, loaded lazily (thread-safe)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from gorilla_tui.config import Settings
from gorilla_tui.constraints.rank import search_with_constraints
from gorilla_tui.errors import GorillaError, IndexMissingError
from gorilla_tui.fill.render import decoded_calls
from gorilla_tui.history import History
from gorilla_tui.textsafe import clean_task
from gorilla_tui.tui.answer_text import effective_call
from gorilla_tui.types import Hit, Proposal, Verdict

if TYPE_CHECKING:  # annotations only: these pull in numpy and scipy, loaded after the first paint
    from gorilla_tui.model.backend import Backend
    from gorilla_tui.pipeline import Checker, Pipeline
    from gorilla_tui.retrieve.index import ApiIndex

#: Builds a pipeline: (settings, index, backend) -> Pipeline (default services.build_pipeline).
PipelineFactory = Callable[[Settings, "ApiIndex", "Backend"], "Pipeline"]


def default_pipeline(
    settings: Settings, index: ApiIndex, backend: Backend, validator: Checker | None = None
) -> Pipeline:
    """services.build_pipeline(settings, index, backend, validator): the pipeline every caller gets.
    validator: a prebuilt validator over index.pool(settings.hub) (Session.warm_up), or None to build one
    on first use."""
    from gorilla_tui import services  # deferred: numpy, scipy (~0.3 s) after the first paint

    return services.build_pipeline(settings, index, backend, validator=validator)


#: The status bar's index note when dense retrieval is off for a reason (retrieve.dense.DenseSide.state's
#: "why"): "embedder failed" was also said of an embedding stopped by Ctrl+C (break-it pass 10).
FAILED_NOTES = {
    "embedder": " · BM25 alone (embedder failed)",
    "stopped": " · BM25 alone (embedding stopped: F8 or index --refresh embeds the rest)",
    "damaged": " · BM25 alone (stored vectors damaged: F8 rebuilds)",
}


class Failure(GorillaError):
    """Something the session could not load; carries the user-facing message and hint."""


class IndexUnusable(Failure):
    """No index to answer from: none yet, or the live one could not be loaded (damaged, another
    version's). F8 mends it; the main screen clears this error once a rebuild succeeds."""


class Session:
    """State shared by the screens and the worker threads.

    backend / index: passed in (tests, a scripted backend) or loaded on demand by :meth:`load_backend`
    (services.load_backend: imports llama_cpp, resolves the model, loads the GGUF — seconds) and
    :meth:`load_index` (services.load_index). The index loads in a thread worker after the first paint;
    the model either there too or, started by :meth:`start_backend_load` before Textual is imported
    (`gorilla-tui tui`), in a thread of its own while the app starts (bench/latency.py --first-answer).
    Waiters block on :meth:`wait_backend` until the load ends (or their cancel event is set).
    """

    def __init__(
        self,
        settings: Settings,
        *,
        backend: Backend | None = None,
        index: ApiIndex | None = None,
        pipeline_factory: PipelineFactory | None = None,
        history: History | None = None,
    ) -> None:
        self.settings = settings
        self.backend = backend
        self.index = index
        self.injected_backend = backend is not None
        self.pipeline_factory = pipeline_factory or default_pipeline
        self.history = history or History()
        self.backend_error: GorillaError | None = None
        self.index_error: GorillaError | None = None  # why the live index could not be loaded (not missing)
        self.kernel_name = settings.kernel or "auto"
        self._backend_done = threading.Event()
        if backend is not None:
            self._backend_done.set()
        self._lock = threading.Lock()
        #: cleared while a first-launch build runs (asks wait for it), set otherwise
        self.index_settled = threading.Event()
        self.index_settled.set()
        self._pipeline: Pipeline | None = None
        self._validator: Checker | None = None
        self._backend_thread: threading.Thread | None = None
        self._load_serial = threading.Lock()  # one model load at a time: the last one started wins
        #: set by close() when the app quits: every request of a loaded backend gives up (the cancel
        #: event services.load_backend hands to RemoteBackend and to the model probe)
        self.closing = threading.Event()

    # -- labels for the status bar ------------------------------------------------------------------------

    @property
    def model_label(self) -> str:
        if self.backend is not None:
            return str(getattr(self.backend, "name", "") or type(self.backend).__name__)
        return self.settings.model or "gemma3-270m (embedded)"

    @property
    def index_label(self) -> str:
        if self.index is None:
            return "none"
        sources = list(getattr(self.index, "sources", []) or [])
        hub = f" hub={self.settings.hub}" if self.settings.hub else ""
        label = (
            f"{len(self.index.docs)} docs ({', '.join(sources)}){hub}"
            if sources
            else f"{len(self.index.docs)} docs"
        )
        if self.hub_problem() is not None:  # nothing is searched: no retrieval to describe
            return label + " · not a source"
        return label + self.retrieval_note()

    def hub_problem(self) -> GorillaError | None:
        """config.toml's `hub` naming no source of the loaded index (services.hub_problem: what `ask`
        refuses, `index --status` and doctor say), else None (also before the index loads). The status bar
        said "ready" and "· BM25" and the problem showed only after a task (break-it round 30)."""
        if self.index is None:
            return None
        from gorilla_tui import services  # deferred: numpy, scipy (~0.3 s) after the first paint

        return services.hub_problem(self.settings.hub, list(getattr(self.index, "sources", []) or []))

    def retrieval_note(self) -> str:
        """What the retriever really does, for the status bar (retrieve.dense.DenseSide.state): " · hybrid"
        (BM25 fused with dense vectors: the searched docs have vectors), " · BM25" (no doc of the searched
        pool has a vector: an index of python-env only, whose manifest says retrieval = "bm25", or a --hub
        without vectors), " · embedding n/m (BM25 until then)", " · BM25 alone (...)" with why it is
        (FAILED_NOTES: the embedder failed, the embedding was stopped, the vectors are damaged), or ""
        when the index has no dense side at all."""
        state_fn = getattr(self.index, "dense_state", None)
        if state_fn is None:
            return ""
        state = state_fn()
        if state["state"] == "ready":
            return " · hybrid" if self._embedded_docs(state) else " · BM25"
        if state["state"] == "building":
            return f" · embedding {state['done']}/{state['total']} (BM25 until then)"
        if state["state"] == "failed":
            return FAILED_NOTES.get(state.get("why", ""), FAILED_NOTES["embedder"])
        return " · BM25"

    def _embedded_docs(self, state: dict) -> int:
        """Docs with a dense vector in the pool searched (settings.hub, else the whole index): state["docs"],
        or counted from the dense side's mask when a hub is chosen."""
        hub = self.settings.hub
        mask = getattr(getattr(self.index, "dense", None), "mask", None)
        if not hub or mask is None:
            return int(state.get("docs", 1))
        docs = getattr(self.index, "docs", [])
        return sum(1 for d, has in zip(docs, mask, strict=False) if has and d.source == hub)

    # -- loading (call from thread workers) ---------------------------------------------------------------

    def load_index(self) -> ApiIndex:
        """Load the index from the user data dir. Raises IndexMissingError / GorillaError."""
        from gorilla_tui import services  # deferred: numpy, scipy (~0.3 s) after the first paint

        try:
            index = services.load_index()
        except IndexMissingError:
            raise
        except GorillaError as e:  # damaged, or another version's: kept for the proposal panel
            self.index_error = e
            raise
        self.set_index(index)
        return index

    def set_index(self, index: ApiIndex) -> None:
        """Use `index` from now on (drops the cached pipeline and validator)."""
        with self._lock:
            self.index = index
            self.index_error = None
            self._pipeline = None
            self._validator = None

    def load_backend(self) -> Backend:
        """Open the backend the settings ask for (slow: imports llama_cpp and loads the model).

        Raises GorillaError (model missing, bad GGUF, ...); the error is also kept in backend_error for
        waiters. Loads run one at a time (settings saved twice: the second load starts after the first).
        """
        with self._load_serial:
            return self._load_backend_now()

    def _load_backend_now(self) -> Backend:
        self._backend_done.clear()
        self.backend_error = None
        try:
            from gorilla_tui import services  # deferred: numpy, scipy (~0.3 s) after the first paint

            backend = services.load_backend(self.settings, cancel=self.closing)
            self.kernel_name = services.kernel_name(self.settings)
            with self._lock:  # before waiters wake: wait_backend must find the backend, never None
                self.backend = backend
                self._pipeline = None
        except GorillaError as e:
            self.backend_error = e
            raise
        except Exception as e:  # a broken install must not kill the app: report it
            self.backend_error = Failure(f"cannot load the model: {type(e).__name__}: {e}")
            raise self.backend_error from e
        finally:
            self._backend_done.set()
        return backend

    def close(self) -> None:
        """The app quits: set `closing`, so a backend request in flight (an endpoint that drips) and a
        model probe give up now instead of at their deadline; an injected backend with a `cancel` event
        of its own (RemoteBackend) has it set too."""
        self.closing.set()
        cancel = getattr(self.backend, "cancel", None)
        if isinstance(cancel, threading.Event):
            cancel.set()

    def start_backend_load(self) -> None:
        """Start :meth:`load_backend` in a daemon thread now, unless a backend is there or already loading.

        Called by `gorilla-tui tui` before Textual is imported: most of a model load is llama.cpp's C code
        (the GIL released), so it overlaps the import, the first paint and the index load instead of
        starting after them. Errors are kept in backend_error for :meth:`wait_backend` and the app."""
        if self.backend is not None or self.backend_loading:
            return
        self._backend_done.clear()  # waiters block from now on, not only once the thread runs

        def load() -> None:
            try:
                self.load_backend()
            except Exception:  # kept in backend_error by load_backend; reported by the app
                pass

        self._backend_thread = threading.Thread(target=load, name="gorilla-tui model load", daemon=True)
        self._backend_thread.start()

    @property
    def backend_loading(self) -> bool:
        """True while a load started by :meth:`start_backend_load` runs."""
        return self._backend_thread is not None and self._backend_thread.is_alive()

    def join_backend_load(self) -> None:
        """Wait for the load :meth:`start_backend_load` started (returns at once when none runs); then
        backend or backend_error tells how it went."""
        if self._backend_thread is not None:
            self._backend_thread.join()

    def unload_backend(self) -> None:
        """Forget the backend (call before :meth:`load_backend` when settings changed); asks then wait
        for the new load. Waits first for a load :meth:`start_backend_load` started (it would otherwise set
        the old settings' backend after this)."""
        self.join_backend_load()
        with self._lock:
            self._backend_done.clear()
            self.backend = None
            self.backend_error = None
            self._pipeline = None

    def wait_backend(self, cancel: threading.Event, poll: float = 0.05) -> Backend | None:
        """Block until the backend is loaded; returns it, or None when `cancel` was set first.
        Raises the load's GorillaError when loading failed."""
        while not self._backend_done.wait(poll):
            if cancel.is_set():
                return None
        if self.backend_error is not None:
            raise self.backend_error
        if self.backend is None:
            raise Failure("no model is loaded", hint="open Settings (ctrl+o) and choose a model")
        return self.backend

    def wait_index(self, cancel: threading.Event, poll: float = 0.05) -> bool:
        """Block while a first-launch build runs (index_settled cleared); False when `cancel` is set first."""
        while not self.index_settled.wait(poll):
            if cancel.is_set():
                return False
        return True

    def pipeline(self) -> Pipeline:
        """The pipeline over the current settings, index and backend (built once, rebuilt after changes)."""
        with self._lock:
            if self.index is None and self.index_error is not None:
                raise IndexUnusable(
                    str(self.index_error),
                    hint=self.index_error.hint
                    or "press F8 to rebuild it, or run: gorilla-tui index --refresh",
                )
            if self.index is None:
                raise IndexUnusable("no index yet", hint="press F8 to build it from the configured sources")
            if self._pipeline is None:
                args = (self.settings, self.index, self.backend)
                if self.pipeline_factory is default_pipeline:  # reuse the checker warm_up got ready
                    if self._validator is None:
                        from gorilla_tui import services  # deferred: numpy, scipy, after the first paint

                        self._validator = services.build_checker(self.index, self.settings.hub)
                    self._pipeline = default_pipeline(*args, self._validator)
                else:
                    self._pipeline = self.pipeline_factory(*args)
            return self._pipeline

    def search(self, task: str) -> list[Hit]:
        """The hits of `task` without the model, as the pipeline retrieves them (Pipeline.retrieve: the task
        cleaned, settings.k and settings.hub, constraints stated in the task first): an ask whose model
        could not be loaded still shows them. [] while there is no index."""
        with self._lock:
            index, settings = self.index, self.settings
        if index is None:
            return []
        task, _warnings = clean_task(task)
        return list(search_with_constraints(index, task, k=settings.k, hub=settings.hub or None).hits)

    def warm_up(self) -> None:
        """Get the checker ready now (call from a thread worker once the index is loaded), so the first
        answer does not pay for it: services.build_checker reads only the lookup saved with the index (a
        few ms); an index without one (built in memory) gets the Validator over the whole pool here,
        tree-sitter over every pool api_call, ~0.5 s for 10k docs on an idle core (bench/latency.py).
        Errors are left for the ask to report."""
        try:
            checker = self.validator()
            ready = getattr(checker, "validator_for", None)
            if ready is not None:
                ready("")  # reads the lookup's summaries; builds the whole-pool Validator if it is missing
        except GorillaError:
            pass

    def update_settings(self, settings: Settings) -> bool:
        """Use new settings; returns True when the model must be reloaded (model, kernel, endpoint or
        llama.cpp parameters changed and the backend was not injected)."""
        old = self.settings
        with self._lock:
            self.settings = settings
            self._pipeline = None
            if settings.hub != old.hub:
                self._validator = None
        keys = ("model", "kernel", "endpoint", "n_ctx", "n_threads", "n_gpu_layers", "use_extra_bufts")
        return not self.injected_backend and any(getattr(old, k) != getattr(settings, k) for k in keys)

    # -- did-you-mean -------------------------------------------------------------------------------------

    def validator(self) -> Checker:
        """The checker over the API pool (hub filter applied; services.build_checker: the index's lookup, or
        a check.validator.Validator over the pool), built once per pool."""
        with self._lock:
            if self._validator is None and self._pipeline is not None:
                self._validator = getattr(self._pipeline, "validator", None)  # reuse the pipeline's pool
            if self._validator is None:
                if self.index is None:
                    raise Failure("no index yet")
                from gorilla_tui import services  # deferred: numpy, scipy (~0.3 s) after the first paint

                self._validator = services.build_checker(self.index, self.settings.hub)
            return self._validator

    def accept_suggestion(self, proposal: Proposal, suggestion: str) -> Proposal:
        """The proposal with did-you-mean `suggestion` put in place of its call, re-validated.

        A suggestion with "(" is a whole api_call and replaces the call; otherwise it is a callee and replaces
        the call's callee (the text before its first "("). The code gets the same replacement (or becomes the
        new call when the old call is not in it). Returns a new Proposal; the verdict comes from the
        validator. A new callee keeps the filled arguments (Proposal.arguments, with Proposal.calls under the
        new name); a whole new call has none (its values came from the pool, not the task), and its calls
        are decoded from its text (fill/render.py decoded_calls).
        """
        old_call = effective_call(proposal)
        if "(" in suggestion or "(" not in old_call:
            new_call = suggestion
            # the filled arguments were the old call's: the new one's values came from no task
            arguments, calls = [], decoded_calls(new_call)
        else:
            new_call = suggestion + old_call[old_call.index("(") :]
            old_callee = old_call[: old_call.index("(")].strip()
            arguments = list(proposal.arguments)  # the same values, given to the new callee
            calls = [
                {suggestion.strip() if k == old_callee else k: v for k, v in c.items()}
                for c in proposal.calls
            ]
        code = (
            proposal.code.replace(old_call, new_call) if old_call and old_call in proposal.code else new_call
        )
        verdict: Verdict = self.validator().check(code)
        return replace(proposal, api_call=new_call, code=code, verdict=verdict, code_source="did-you-mean",
                       arguments=arguments, calls=calls)  # fmt: skip
