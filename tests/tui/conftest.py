"""Fixtures of the TUI tests: the Torch Hub docs of the small pool (tests/data/pool) as an index, and an app
factory that goes through create_app with the real Pipeline and a ScriptedBackend.

tests/apibench/conftest.py imports the same factory; there `torchhub_index` is the real Torch Hub pool of
APIBench (tests/fixtures_model.py)."""

from __future__ import annotations

import io
import sys
import time
import traceback
from collections.abc import Callable

import pytest
from rich.console import Console

from gorilla_tui.config import Settings
from gorilla_tui.model.scripted import ScriptedBackend
from gorilla_tui.pool.doc import ApiDoc, load_jsonl
from gorilla_tui.retrieve.index import ApiIndex
from gorilla_tui.tui.app import GorillaApp, create_app
from tests.conftest import SMALL_POOL

#: A task whose BM25 hits on Torch Hub are the PyTorchVideo models, and the valid call the script answers.
VIDEO_TASK = "classify the actions in short video clips"
VALID_CALL = (
    "torch.hub.load(repo_or_dir='facebookresearch/pytorchvideo', model='slowfast_r50', pretrained=True)"
)
#: A callee that is not in the pool (did-you-mean: torch.hub.load).
HALLUCINATED_CALL = (
    "torch.hub.lod(repo_or_dir='facebookresearch/pytorchvideo', model='slowfast_r50', pretrained=True)"
)
#: A known callee with an unknown identifying argument (did-you-mean: real models of the repo).
WRONG_ARGS_CALL = (
    "torch.hub.load(repo_or_dir='facebookresearch/pytorchvideo', model='slowfast_r5000', pretrained=True)"
)


@pytest.fixture(scope="session")
def torchhub_docs() -> list[ApiDoc]:
    """The Torch Hub docs of the small pool (8: PyTorchVideo, torchvision, MEAL V2, YOLOv5, Silero, and
    one NVIDIA entry whose api_call does not parse)."""
    return load_jsonl(SMALL_POOL / "torchhub_api.jsonl", "torchhub").docs


@pytest.fixture(scope="session")
def torchhub_index(torchhub_docs: list[ApiDoc]) -> ApiIndex:
    """A BM25 index over the Torch Hub pool, built in memory."""
    return ApiIndex.build(torchhub_docs)


@pytest.fixture
def make_app(torchhub_index: ApiIndex) -> Callable[..., GorillaApp]:
    """make_app(texts, delay=0.0, **settings) -> GorillaApp over the Torch Hub index, whose ScriptedBackend
    streams `texts` (one per ask) in generate mode; the backend is app.session.backend."""

    def factory(texts: list[str], delay: float = 0.0, n_ctx: int = 4096, **settings) -> GorillaApp:
        settings.setdefault("mode", "generate")
        backend = ScriptedBackend(texts, delay=delay, n_ctx=n_ctx)
        return create_app(Settings(**settings), backend=backend, index=torchhub_index, show_timings=False)

    return factory


#: The default bound of wait_for and ask, in seconds: generous, so that a 2-core CI machine saturated by
#: other jobs does not fail a test whose condition only comes late (a bound, not a pause: the wait ends
#: as soon as the condition holds).
WAIT_SECONDS = 30.0


async def wait_for(pilot, predicate: Callable[[], bool], timeout: float = WAIT_SECONDS) -> None:
    """Let the app run until predicate() is true; fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout} s")
        await pilot.pause(0.02)


async def ask(pilot, task: str, timeout: float = WAIT_SECONDS, type_it: bool = False) -> None:
    """Put `task` in the task input (typed key by key when type_it), press Enter and wait until the answer
    is over (done, error or cancelled)."""
    app = pilot.app
    before = app.main.finished
    task_input = app.main.query_one("#task")
    task_input.value = "" if type_it else task
    task_input.focus()
    if type_it:
        await pilot.press(*task)
    await pilot.press("enter")
    await wait_for(pilot, lambda: app.main.finished > before, timeout)
    await pilot.pause()


def running_in_a_thread(*functions: str) -> bool:
    """True while some thread executes a function of one of these names (anywhere on its stack): a thread
    worker that was cancelled keeps running, and Textual no longer tracks it (its Worker is CANCELLED at
    once), so this is how a test knows it is over."""
    names = set(functions)
    for top in sys._current_frames().values():
        if any(frame.f_code.co_name in names for frame, _ in traceback.walk_stack(top)):
            return True
    return False


async def wait_for_threads(pilot, *functions: str, timeout: float = WAIT_SECONDS) -> None:
    """Wait until no thread runs any of `functions` (running_in_a_thread), then until the app and its
    screen have handled what those threads posted: two pauses, since a message posted from a thread is
    queued one loop step later (call_soon_threadsafe) than Pilot.pause's own marker."""
    await wait_for(pilot, lambda: not running_in_a_thread(*functions), timeout)
    await pilot.pause()
    await pilot.pause()


async def wait_first_launch(pilot, timeout: float = 120) -> None:
    """Wait until the first launch's build is over and its "built" state is shown: `app.first_launch` is set
    in the build's thread worker before the LoadState it posts is handled (the status bar still shows the
    build's last stage then), so wait for that thread to end and its messages to be handled too."""
    await wait_for(pilot, lambda: pilot.app.first_launch is not None, timeout)
    await wait_for_threads(pilot, "_first_launch", timeout=timeout)


def screen_text(app) -> str:
    """The text of what the terminal shows now (the screen and the screens below a modal), as
    App.export_screenshot renders it, without the SVG markup."""
    width, height = app.size
    console = Console(
        width=width, height=height, file=io.StringIO(), force_terminal=True, record=True, safe_box=False
    )
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))
    return console.export_text()
