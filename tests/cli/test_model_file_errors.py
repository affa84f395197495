"""A model that cannot be read or named (break-it round 8): a read that fails with EIO (N5) and an hf: spec
whose repo id huggingface_hub refuses (N6) are one line naming the cause in every command that takes a
model: `ask --model`, `model pull`, config.toml's `model` (ask, doctor)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from gorilla_tui.cli import main

#: Reading /proc/self/mem at offset 0 (unmapped) fails with EIO, as a failing disk or FUSE mount does.
EIO_FILE = Path("/proc/self/mem")


def _error(err: str) -> str:
    """The one error line of `err` (a first launch says it builds the index first)."""
    (line,) = [line for line in err.splitlines() if line.startswith("gorilla-tui: error: ")]
    return line


def _config(home: Path, model: str) -> None:
    cfg = home / "config" / "config.toml"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text(f'model = "{model}"\n')


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/self/mem is Linux's")
def test_a_model_file_whose_read_fails_is_one_line_naming_it(gorilla_home, capsys):
    """EIO from registry.check_gguf's read was "internal error: OSError" (exit 1) in ask, eval run and the
    config's model; now: the file, the OS error, exit 2 (doctor: a problem, exit 1)."""
    said = f"gorilla-tui: error: cannot read model file {EIO_FILE}: Input/output error (errno 5)"
    assert main(["ask", "--model", str(EIO_FILE), "copy a file"]) == 2
    assert _error(capsys.readouterr().err) == said
    assert main(["model", "pull", str(EIO_FILE)]) == 2
    assert _error(capsys.readouterr().err) == said
    _config(gorilla_home, str(EIO_FILE))
    assert main(["ask", "copy a file"]) == 2
    assert _error(capsys.readouterr().err) == said
    assert main(["doctor", "--no-hash", "--no-inference"]) == 1
    out = capsys.readouterr().out
    assert f"problem: cannot read model file {EIO_FILE}: Input/output error (errno 5)" in out.splitlines()


@pytest.mark.parametrize(
    ("spec", "repo"), [("hf:a b/c/d.gguf", "a b/c"), ("hf:../../x.gguf", "../.."), ("hf:-a/b/c.gguf", "-a/b")]
)
def test_an_hf_spec_huggingface_refuses_is_a_config_problem_in_doctor(gorilla_home, spec, repo, capsys):
    """doctor's cache lookup raised huggingface_hub's HFValidationError ("internal error", exit 1) where
    ask and model pull said one line: the spec is refused where it is parsed, alike in all three."""
    why = f"bad model spec {spec!r}: {repo!r} is not a Hugging Face repo id"
    _config(gorilla_home, spec)
    assert main(["doctor", "--no-hash", "--no-inference"]) == 1
    out = capsys.readouterr().out
    assert any(line.startswith(f"problem: model in config: {why}") for line in out.splitlines()), out
    assert main(["ask", "copy a file"]) == 2
    assert _error(capsys.readouterr().err).startswith(f"gorilla-tui: error: {why}")
    assert main(["model", "pull", spec]) == 2
    assert _error(capsys.readouterr().err).startswith(f"gorilla-tui: error: {why}")


def test_a_garbage_file_in_the_hugging_face_cache_names_the_files_to_delete(
    gorilla_home, tmp_path, monkeypatch, capsys
):
    """Break-it round 8 (partly held): a garbage file a mirror served as a registry model's .gguf stays in
    the Hugging Face cache, and every later `model pull` takes it from there and refuses it ("not a GGUF
    model file") with "model pull" as the only fix. The fix names the cached link and file to delete; once
    deleted, the model is no longer cached (offline: "not in the Hugging Face cache")."""
    import huggingface_hub.constants as hf_constants

    cache = tmp_path / "hub"
    repo_dir = cache / "models--gorilla-llm--gorilla-7b-hf-v1-gguf"
    commit = "a" * 40
    (repo_dir / "refs").mkdir(parents=True)
    (repo_dir / "refs" / "main").write_text(commit)
    blob = repo_dir / "blobs" / "abc"
    blob.parent.mkdir()
    blob.write_bytes(b"\x1b]0;PWNED\x07" + b"\xff" * 100)
    link = repo_dir / "snapshots" / commit / "gorilla-7b-hf-v1-q4_K_M.gguf"
    link.parent.mkdir(parents=True)
    link.symlink_to(Path("../../blobs/abc"))
    monkeypatch.setattr(hf_constants, "HF_HUB_CACHE", str(cache))
    fix = f"rm {link} {blob} && gorilla-tui model pull gorilla-7b-hf-v1  # the cached download is damaged"
    assert main(["model", "pull", "gorilla-7b-hf-v1"]) == 2
    err = capsys.readouterr().err
    assert f"{link} is not a GGUF model file" in _error(err) and f"  hint: {fix}" in err, err
    _config(gorilla_home, "gorilla-7b-hf-v1")
    assert main(["doctor", "--no-hash", "--no-inference"]) == 1
    out = " ".join(capsys.readouterr().out.split())  # rich folds the long line at a space
    assert " ".join(f"fix: {fix}".split()) in out, out
    link.unlink()
    blob.unlink()
    assert main(["model", "pull", "gorilla-7b-hf-v1"]) == 2
    assert "not in the Hugging Face cache" in capsys.readouterr().err
