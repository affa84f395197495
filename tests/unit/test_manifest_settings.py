"""A manifest's retrieval settings (build/plan.py check_settings): `dense_weight` a finite number
>= 0, `fusion_depth` a positive integer or "all", `passage` a known recipe (retrieve/embed.py
PASSAGE_RECIPES). Another value was accepted silently (a search then ignored it, or weighed a source's dense
ranking by inf); a refresh now refuses it in one line naming the manifest and the key. Real TOML files, real
parse_manifest, real refreshes of tests/data/pool."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from gorilla_tui import resources
from gorilla_tui.build.plan import check_settings, make_plan
from gorilla_tui.build.refresh import refresh
from gorilla_tui.cli import main
from gorilla_tui.errors import UsageError
from gorilla_tui.model.choice import CHOICE_RULES, check_choice_settings
from gorilla_tui.paths import toml_of
from gorilla_tui.pool import manifest as manifest_module
from gorilla_tui.pool.doc import MAX_SOURCE_BYTES
from gorilla_tui.pool.manifest import Manifest, load_manifests, parse_manifest, shipped_values
from gorilla_tui.retrieve.embed import PASSAGE_RECIPES
from gorilla_tui.retrieve.fusion import dense_weight
from gorilla_tui.store import versions as index_store

SMALL_POOL = Path(__file__).resolve().parents[1] / "data" / "pool"

BAD = [
    ("dense_weight", "inf", "inf"),
    ("dense_weight", "nan", "nan"),
    ("dense_weight", "-1", "-1"),
    ("dense_weight", '"5"', "'5'"),
    ("dense_weight", "true", "True"),
    ("fusion_depth", "0", "0"),
    ("fusion_depth", "-3", "-3"),
    ("fusion_depth", "2.5", "2.5"),
    ("fusion_depth", '"deep"', "'deep'"),
    ("passage", '"summary"', "'summary'"),
    ("passage", "3", "3"),
    ("passage", '"fields\\nmore"', "'fields\\nmore'"),
    ("embed_questions", '"yes"', "'yes'"),
    ("embed_questions", "1", "1"),
]
#: The choice settings: model/likelihood.py check_choice_settings (a refresh's check_manifest).
BAD_CHOICE = [
    ("choice_rule", '"coin"', "'coin'"),
    ("choice_rule", "3", "3"),
    ("vote_temperature", "0", "0"),
    ("vote_temperature", "-2", "-2"),
    ("vote_temperature", "inf", "inf"),
    ("vote_temperature", "nan", "nan"),
    ("vote_temperature", '"3"', "'3'"),
    ("vote_temperature", "true", "True"),
]
GOOD = [("dense_weight", "0"), ("dense_weight", "0.5"), ("dense_weight", "5"), ("fusion_depth", "1"),
        ("fusion_depth", '"all"'), *(("passage", f'"{r}"') for r in PASSAGE_RECIPES),
        ("embed_questions", "true"), ("embed_questions", "false")]  # fmt: skip
GOOD_CHOICE = [*(("choice_rule", f'"{r}"') for r in CHOICE_RULES), ("vote_temperature", "3"),
               ("vote_temperature", "0.5")]  # fmt: skip


def _user_manifest(folder: Path, setting: str) -> Path:
    """A user's own manifest file of a docs source read from tests/data/pool, with `setting` (TOML)."""
    path = folder / "mine.toml"
    head = 'name = "mine"\nformat = "apibench"\nfiles = ["torchhub_api.jsonl"]\nretrieval = "hybrid"\n'
    path.write_text(f"{head}{setting}\n")
    return path


def _parsed(path: Path) -> Manifest:
    return parse_manifest(toml_of(path.read_text(), str(path)), str(path))


@pytest.mark.parametrize(("key", "toml", "shown"), BAD)
def test_a_bad_setting_is_one_line_naming_the_file_and_the_key(
    tmp_path: Path, key: str, toml: str, shown: str
) -> None:
    path = _user_manifest(tmp_path, f"{key} = {toml}")
    with pytest.raises(UsageError) as e:
        check_settings(_parsed(path))
    message = str(e.value)
    assert message.startswith(f"{path}: `{key}` must be ") and message.endswith(f", not {shown}")
    assert "\n" not in message
    # a refresh with it refuses it before anything is read or written
    with pytest.raises(UsageError, match=f"`{key}`"):
        refresh(mirrors=[SMALL_POOL], manifests=[_parsed(path)])
    assert index_store.current_version() is None


@pytest.mark.parametrize(("key", "toml"), GOOD)
def test_a_good_setting_passes(tmp_path: Path, key: str, toml: str) -> None:
    check_settings(_parsed(_user_manifest(tmp_path, f"{key} = {toml}")))


def test_a_user_manifest_with_good_settings_refreshes(tmp_path: Path) -> None:
    path = _user_manifest(tmp_path, 'dense_weight = 0.5\nfusion_depth = "all"\npassage = "description"')
    report = refresh(mirrors=[SMALL_POOL], manifests=[_parsed(path)])
    assert [(r["name"], r["status"], r["loaded"]) for r in report.sources] == [("mine", "ok", 8)]


