"""pool/remedies.py: the fix for a missing source, right for where its files come from, and one line per
distinct fix (the three APIBench hubs share theirs)."""

from __future__ import annotations

from gorilla_tui.pool.manifest import Manifest, load_manifests
from gorilla_tui.pool.remedies import add_fix, fix_lines


def test_each_kind_of_source_gets_its_own_fix() -> None:
    shipped = {m.name: m for m in load_manifests()}
    hub = add_fix(shipped["torchhub"])
    assert hub.startswith(
        "gorilla-tui index --refresh when online (it fetches the Hugging Face dataset gorilla-llm/"
    )
    assert "--from DIR" in hub and add_fix(shipped["huggingface"]) == hub == add_fix(shipped["tensorflowhub"])
    zoo = add_fix(shipped["apizoo"])
    assert zoo == (
        "gorilla-tui index --refresh --source apizoo=DIR with DIR a local copy of "
        "github.com/ShishirPatil/gorilla/tree/main/data/apizoo"
    )
    assert add_fix(shipped["python-env"]).startswith("gorilla-tui index --refresh --only python-env ")
    mine = Manifest(name="team", title="team docs", remote={"type": "path", "path": "~/docs"})
    assert add_fix(mine) == "gorilla-tui index --refresh --source team=DIR with DIR a folder of its files"
    assert all("; " not in add_fix(m) for m in shipped.values())  # warnings join fixes with "; "


def test_fix_lines_group_sources_by_fix_in_the_manifests_order() -> None:
    lines = fix_lines(["apizoo", "torchhub", "mine", "huggingface", "torchhub"])
    assert [line.split(": to ")[0] for line in lines] == ["huggingface, torchhub", "apizoo", "mine"]
    assert lines[0].startswith("huggingface, torchhub: to add them: gorilla-tui index --refresh when online")
    assert (
        lines[2]
        == "mine: to add it: gorilla-tui index --refresh --source mine=DIR with DIR a folder of its files"
    )
    assert fix_lines(["torchhub"], verb="refresh")[0].startswith("torchhub: to refresh it: ")
    assert fix_lines([]) == []
