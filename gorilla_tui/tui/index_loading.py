"""The app's index loading: the live index read in a thread worker, a first launch built without a dialog,
an index of an older version rebuilt from its sources, and a new index's docs embedded in the background
while BM25 already answers (IndexLoadingMixin, mixed into GorillaApp; tui/app.py handles LoadState)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import work

from gorilla_tui.errors import GorillaError, IndexMissingError, IndexOutdatedError
from gorilla_tui.model.choice import check_choice_settings
from gorilla_tui.tui.messages import LoadState
from gorilla_tui.tui.widgets.status_bar import StatusBar

if TYPE_CHECKING:
    from gorilla_tui.build.first_launch import FirstLaunch
    from gorilla_tui.tui.screens.main import MainScreen
    from gorilla_tui.tui.session import Session


class IndexLoadingMixin:
    """GorillaApp's index workers (it uses App.post_message, call_from_thread and the thread workers, and
    GorillaApp's session, status, notice and main)."""

    session: Session
    first_launch: FirstLaunch | None
    last_notice: str
    main: MainScreen
    post_message: Any
    call_from_thread: Any
    status: Any
    notice: Any

    @work(thread=True, exclusive=True, group="load-index", exit_on_error=False)
    def _load_index(self) -> None:
        try:
            self.session.load_index()
        except IndexMissingError as e:
            self.post_message(LoadState("index", "missing", str(e), e.hint or ""))
            return
        except IndexOutdatedError as e:
            self.post_message(LoadState("index", "outdated", str(e), e.hint or ""))
            return
        except GorillaError as e:
            self.post_message(LoadState("index", "error", str(e), e.hint or ""))
            return
        except Exception as e:
            self.post_message(LoadState("index", "error", f"{type(e).__name__}: {e}"))
            return
        self.post_message(LoadState("index", "ready"))
        self.session.warm_up()  # the validator, so the first answer does not build it

    @work(thread=True, exclusive=True, group="load-index", exit_on_error=False)
    def _first_launch(self) -> None:
        """No index yet: build what can be built now (build.first_launch.build_first_index), no dialog."""

        def on_event(kind: str, name: str, load) -> None:
            if kind == "start":
                self.call_from_thread(self.status, index=f"building ({name})…")
            elif kind == "stage":  # "building the BM25 index: 8,841 docs" (build.refresh ProgressFn)
                self.call_from_thread(self.status, index=f"{name}…")

        from gorilla_tui.build.first_launch import build_first_index  # deferred: only a first launch needs it

        try:
            result = build_first_index(self.session.settings, on_event, check_choice_settings)
            if result is None:  # another process built one meanwhile
                self.session.load_index()
                self.post_message(LoadState("index", "ready"))
                return
            self.session.set_index(result.index)
            self.first_launch = result
        except GorillaError as e:
            self.post_message(LoadState("index", "error", str(e), e.hint or ""))
            return
        except Exception as e:  # a failed build must not kill the app
            self.post_message(LoadState("index", "error", f"{type(e).__name__}: {e}"))
            return
        finally:
            self.session.index_settled.set()
        self.post_message(LoadState("index", "built", result.message))
        self.session.warm_up()

    @work(thread=True, exclusive=True, group="load-index", exit_on_error=False)
    def _rebuild_outdated(self) -> None:
        """The index was built by an older version: rebuild it as `gorilla-tui index --refresh` does (the
        sources it was built from, read again; build.refresh), then answer from it."""
        from gorilla_tui.build.refresh import refresh  # deferred: only after an upgrade

        try:
            report = refresh(
                config_paths=[p for p in self.session.settings.source_specs() if not p.startswith("python:")],
                check_manifest=check_choice_settings,  # the model's manifest keys (build.refresh)
            )
            self.session.set_index(report.index)
        except Exception as e:  # a failed rebuild must not kill the app
            detail = str(e) if isinstance(e, GorillaError) else f"{type(e).__name__}: {e}"
            self.post_message(LoadState("index", "error", f"rebuilding the index failed: {detail}"))
            return
        finally:
            self.session.index_settled.set()
        self.post_message(LoadState("index", "built", "rebuilt the index: an older version had built it"))
        self.session.warm_up()

    def _show_first_launch(self) -> None:
        """The first-launch summary: one short notice, and (while nothing was asked yet) its lines in the
        proposal panel: what was built, why remote sources were not fetched, how to add each missing one."""
        result = self.first_launch
        if result is None:
            return
        lines = result.lines()
        missing = f"; {len(result.missing)} sources not built yet (see the panel)" if result.missing else ""
        self.notice(lines[0].rstrip(".") + missing, timeout=8)
        self.last_notice = result.message
        main = self.main
        if main.proposal is None and not main.running:
            main.query_one("#proposal").show_message(
                lines[0] + "\nType a task above and press Enter.", hint="\n".join(lines[1:])
            )

    def _poll_dense(self) -> None:
        """Refresh the status bar's index field while another process (`index --refresh`) embeds the docs
        of the loaded index ("embedding n/m", then "hybrid")."""
        index = self.session.index
        if index is not None and getattr(index, "dense", None) is not None:
            label = self.session.index_label
            bars = self.main.query(StatusBar)  # none while the app closes (App.status)
            if bars and bars.first().fields.get("index") != label:
                self.status(index=label)

    def _index_built(self, index: Any) -> None:
        """F8's build ended: answer from `index` (None: nothing was built), and clear the proposal panel's
        stale "no usable index" error, if the last ask left one (MainScreen.index_ready)."""
        if index is not None:
            self.session.set_index(index)
            self.status(index=self.session.index_label)
            self.main.index_ready(
                f"The index is ready: {len(index.docs)} docs.\nType a task above and press Enter."
            )
            self._embed_new_index(index)

    def _embed_new_index(self, index: Any) -> None:
        """Start embedding a newly built index's docs in the background (unless GORILLA_TUI_DENSE=0 or it
        already has vectors): one without vectors, or one whose embedding was stopped (Ctrl+C in `index
        --refresh`: F8 keeps such an unchanged index, and the vectors cached so far are not embedded
        again)."""
        from gorilla_tui.retrieve.embed import dense_enabled  # deferred: numpy, only after a build

        if index is not None and index.path is not None and dense_enabled():
            state = index.dense_state()
            if state["state"] == "off" or state.get("why") == "stopped":
                self._embed_index(index)

    @work(thread=True, exclusive=True, group="embed-index", exit_on_error=False)
    def _embed_index(self, index: Any) -> None:
        """Embed the new index's docs (build.refresh.embed_index) while it already answers with BM25;
        the status bar shows "embedding n/m" and then "hybrid". Stops between batches when the app quits."""
        from textual.worker import get_current_worker  # deferred with embed_index: only a fresh build embeds

        from gorilla_tui.build.refresh import embed_index  # deferred: numpy, scipy (first paint)

        worker = get_current_worker()

        def progress(done: int, total: int) -> None:
            self.call_from_thread(self.status, index=self.session.index_label)

        why = ""
        try:
            embed_index(index, on_embed=progress, stop=lambda: worker.is_cancelled)
        except GorillaError as e:
            why = str(e)
        except Exception as e:  # never let the embedder crash the app: BM25 keeps answering
            why = f"{type(e).__name__}: {e}"
        if why and not worker.is_cancelled:
            message = f"dense retrieval off, BM25 alone: {why}"
            self.call_from_thread(self.notice, message, severity="warning")
        if not worker.is_cancelled:
            self.call_from_thread(self.status, index=self.session.index_label)
