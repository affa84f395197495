"""Pilot tests of settings, index setup, model loading states, the sandbox run and the first paint."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest
from textual.widgets import Input, Log, Select

from gorilla_tui.config import Settings, load_settings
from gorilla_tui.history import History
from gorilla_tui.paths import get_paths
from gorilla_tui.tui.app import create_app
from gorilla_tui.tui.screens.confirm import ConfirmScreen
from gorilla_tui.tui.screens.index_setup import IndexSetupScreen
from gorilla_tui.tui.screens.run import RunScreen
from gorilla_tui.tui.screens.settings import SettingsScreen
from tests.conftest import SMALL_POOL
from tests.tui.conftest import (
    HALLUCINATED_CALL,
    VALID_CALL,
    VIDEO_TASK,
    ask,
    screen_text,
    wait_first_launch,
    wait_for,
)

SIZE = (120, 36)


async def test_settings_are_saved_and_used(make_app, torchhub_index):
    app = make_app([" " + VALID_CALL])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+o")
        screen = app.screen
        assert isinstance(screen, SettingsScreen)
        assert screen.query_one("#set-select-by", Select).value == "likelihood"  # the current setting
        screen.query_one("#set-k", Input).value = "2"
        screen.query_one("#set-hub", Select).value = "torchhub"
        screen.query_one("#set-mode", Select).value = "select"
        screen.query_one("#set-select-by", Select).value = "grammar"
        screen.query_one("#set-kernel", Select).value = "cpu"
        await pilot.press("ctrl+s")
        assert app.screen is app.main
        saved = load_settings()
        assert (saved.k, saved.hub, saved.mode, saved.kernel) == (2, "torchhub", "select", "cpu")
        assert saved.select_by == "grammar" and 'select_by = "grammar"' in get_paths().config_file.read_text()
        assert app.session.settings == saved
        await ask(pilot, VIDEO_TASK)
        assert len(app.main.query_one("#hits").hits) == 2
        assert app.main.proposal.mode == "select"


async def test_settings_show_and_keep_select_by(make_app):
    """The select-by choice opens on the current setting; the dialog (now one field larger) still fits
    120x36 with Save visible; saving without touching it keeps it."""
    config = get_paths().config_file  # the session's settings are those of the file (no CLI override)
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('select_by = "grammar"\n')
    app = make_app([" " + VALID_CALL], select_by="grammar")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+o")
        screen = app.screen
        dialog, save = screen.query_one("#dialog"), screen.query_one("#save")
        assert screen.query_one("#set-select-by", Select).value == "grammar"
        assert dialog.content_region.contains_region(save.region)
        screen.query_one("#set-k", Input).value = "3"
        await pilot.press("ctrl+s")
        assert app.screen is app.main
    saved = load_settings()
    assert (saved.select_by, saved.k) == ("grammar", 3)


async def test_settings_scroll_to_save_in_a_small_terminal(make_app):
    """At 80x24 the dialog is taller than the screen: it scrolls, and tabbing to Save brings Save into
    view (it was cut off, reachable only by Ctrl+S)."""
    app = make_app([" " + VALID_CALL])
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+o")
        screen = app.screen
        dialog, save = screen.query_one("#dialog"), screen.query_one("#save")
        assert not dialog.content_region.contains_region(save.region)  # below the fold at first
        while screen.focused is not save:
            await pilot.press("tab")
        await pilot.wait_for_scheduled_animations()  # the focus scrolls the dialog (animated)
        assert dialog.content_region.contains_region(save.region)
        await pilot.press("enter")
        assert app.screen is app.main


async def test_settings_reject_bad_values_and_keep_the_file(make_app):
    app = make_app([" " + VALID_CALL])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+o")
        app.screen.query_one("#set-k", Input).value = "99"
        await pilot.press("ctrl+s")
        assert isinstance(app.screen, SettingsScreen)  # still open, the error shown
        assert "k must be between 1 and 50" in str(app.screen.query_one("#settings-error").render())
        await pilot.press("escape")
    assert load_settings() == Settings()


@pytest.mark.slow  # a first launch: the whole standard library
async def test_first_launch_offline_builds_at_once_without_a_dialog(gorilla_home):
    """No index, no network (HF_HUB_OFFLINE=1), no mirror: the standard-library pool is built with no
    question asked, the status bar shows it, and each missing source gets one line saying how to add it
    (a user-writable place, never a file inside the package)."""
    from gorilla_tui.model.scripted import ScriptedBackend

    app = create_app(Settings(), backend=ScriptedBackend([" x"]), show_timings=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_first_launch(pilot)
        assert app.screen is app.main  # no dialog
        status = app.main.query_one("#status").fields["index"]
        assert status.startswith(f"{len(app.session.index.docs)} docs (python-env)")
        assert len(app.session.index.docs) > 1000
        lines = app.first_launch.lines()
        assert lines[0].startswith(f"Built the API pool: python-env: {len(app.session.index.docs)} APIs in ")
        assert lines[1] == "No network: offline (HF_HUB_OFFLINE=1); only local sources were built."
        assert sum("network" in line.lower() for line in lines) == 1  # the network cause is said once
        missing = {name: line for name, line in app.first_launch.missing}
        assert set(missing) == {"torchhub", "tensorflowhub", "huggingface", "apizoo"}
        for line in missing.values():  # the person's own folder, never a file inside the package
            assert "DIR" in line and "index/" not in line and "_data" not in line and ".toml" not in line
        assert "--source apizoo=DIR" in missing["apizoo"] and "--from DIR" not in missing["apizoo"]
        assert "--from DIR with DIR a local copy of that dataset's files" in missing["torchhub"]
        assert lines[2] == "Not built yet: huggingface, tensorflowhub, torchhub, apizoo."
        assert lines[3].startswith(
            "huggingface, tensorflowhub, torchhub: to add them: "
        )  # one fix, said once
        shown = str(app.main.query_one("#proposal").query_one("#stream").render())
        assert "Built the API pool" in shown and "apizoo: to add it: " in shown
        await ask(pilot, "parse a JSON string into a dict")  # retrieves from the new pool at once
        hits = app.main.proposal.hits
        assert hits and {h.doc.source for h in hits} == {"python-env"}
        assert hits[0].doc.api_name.startswith("json.")


async def test_f8_with_an_unusable_folder_shows_the_error(torchhub_index, tmp_path):
    from gorilla_tui.model.scripted import ScriptedBackend

    app = create_app(Settings(), backend=ScriptedBackend([" x"]), index=torchhub_index, show_timings=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f8")
        await wait_for(pilot, lambda: isinstance(app.screen, IndexSetupScreen) and app.screen.is_mounted)
        await pilot.pause()
        assert "torchhub" in str(app.screen.query_one("#index-sources").render())
        app.screen.query_one("#index-from", Input).value = str(tmp_path / "no-such-folder")
        await pilot.press("ctrl+b")
        await wait_for(pilot, lambda: not app.screen.building, timeout=30)
        assert "could not be built" in str(app.screen.query_one("#index-reason").render())
        assert "error:" in "\n".join(app.screen.query_one(Log).lines)
        await pilot.press("escape")
        assert app.session.index is torchhub_index and app.screen is app.main


@pytest.mark.slow  # builds python-env: the whole standard library
async def test_f8_with_an_empty_folder_reads_the_configured_mirrors(torchhub_index):
    """Break-it pass 10: F8 with the folder left empty fetched every source from the hub, ignoring
    config.toml's `mirrors` that the first launch and `index --refresh` read; offline each hub was
    "unreachable". It now builds from the mirrors, and the dialog says so."""
    from gorilla_tui.model.scripted import ScriptedBackend

    settings = Settings(mirrors=[str(SMALL_POOL)])
    app = create_app(settings, backend=ScriptedBackend([" x"]), index=torchhub_index, show_timings=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f8")
        await wait_for(pilot, lambda: isinstance(app.screen, IndexSetupScreen) and app.screen.is_mounted)
        await pilot.pause()
        assert (
            f"empty: config.toml's mirrors ({SMALL_POOL})"
            in app.screen.query_one("#index-from", Input).placeholder
        )
        dialog, log = app.screen, app.screen.query_one(Log)
        await pilot.press("ctrl+b")
        await wait_for(pilot, lambda: not dialog.building, timeout=120)
        assert "unreachable" not in "\n".join(log.lines), log.lines
        assert not any(line.startswith("error:") for line in log.lines), log.lines
        await wait_for(pilot, lambda: app.session.index is not torchhub_index)
        assert {"torchhub", "tensorflowhub", "huggingface", "apizoo"} <= set(app.session.index.sources)


async def test_missing_model_says_how_to_get_one(torchhub_index, tmp_path):
    missing = tmp_path / "nothing-here.gguf"
    app = create_app(Settings(model=str(missing)), index=torchhub_index, show_timings=False)
    async with app.run_test(size=SIZE) as pilot:
        status = app.main.query_one("#status")
        await wait_for(pilot, lambda: status.state_kind == "error")
        assert status.fields["state"] == "model not loaded"
        shown = str(app.main.query_one("#proposal").query_one("#stream").render())
        assert "could not be loaded" in shown and str(missing.name) in shown
        await ask(pilot, VIDEO_TASK)  # asking still works: the panel says why there is no answer
        assert app.main.query_one("#proposal").border_subtitle == "error"


async def test_a_truncated_gguf_shows_the_hint_doctor_gives(torchhub_index, gemma_path, tmp_path):
    """Break-it finding: a GGUF cut short (llama.cpp refuses it; check_gguf first) gave the TUI's error line
    no hint; it now shows the fix `doctor` and `ask` give (model.registry.model_file_fix)."""
    cut = tmp_path / "cut.gguf"
    with gemma_path.open("rb") as f:
        cut.write_bytes(f.read(5_000_000))
    app = create_app(Settings(model=str(cut)), index=torchhub_index, show_timings=False)
    async with app.run_test(size=(160, 36)) as pilot:
        status = app.main.query_one("#status")
        await wait_for(pilot, lambda: status.state_kind == "error", timeout=60)
        shown = " ".join(str(app.main.query_one("#proposal").query_one("#stream").render()).split())
        assert "could not be loaded" in shown and "is a truncated GGUF file (5.0 MB" in shown  # check_gguf
        assert "gorilla-tui model list # llama.cpp refuses this file: set model = NAME in config" in shown


async def test_run_streams_output_into_the_log_and_is_recorded(make_app):
    code = "print('hello from the sandbox')"
    app = make_app([" " + VALID_CALL])
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, VIDEO_TASK)
        app.main.proposal = replace(app.main.proposal, code=code)  # runs without torch installed
        await pilot.press("f5")
        assert isinstance(app.screen, ConfirmScreen) and app.screen.code == code
        assert "pytorchvideo" in app.screen.detail  # the matched doc's env requirements
        assert "no network" in app.screen.detail  # namespaces are available here (root, Linux)
        await pilot.press("y")  # valid: one confirmation
        assert isinstance(app.screen, RunScreen)
        await wait_for(pilot, lambda: app.screen.finished, timeout=60)
        assert "hello from the sandbox" in "\n".join(app.screen.query_one(Log).lines)
        assert app.screen.result.exit_status == 0
        await pilot.press("escape")
        assert app.screen is app.main
    task_id = History().search()[0].id
    runs = History().runs(task_id)
    assert len(runs) == 1 and runs[0]["exit_code"] == 0 and "hello from the sandbox" in runs[0]["output"]
    assert runs[0]["duration_s"] > 0 and runs[0]["truncated"] == 0


async def test_run_without_the_package_gives_the_pip_line_isolation_exit_and_time(make_app):
    """F5 on a Torch Hub proposal whose example code imports torch (not installed here): the run screen
    says what the CLI `run` says: exit status, time, isolation in force, the missing package and the
    `pip install` line made from the matched doc's env requirements."""
    app = make_app([" " + VALID_CALL])
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, VIDEO_TASK)
        doc = app.main.proposal.verdict.matched
        assert "import torch" in doc.example_code
        app.main.proposal = replace(app.main.proposal, code=doc.example_code)
        await pilot.press("f5", "y")
        assert isinstance(app.screen, RunScreen)
        await wait_for(pilot, lambda: app.screen.finished, timeout=60)
        assert "No module named 'torch'" in "\n".join(app.screen.query_one(Log).lines)
        report = str(app.screen.query_one("#run-state").render())
        assert report.startswith("exit 1; ") and " s" in report.splitlines()[0]
        assert "network: isolated (empty network namespace)" in report
        assert "missing package: torch; to install it yourself: pip install torch" in report
        assert "pytorchvideo" in report.split("pip install")[1]  # from the doc's env requirements
        await pilot.press("escape")
        assert app.screen is app.main


