"""Source manifests, hf_hub_download through a local Hugging Face cache, mirrors and user sources."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gorilla_tui.errors import UsageError
from gorilla_tui.pool.sources import (
    clip,
    load_manifests,
    parse_manifest,
    user_source,
)

HUBS = {"torchhub": 94, "tensorflowhub": 696, "huggingface": 936}


def _manifests() -> dict:
    return {m.name: m for m in load_manifests()}


def test_shipped_manifests() -> None:
    ms = _manifests()
    assert {"torchhub", "tensorflowhub", "huggingface", "apizoo"} <= set(ms)
    for hub in HUBS:
        m = ms[hub]
        assert m.kind == "docs" and m.format == "apibench" and m.files == (f"{hub}_api.jsonl",)
        assert m.remote == {
            "type": "hf",
            "repo_id": "gorilla-llm/APIBench",
            "repo_type": "dataset",
            "revision": "main",
        }
        assert m.license == "Apache-2.0" and "2305.15334" in m.citation
    assert ms["apizoo"].format == "apizoo" and ms["apizoo"].remote["type"] == "url"


def test_bad_manifests_are_usage_errors() -> None:
    with pytest.raises(UsageError, match="needs a `name`"):
        parse_manifest({"files": ["a.jsonl"]}, "index/x.toml")
    with pytest.raises(UsageError, match="unknown format"):
        parse_manifest({"name": "x", "format": "csv", "files": ["a"]}, "index/x.toml")
    with pytest.raises(UsageError, match="remote"):
        parse_manifest({"name": "x", "files": ["a"], "remote": {"type": "ftp"}}, "index/x.toml")


def test_clip_cuts_at_a_word_boundary() -> None:
    text = "Cannot reach https://huggingface.co/api/datasets: offline mode is enabled " * 4
    out = clip(text, 160)
    assert len(out) <= 160 and out.endswith("...") and text.startswith(out[:-3])
    assert out[:-3].split()[-1] in text.split()  # the last word is whole
    assert clip("short\nline") == "short line"


def test_user_source_named_after_stem(tmp_path: Path) -> None:
    f = tmp_path / "my_tools.jsonl"
    f.write_text('{"api_call": "tools.run(x)", "description": "run a tool"}\n')
    load = user_source(f)
    assert load.name == "my_tools" and load.status == "ok" and load.result.docs[0].source == "my_tools"
    with pytest.raises(UsageError, match="already used"):
        user_source(f, taken=["my_tools"])
    with pytest.raises(UsageError, match="no such file"):
        user_source(tmp_path / "nope.jsonl")
    folder = tmp_path / "team_docs"
    folder.mkdir()
    (folder / "a.jsonl").write_text('{"api_call": "a.b()"}\n')
    assert user_source(folder).name == "team_docs"
    named = user_source(f"tools={f}")  # --source NAME=PATH
    assert named.name == "tools" and named.result.docs[0].source == "tools" and named.origin == str(f)
    with pytest.raises(UsageError, match="name it: --source OTHER="):
        user_source(f"tools={f}", taken=["tools"])
    odd = tmp_path / "a=b.jsonl"  # an existing path with "=" in it stays a path, not NAME=PATH
    odd.write_text('{"api_call": "odd.f()"}\n')
    with pytest.raises(UsageError, match="the name it gives its source, 'a=b' .* is not a source name"):
        user_source(odd)  # its stem is no source name, as NAME= must be (issue 42)
    assert user_source(f"ab={odd}").name == "ab"


def test_a_folder_whose_only_doc_files_link_out_of_it_says_so(tmp_path: Path) -> None:
    """A link out of a --source folder is not read (pool/files.py doc_files): a folder with nothing else
    is "no doc file", with the files not read counted and the first named with its cause, not a source
    made of the files they point to."""
    outside = tmp_path / "outside.jsonl"
    outside.write_text('{"api_call": "secret.f()", "description": "private"}\n')
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.jsonl").symlink_to(outside)
    why = r"\(sub-folders are not read; 1 file\(s\) not read \(a.jsonl: symbolic link to a file outside"
    with pytest.raises(UsageError, match=why):
        user_source(folder)


def test_a_folder_whose_doc_files_sit_in_a_sub_folder_says_sub_folders_are_not_read(tmp_path: Path) -> None:
    """Break-it round 9: a --source folder whose only doc file sits in a sub-folder said "no *.json or
    *.jsonl file in that folder", true (one level is read) but not why; it says so now."""
    (tmp_path / "docs" / "v1").mkdir(parents=True)
    (tmp_path / "docs" / "v1" / "a.jsonl").write_text('{"api_call": "a.f()", "description": "f"}\n')
    with pytest.raises(
        UsageError, match=r"no \*\.json or \*\.jsonl file in that folder \(sub-folders are not read\)$"
    ):
        user_source(tmp_path / "docs")


def test_bad_source_name_or_empty_path_says_so(tmp_path: Path) -> None:
    """`--source ../x=PATH`, `--source "a b"=PATH`, `--source =PATH` and `--source zoo=` used to be "no such
    file or folder" for the whole value; they name what is wrong. A missing PATH is still "no such file"."""
    f = tmp_path / "docs.jsonl"
    f.write_text('{"api_call": "tools.run(x)", "description": "run a tool"}\n')
    for bad in ("../x", "a b", ""):
        with pytest.raises(UsageError, match=f"{bad!r} is not a source name"):
            user_source(f"{bad}={f}")
    with pytest.raises(UsageError, match="'ñame' is not a source name \\(ASCII letters"):  # break-it 29
        user_source(f"ñame={f}")
    with pytest.raises(UsageError, match="no path after 'zoo='"):
        user_source("zoo=")
    with pytest.raises(UsageError, match="no such file or folder"):
        user_source(f"zoo={tmp_path / 'nope.jsonl'}")
    with pytest.raises(UsageError, match="no such file or folder"):
        user_source(f"../x={tmp_path / 'nope.jsonl'}")


@pytest.mark.parametrize("name", ["my hub", "-x", "[red]x", "hub/../x"])
def test_a_manifest_or_plugin_source_name_follows_the_name_rule(name: str) -> None:
    """A source plugin's manifest (or one in index/) named its source with any text; the rule `--source
    NAME=PATH` and a file's stem follow holds for it too (issue 42): one line naming the manifest."""
    from gorilla_tui.pool.sources import parse_manifest

    with pytest.raises(UsageError, match=f"^plugin.toml: {re.escape(repr(name))} is not a source name"):
        parse_manifest({"name": name, "files": ["a.jsonl"]}, "plugin.toml")
    assert parse_manifest({"name": "my_hub", "files": ["a.jsonl"]}, "plugin.toml").name == "my_hub"
