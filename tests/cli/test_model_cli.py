"""`gorilla-tui model list | pull`."""

from __future__ import annotations

import json
import os
import shutil

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
    # the link points at a blob inside the cache, as huggingface_hub lays it out: one that resolves outside
    # the cache is refused (a hostile mirror's etag made such links, break-it round 11, R11-1)
    blob = snap.parent.parent / "blobs" / ("d" * 64)
    blob.parent.mkdir()
    try:
        os.link(gemma_path, blob)
    except OSError:  # another file system: a copy (0.25 GB)
        shutil.copyfile(gemma_path, blob)
    (snap / "gorilla-openfunctions-v2-q5_K_M.gguf").symlink_to(blob)
    monkeypatch.setattr(c, "HF_HUB_CACHE", str(cache))
    monkeypatch.setattr(c, "HF_HUB_OFFLINE", True)
    assert main(["model", "pull", "gorilla-openfunctions-v2", "--quant", "q5_K_M", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["name"] == "gorilla-openfunctions-v2:q5_K_M" and info["family"] == "openfunctions-v2"
    assert info["size_bytes"] == gemma_path.stat().st_size
    assert main(["model", "pull", "gorilla-openfunctions-v2", "--quant", "q8_0"]) == 2
    err = capsys.readouterr().err
    assert "unknown quant q8_0 for gorilla-openfunctions-v2 (known: q2_K," in err and "Traceback" not in err


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


@pytest.mark.parametrize("size", [1_000_000, 200_000_000])
def test_model_pull_refuses_a_truncated_gguf_as_ask_does(gorilla_home, tmp_path, gemma_path, size, capsys):
    """The embedded model cut short (`head -c`: in its header at 1 MB, in its tensor data at 200 MB) was
    pulled ("trunc.gguf: ... (1 MB)", exit 0) while `ask --model` refused it: both run registry.check_gguf,
    which compares the file's size with what its header describes."""
    trunc = tmp_path / "trunc.gguf"
    with gemma_path.open("rb") as src:
        trunc.write_bytes(src.read(size))
    assert main(["model", "pull", str(trunc)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{trunc} is a truncated GGUF file" in err, err
    assert ("header is cut short" if size == 1_000_000 else "its header describes 253.1 MB") in err
    assert main(["ask", "--model", str(trunc), "parse a JSON document"]) == 2
    assert "is a truncated GGUF file" in capsys.readouterr().err
    assert main(["model", "pull", str(gemma_path)]) == 0  # the whole file is still taken
    assert f"{gemma_path.name}: {gemma_path}" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["gemma3-270m:q9_X"], "unknown quant q9_X for gemma3-270m (known: q4_K_M)"),
        (["gemma3-270m:"], "empty quant for gemma3-270m: give one of q4_K_M"),
        (["gorilla-7b-hf-v1:q9_X"], "unknown quant q9_X for gorilla-7b-hf-v1 (known: q2_K, q3_K_S,"),
        (["gorilla-7b-hf-v1", "--quant", ""], "empty quant for gorilla-7b-hf-v1: give one of q2_K,"),
        (["gorilla-7b-hf-v1:", "--quant", " "], "empty quant for gorilla-7b-hf-v1"),
        (["--quant", ""], "empty quant: give one of"),
    ],
)
def test_model_pull_names_the_model_of_a_bad_quant(gorilla_home, argv, said, capsys):
    """`gemma3-270m:q9_X` said "unknown model 'gemma3-270m:q9_X'", and `--quant ''` fetched q4_K_M."""
    assert main(["model", "pull", *argv]) == 2
    err = capsys.readouterr().err
    assert said in err and err.count("\n") == 1, err


def test_model_pull_takes_the_embedded_model_by_its_quant(home_with_model, capsys):
    assert main(["model", "pull", "gemma3-270m:Q4_K_M"]) == 0
    assert capsys.readouterr().out.startswith("gemma3-270m: already on disk: ")
