"""SVG snapshots (pytest-textual-snapshot) of the main states: empty, answered-valid, hallucination, error.

Deterministic: fixed size, ScriptedBackend, the real Torch Hub pool, show_timings=False (no durations),
no dates on the main screen. Update with `pytest tests/tui/test_snapshots.py --snapshot-update`.
"""

from __future__ import annotations

from tests.tui.conftest import HALLUCINATED_CALL, VALID_CALL, VIDEO_TASK, ask

SIZE = (120, 36)


def _asking(task: str):
    async def run_before(pilot) -> None:
        await pilot.pause()
        await ask(pilot, task)
        pilot.app.main.query_one("#task").blur()  # no blinking cursor in the picture
        await pilot.pause()

    return run_before


def test_empty(snap_compare, make_app):
    app = make_app([" " + VALID_CALL])

    async def settle(pilot) -> None:
        await pilot.pause()
        pilot.app.main.query_one("#task").blur()

    assert snap_compare(app, terminal_size=SIZE, run_before=settle)


def test_answered_valid(snap_compare, make_app):
    assert snap_compare(make_app([" " + VALID_CALL]), terminal_size=SIZE, run_before=_asking(VIDEO_TASK))


def test_hallucination(snap_compare, make_app):
    assert snap_compare(
        make_app([" " + HALLUCINATED_CALL]), terminal_size=SIZE, run_before=_asking(VIDEO_TASK)
    )


def test_error(snap_compare, make_app):
    app = make_app([" " + VALID_CALL], n_ctx=64)  # the prompt does not fit: a backend error in the panel
    assert snap_compare(app, terminal_size=SIZE, run_before=_asking(VIDEO_TASK))