@pytest.mark.parametrize(("key", "toml", "shown"), BAD_CHOICE)
def test_a_bad_choice_setting_is_one_line_naming_the_file_and_the_key(
    tmp_path: Path, key: str, toml: str, shown: str
) -> None:
    """`choice_rule = "coin"` or a vote_temperature of 0 was accepted silently (the choice then used the
    default rule or temperature); model/likelihood.py refuses it, and a refresh given that check (the
    CLI's and the TUI's: retrieve never imports model) refuses it before anything is read or written."""
    path = _user_manifest(tmp_path, f"{key} = {toml}")
    with pytest.raises(UsageError) as e:
        check_choice_settings(_parsed(path))
    message = str(e.value)
    assert message.startswith(f"{path}: `{key}` must be ") and message.endswith(f", not {shown}")
    assert "\n" not in message
    check_settings(_parsed(path))  # not retrieve's key
    with pytest.raises(UsageError, match=f"`{key}`"):
        refresh(mirrors=[SMALL_POOL], manifests=[_parsed(path)], check_manifest=check_choice_settings)
    assert index_store.current_version() is None


@pytest.mark.parametrize(("key", "toml"), GOOD_CHOICE)
def test_a_good_choice_setting_passes(tmp_path: Path, key: str, toml: str) -> None:
    check_choice_settings(_parsed(_user_manifest(tmp_path, f"{key} = {toml}")))


def test_the_shipped_manifests_all_pass() -> None:
    manifests = load_manifests()
    assert {"torchhub", "tensorflowhub", "huggingface", "apizoo", "python-env"} <= {m.name for m in manifests}
    for m in manifests:
        check_settings(m)
        check_choice_settings(m)
    assert make_plan(None, [], [], [], None, MAX_SOURCE_BYTES).manifests == manifests
    # and the weights they set are the ones a search fuses with
    assert {name: dense_weight(v) for name, v in shipped_values("dense_weight").items()} == {
        name: float(v) for name, v in shipped_values("dense_weight").items()
    }


def test_a_dense_weight_is_finite_and_zero_counts() -> None:
    assert dense_weight(0) == 0.0 and dense_weight(5) == 5.0 and dense_weight(0.25) == 0.25
    for bad in (math.inf, math.nan, -1, "5", True, None):
        assert dense_weight(bad) is None


def test_an_edited_shipped_manifest_is_one_line_exit_2_from_the_cli(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An index/*.toml edited in place (a source checkout) with `dense_weight = inf`: `index --refresh`
    exits 2 with one line naming index/apizoo.toml and the key, never a traceback, and builds nothing."""
    assert _refresh_with_apizoo_line(tmp_path, monkeypatch, "dense_weight = inf") == 2
    err = capsys.readouterr().err
    assert (
        err == "gorilla-tui: error: index/apizoo.toml: `dense_weight` must be a finite number >= 0, not inf\n"
    )
    assert main(["index", "--status", "--json"]) == 0
    assert '"index": false' in capsys.readouterr().out


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('choice_rule = "coin"', "index/apizoo.toml: `choice_rule` must be one of "),
        ("vote_temperature = 0", "index/apizoo.toml: `vote_temperature` must be a finite number > 0, not 0"),
        ('embed_questions = "yes"', "index/apizoo.toml: `embed_questions` must be true or false, not 'yes'"),
    ],
)
def test_an_edited_shipped_manifest_choice_setting_is_one_line_exit_2_from_the_cli(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    line: str,
    message: str,
) -> None:
    """`choice_rule = "coin"`, `vote_temperature = 0` or `embed_questions = "yes"` in index/apizoo.toml: a
    refresh exited 0 and the setting was ignored. It exits 2 now with one line naming the file and the key,
    and builds nothing."""
    assert _refresh_with_apizoo_line(tmp_path, monkeypatch, line) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"gorilla-tui: error: {message}") and err.count("\n") == 1
    assert main(["index", "--status", "--json"]) == 0
    assert '"index": false' in capsys.readouterr().out


def _refresh_with_apizoo_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, line: str) -> int:
    """`index --refresh --only apizoo` (tests/data/pool) with the shipped manifests copied to tmp_path and
    `line` put first in index/apizoo.toml (a top-level key: before any [table]; the manifest's own line of
    that key left out, so the key is not set twice); the CLI's exit code."""
    folder = tmp_path / "index"
    folder.mkdir()
    for f in resources.data_files("index"):
        (folder / f.name).write_text(f.read_text(encoding="utf-8"), encoding="utf-8")
    zoo = folder / "apizoo.toml"
    key = line.split("=")[0].strip()
    kept = [x for x in zoo.read_text().splitlines(keepends=True) if x.split("=")[0].strip() != key]
    zoo.write_text(f"{line}\n" + "".join(kept))
    monkeypatch.setattr(
        manifest_module, "data_files", lambda name, suffix=".toml": sorted(folder.glob("*.toml"))
    )
    shipped_values.cache_clear()
    try:
        return main(["index", "--refresh", "--from", str(SMALL_POOL), "--only", "apizoo"])
    finally:
        shipped_values.cache_clear()
