"""One fix per missing source, said the same way everywhere (issue 40, item 5): the first-launch panel of the
TUI, the closing warning of `index --refresh`, `doctor` and `index --status` give each missing source the
same fix (pool/remedies.py), right for that source: the APIBench hubs a refresh online or `--from DIR` with
the dataset's files, APIZoo `--source apizoo=DIR` (the APIBench files hold no APIZoo), python-env a refresh
of that source alone. Real output, in the test's own GORILLA_TUI_HOME, offline."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from gorilla_tui.cli import main
from gorilla_tui.config import Settings
from gorilla_tui.model.scripted import ScriptedBackend
from gorilla_tui.pool.manifest import load_manifests
from gorilla_tui.pool.remedies import add_fix
from gorilla_tui.tui.app import create_app
from tests.conftest import SMALL_POOL
from tests.tui.conftest import wait_first_launch

#: "A, B: to add them: FIX" (or "to refresh it"), one fix line of pool.remedies.fix_lines.
FIX_LINE = re.compile(r"([\w-]+(?:, [\w-]+)*): to (?:add|refresh) (?:it|them): (.+)")


def _fixes(text: str) -> dict[str, str]:
    """source -> its fix, from every fix line in `text` (lines, or "; "-joined as a warning joins them)."""
    found: dict[str, str] = {}
    for part in re.split(r"; |\n", text):
        m = FIX_LINE.search(part.strip())
        if m:
            for name in m.group(1).split(", "):
                assert found.setdefault(name, m.group(2)) == m.group(2), f"{name}: two fixes in {text!r}"
    return found


def _flat(text: str) -> str:
    return " ".join(text.split())


async def _first_launch_panel() -> tuple[list[str], str]:
    """The first launch offline, no mirror: (its summary lines, the text the proposal panel shows)."""
    app = create_app(Settings(), backend=ScriptedBackend([" x"]), show_timings=False)
    async with app.run_test(size=(200, 40)) as pilot:
        await wait_first_launch(pilot)
        shown = str(app.main.query_one("#proposal").query_one("#stream").render())
        return app.first_launch.lines(), shown


@pytest.mark.slow  # a refresh of whole pools or a lock wait: seconds
async def test_each_missing_source_gets_the_same_fix_everywhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)  # the hub is not asked (as in HF_HUB_OFFLINE=1)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "empty-hf-cache"))
    monkeypatch.setenv("COLUMNS", "400")  # rich's lines unwrapped
    want = {m.name: add_fix(m) for m in load_manifests()}
    hubs = ("torchhub", "tensorflowhub", "huggingface")

    # 1. the first-launch panel: python-env built, the hubs and APIZoo missing
    lines, shown = await _first_launch_panel()
    panel = _fixes("\n".join(lines))
    assert panel == {name: want[name] for name in (*hubs, "apizoo")}
    assert all(_flat(line) in _flat(shown) for line in lines)  # the panel shows those lines
    assert "--source apizoo=DIR" in panel["apizoo"] and "--from" not in panel["apizoo"]
    assert "--from DIR" in panel["torchhub"] and "gorilla-llm/APIBench" in panel["torchhub"]

    # 2. the refresh warning: only Torch Hub in the --from folder
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    shutil.copy(SMALL_POOL / "torchhub_api.jsonl", mirror)
    capsys.readouterr()
    assert main(["index", "--refresh", "--from", str(mirror), "--no-dense", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert sorted(out["unavailable"]) == ["apizoo", "huggingface", "tensorflowhub"]
    warning = _fixes(out["warning"])
    assert warning == {name: want[name] for name in ("huggingface", "tensorflowhub", "apizoo")}
    assert main(["index", "--refresh", "--from", str(mirror), "--no-dense"]) == 0
    assert _fixes(capsys.readouterr().out) == warning  # the text output says the same

    # 3. index --status and 4. doctor, over that index and over one without python-env
    for only in ([], ["--only", "torchhub"]):
        if only:  # a new home: an index of Torch Hub alone
            monkeypatch.setenv("GORILLA_TUI_HOME", str(tmp_path / "home-torchhub"))
            assert main(["index", "--refresh", "--from", str(mirror), "--no-dense", *only]) == 0
        expected = {
            name: want[name] for name in want if name != "torchhub" and (only or name != "python-env")
        }
        capsys.readouterr()
        assert main(["index", "--status", "--json"]) == 0
        status = json.loads(capsys.readouterr().out)["missing"]
        assert sorted(status["sources"]) == sorted(expected)
        assert _fixes("\n".join(status["fixes"])) == expected
        assert main(["index", "--status"]) == 0
        assert _fixes(capsys.readouterr().out) == expected
        assert main(["doctor", "--json", "--no-hash", "--no-inference"]) in (0, 1)
        notes = json.loads(capsys.readouterr().out)["notes"]
        (lacks,) = [n for n in notes if n["note"].startswith("the index has no ")]
        assert _fixes(lacks["fix"]) == expected
    assert expected["python-env"] == "gorilla-tui index --refresh --only python-env " + (
        "(reads this Python's packages, no network needed)"
    )