async def test_run_of_a_proposal_that_is_not_valid_asks_twice_and_stop_works(make_app):
    app = make_app([" " + HALLUCINATED_CALL])
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, VIDEO_TASK)
        app.main.proposal = replace(
            app.main.proposal, code="import time\nprint('start', flush=True)\ntime.sleep(30)"
        )
        await pilot.press("f5", "y")
        assert isinstance(app.screen, ConfirmScreen) and "hallucination" in app.screen.question
        await pilot.press("n")
        assert app.screen is app.main  # declined: nothing ran
        await pilot.press("f5", "y", "y")
        assert isinstance(app.screen, RunScreen)
        await wait_for(pilot, lambda: "start" in app.screen.query_one(Log).lines, timeout=30)
        await pilot.press("s")
        await wait_for(pilot, lambda: app.screen.finished)
        assert app.screen.result.stopped


async def test_without_namespaces_the_run_asks_network_open_files_writable(make_app, tmp_path, monkeypatch):
    # issue 16, finding 5: no isolation, no run, unless the person says yes to exactly these words;
    # finding 4: escape sequences in the code under review and in the output are shown, not interpreted
    from gorilla_tui.sandbox.runner import probe_isolation
    from gorilla_tui.tui.run import UNISOLATED_QUESTION

    (tmp_path / "bin").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))  # no unshare(1) on PATH: namespaces refused
    probe_isolation.cache_clear()  # probed again here, and again after the test
    marker = tmp_path / "ran.txt"
    code = f"open({str(marker)!r}, 'w')  # \x1b[8m\nprint('\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J')"
    app = make_app([" " + VALID_CALL])
    try:
        async with app.run_test(size=SIZE) as pilot:
            await ask(pilot, VIDEO_TASK)
            app.main.proposal = replace(app.main.proposal, code=code)
            await pilot.press("f5")
            assert (
                "NOT isolated here" in app.screen.detail
                and "network open, files writable" in app.screen.detail
            )
            screenshot = app.export_screenshot()  # the code under review, as drawn
            assert "\x1b" not in screenshot and "x1b[8m" in screenshot
            await pilot.press("y")
            assert isinstance(app.screen, ConfirmScreen) and app.screen.question == UNISOLATED_QUESTION
            assert "network open, files writable" in UNISOLATED_QUESTION and "unshare" in app.screen.detail
            await pilot.press("n")
            assert app.screen is app.main and not marker.exists()  # declined: nothing ran
            await pilot.press("f5", "y", "y")
            assert isinstance(app.screen, RunScreen)
            await wait_for(pilot, lambda: app.screen.finished, timeout=60)
            lines = app.screen.query_one(Log).lines
            assert app.screen.result.network == "open" and marker.exists()
            assert lines == ["\\x1b]52;c;cm0gLXJmIH4=\\x07\\x1b[2J"]  # visible, never interpreted
    finally:
        probe_isolation.cache_clear()


