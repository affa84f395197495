"""The first-launch build (build.first_launch) checks the manifests as `index --refresh` does: the model's
keys (choice_rule, vote_temperature) through the check_manifest the TUI and services pass
(model.choice.check_choice_settings). It used to call refresh without it. Real shipped manifests."""

from __future__ import annotations

import pytest

from gorilla_tui.build.first_launch import build_first_index, has_index
from gorilla_tui.config import Settings
from gorilla_tui.errors import GorillaError, UsageError
from gorilla_tui.model.choice import check_choice_settings
from gorilla_tui.pool.manifest import Manifest, load_manifests


def test_the_first_launch_build_runs_the_manifest_check(tmp_path) -> None:
    seen: list[str] = []

    def refuse(manifest: Manifest) -> None:
        seen.append(manifest.name)
        raise UsageError(f"index/{manifest.name}.toml: choice_rule 'nope' is not a rule")

    settings = Settings(mirrors=[str(tmp_path)])  # a mirror: no network probe
    with pytest.raises(GorillaError, match="choice_rule 'nope' is not a rule"):
        build_first_index(settings, check_manifest=refuse)
    assert seen and set(seen) <= {m.name for m in load_manifests()}
    assert not has_index()  # nothing was published


def test_the_shipped_manifests_pass_the_check_the_first_launch_runs() -> None:
    for manifest in load_manifests():
        check_choice_settings(manifest)  # raises UsageError for a bad key