def test_first_paint_does_not_import_llama_cpp(tmp_path: Path):
    """In a fresh interpreter: the screen is up (status bar painted) before llama_cpp is imported."""
    script = textwrap.dedent(
        """
        import asyncio, sys, time
        from gorilla_tui.config import Settings
        from gorilla_tui.tui.app import GorillaApp, create_app

        seen = {}
        original = GorillaApp._start_loading

        def start_loading(self):
            seen["llama_cpp_before_load"] = "llama_cpp" in sys.modules
            seen["status"] = dict(self.main.query_one("#status").fields)
            original(self)

        GorillaApp._start_loading = start_loading

        async def main():
            app = create_app(Settings(model=sys.argv[1]))
            async with app.run_test(size=(100, 30)) as pilot:
                deadline = time.monotonic() + 30  # a fixed pause(0.2) was short of it on a busy machine
                while "status" not in seen and time.monotonic() < deadline:
                    await pilot.pause(0.02)
            print(seen["llama_cpp_before_load"], seen["status"]["state"])

        asyncio.run(main())
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "absent.gguf")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "False loading model…"


async def test_a_model_load_started_before_the_app_is_picked_up(torchhub_index, tmp_path):
    """`gorilla-tui tui` starts the model load before Textual is imported (Session.start_backend_load):
    the app reports that load's outcome, here a model file that is not there."""
    from gorilla_tui.tui.session import Session

    missing = tmp_path / "nothing-here.gguf"
    session = Session(Settings(model=str(missing)), index=torchhub_index)
    session.start_backend_load()
    session.join_backend_load()
    assert session.backend is None and session.backend_error is not None
    app = create_app(session=session, show_timings=False)
    async with app.run_test(size=SIZE) as pilot:
        status = app.main.query_one("#status")
        await wait_for(pilot, lambda: status.state_kind == "error")
        assert status.fields["state"] == "model not loaded"
        assert str(missing.name) in str(app.main.query_one("#proposal").query_one("#stream").render())


@pytest.mark.slow  # a real rebuild from the TUI
async def test_an_index_built_by_an_older_version_is_rebuilt_by_itself(capsys):
    """After an upgrade whose tokenizer differs, the TUI rebuilds the index from the folder it was built
    from (as `gorilla-tui index --refresh` does) instead of stopping at "index error"."""
    import json

    from gorilla_tui.cli import main
    from gorilla_tui.model.scripted import ScriptedBackend
    from gorilla_tui.store import versions as store

    assert main(["index", "--refresh", "--from", str(SMALL_POOL), "--only", "torchhub", "--json"]) == 0
    capsys.readouterr()
    meta_path = store.current_version() / "meta.json"
    meta = json.loads(meta_path.read_text())
    meta["tokenizer_version"] = meta["tokenizer_version"] - 1
    meta_path.write_text(json.dumps(meta))
    app = create_app(
        Settings(mode="generate"), backend=ScriptedBackend([" " + VALID_CALL]), show_timings=False
    )
    async with app.run_test(size=SIZE) as pilot:
        # the worker sets the index, then posts the notice: wait for both (asserting the notice as soon as
        # the index was there failed on a busy machine)
        await wait_for(pilot, lambda: app.session.index is not None and "older version" in app.last_notice,
                       timeout=60)  # fmt: skip
        # the torchhub docs again, from the folder recorded; python-env too, as `index --refresh` adds it
        assert sum(d.source == "torchhub" for d in app.session.index.docs) == 8
        await ask(pilot, VIDEO_TASK)
        assert app.main.proposal.verdict.kind == "valid"


async def test_f5_on_a_standard_library_answer_shows_the_value_of_its_last_expression(stdlib_docs):
    """The python-env doc example of os.getcwd is a bare expression (`import os\\nos.getcwd()`): F5 showed
    nothing. A proposal's run echoes a final expression as the REPL does (in the sandbox), so the run
    log shows the directory the code ran in (the sandbox's home)."""
    from gorilla_tui.model.scripted import ScriptedBackend
    from gorilla_tui.retrieve.index import ApiIndex
    from gorilla_tui.sandbox.runner import HOME_INSIDE

    index = ApiIndex.build(list(stdlib_docs))  # the real python-env pool: this interpreter's stdlib
    backend = ScriptedBackend(["os.getcwd()"])  # select by grammar: the model writes one hit's api_call
    app = create_app(
        Settings(mode="select", select_by="grammar"), backend=backend, index=index, show_timings=False
    )
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "get the current working directory", timeout=30)
        proposal = app.main.proposal
        assert proposal.api_call == "os.getcwd()" and proposal.verdict.kind == "valid"
        assert proposal.code == "import os\nos.getcwd()"  # the doc's example code: ends in a bare call
        await pilot.press("f5", "y")
        assert isinstance(app.screen, RunScreen)
        await wait_for(pilot, lambda: app.screen.finished, timeout=60)
        assert app.screen.result.exit_status == 0
        assert app.screen.query_one(Log).lines == [repr(HOME_INSIDE)]


async def test_saving_settings_keeps_the_comments_and_order_of_config_toml(make_app):
    """Break-it finding: the settings screen rewrote config.toml from scratch (tomli_w), so every comment
    the person wrote there was lost on the first save. Only the changed value is replaced now."""
    config = get_paths().config_file
    config.parent.mkdir(parents=True, exist_ok=True)
    mine = '# my settings\nsources = ["/tmp/my docs.jsonl"]  # my own docs\nk = 5  # hits\n'
    config.write_text(mine)
    app = make_app([" " + VALID_CALL], sources=["/tmp/my docs.jsonl"], k=5)  # the settings of that file
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+o")
        app.screen.query_one("#set-k", Input).value = "7"
        await pilot.press("ctrl+s")
        assert app.screen is app.main
    text = config.read_text()
    assert text.startswith(mine.replace("k = 5  # hits", "k = 7  # hits"))
    assert load_settings().k == 7 and load_settings().sources == ["/tmp/my docs.jsonl"]


async def test_a_damaged_index_is_named_damaged_not_missing(capsys):
    """A live index whose docs.jsonl was cut short made the TUI answer every task with "Error: no index
    yet", as if none had been built; the proposal panel now gives the load error (damaged, with its
    folder) and how to rebuild it."""
    from gorilla_tui.cli import main
    from gorilla_tui.model.scripted import ScriptedBackend
    from gorilla_tui.store import versions as store

    assert main(["index", "--refresh", "--from", str(SMALL_POOL), "--only", "torchhub", "--no-dense"]) == 0
    capsys.readouterr()
    docs = store.current_version() / "docs.jsonl"
    with docs.open("r+b") as f:
        f.truncate(docs.stat().st_size // 2)
    app = create_app(
        Settings(mode="generate"), backend=ScriptedBackend([" " + VALID_CALL]), show_timings=False
    )
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: "index error" in screen_text(app), timeout=30)
        await ask(pilot, VIDEO_TASK)
        shown = " ".join(screen_text(app).split())
        assert "no index yet" not in shown
        assert "damaged" in shown and "index --refresh" in shown


async def test_saving_settings_writes_only_what_the_dialog_changed(make_app):
    """The settings screen wrote every setting of the session: a value another TUI on the same home had
    saved meanwhile (k = 7) was overwritten by this session's stale one, and values given on the command
    line for this session only (`gorilla-tui tui --hub torchhub`) became the saved defaults. Only the
    fields changed in the dialog are written now; the rest of the file stays as it is."""
    app = make_app([" " + VALID_CALL], hub="torchhub", mode="generate")  # as `tui --hub torchhub`
    config = get_paths().config_file
    async with app.run_test(size=SIZE) as pilot:
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text('# mine\nk = 7\nmode = "generate"\n')  # saved by another TUI meanwhile
        await pilot.press("ctrl+o")
        app.screen.query_one("#set-mode", Select).value = "select"
        await pilot.press("ctrl+s")
        assert app.screen is app.main
        assert app.session.settings.mode == "select" and app.session.settings.hub == "torchhub"
    saved = load_settings()
    assert (saved.k, saved.mode, saved.hub) == (7, "select", "")
    assert config.read_text().startswith("# mine\n")
