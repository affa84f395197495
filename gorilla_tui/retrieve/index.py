"""The retriever's index: ApiIndex (docs, BM25 postings, dense side) and its search with source routing;
the tokenizer is retrieve/tokenize.py, BM25 retrieve/bm25.py (postings) and retrieve/matrix.py (the sparse
matrix built at refresh), the fusion's settings (each source's dense weight and depth) retrieve/fusion.py.

A search scores from the index's postings (retrieve/bm25.py, numpy only) and parses only the docs it shows
(store.LazyDocs); scipy builds the matrix at refresh time (term_matrix) and backs the reference scorer
(Bm25Scorer), both imported only there (issue 20: a cold `search` in <= 0.3 s)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from gorilla_tui.config import MAX_NAME_CHARS
from gorilla_tui.errors import GorillaError, UsageError
from gorilla_tui.pool.doc import ApiDoc
from gorilla_tui.pool.metrics import Performance
from gorilla_tui.pool.pyenv.usage import UsageCounts, interpreter_usage
from gorilla_tui.retrieve import direction, fit
from gorilla_tui.retrieve import routing as source_routing
from gorilla_tui.retrieve.bm25 import Bm25Params, PostingsScorer, top_k
from gorilla_tui.retrieve.dense import DenseSide
from gorilla_tui.retrieve.fusion import FusionSettings
from gorilla_tui.retrieve.matrix import Bm25Scorer, term_matrix
from gorilla_tui.retrieve.query.literals import intent_text
from gorilla_tui.retrieve.tokenize import (
    boilerplate_sentences,
    check_tokenizer,
    doc_text,
    expand_query,
    tokenize,
)
from gorilla_tui.store import prior as doc_prior
from gorilla_tui.store import versions as store
from gorilla_tui.store.performance import PerformanceTable
from gorilla_tui.store.postings import Postings
from gorilla_tui.textsafe import cut
from gorilla_tui.types import Hit

if TYPE_CHECKING:
    from scipy import sparse

# ---------------------------------------------------------------------------------------------------------
# ApiIndex


#: How ApiIndex scores BM25: "postings" (bm25.PostingsScorer, numpy only: what every search uses) or
#: "matrix" (Bm25Scorer over the scipy matrix: the reference the parity tests compare with).
SCORINGS = ("postings", "matrix")


@dataclass
class ApiIndex:
    """The searchable API pool: docs, their term frequencies and vocabulary, per-source BM25 scorers,
    and the dense side (retrieve/dense.py: vectors and embedder, when the index has them).

    docs: every ApiDoc in index order (a list, or store.LazyDocs for a stored index: a doc is parsed when
    it is first read); tf: the scipy CSR term-frequency matrix (len(docs) x len(vocab)) of an index built in
    memory, None for a loaded one (built from the postings on demand by term_frequencies()); postings: the
    same counts column-major (bm25.Postings; derived from tf when not given); meta: what the refresh
    recorded (sources with counts, diagnostics, built time, sizes; see gorilla_tui.build.refresh);
    path: the version folder it was loaded from (None when built in memory); source_names / source_codes:
    the sources in index order and each doc's position in that list (int16 per doc; derived from docs when
    not given, read from the store otherwise so no doc is parsed to route a search); scoring: see SCORINGS;
    literals: whether search() masks the literal values of a query (retrieve/query/literals.py intent_text; a
    benchmark turns it off to compare).
    Searching one source (hub) scores against that source's docs only, with that source's own IDF and
    average length (as a BM25 built on the hub alone, the way APIBench evaluates per hub).
    """

    docs: Sequence[ApiDoc]
    tf: Any
    vocab: dict[str, int]
    params: Bm25Params = field(default_factory=Bm25Params)
    meta: dict[str, Any] = field(default_factory=dict)
    path: Path | None = None
    _scorers: dict[Any, tuple[np.ndarray, Any]] = field(default_factory=dict, repr=False)
    dense: DenseSide | None = field(default=None, repr=False)
    routing: str = source_routing.ROUTING
    postings: Postings | None = field(default=None, repr=False)
    source_names: list[str] | None = None
    source_codes: np.ndarray | None = field(default=None, repr=False)
    scoring: str = "postings"
    literals: bool = True
    #: one line for the person when the index was stored by an older version (read the slow way)
    note: str = ""

    def __post_init__(self) -> None:
        if self.dense is None:
            self.dense = DenseSide(len(self.docs), self.path)
        if self.postings is None:
            if self.tf is None:
                raise ValueError("ApiIndex needs tf or postings")
            self.postings = Postings.from_matrix(self.tf)
        if self.source_codes is None:
            names: dict[str, int] = {}
            codes = [names.setdefault(d.source, len(names)) for d in self.docs]
            self.source_names = list(names)
            self.source_codes = np.asarray(codes, np.int16)

    _performance: PerformanceTable | None = field(default=None, repr=False)
    #: Each doc's prior (store/prior.py), float32 per doc: read from the version folder, else computed
    #: from the docs on first use.
    _prior: np.ndarray | None = field(default=None, repr=False)
    #: The fusion's settings (retrieve/fusion.py: each source's dense weight and fusion depth, per doc):
    #: None until the first hybrid search reads the shipped ones (fusion_settings()); a benchmark sets its
    #: own here (FusionSettings.with_source).
    fusion: FusionSettings | None = field(default=None, repr=False)

    def performance(self, doc: ApiDoc) -> Performance:
        """`doc`'s normalised performance metadata (pool/metrics.py): from the table a refresh stored with
        this index (store/performance.py), read once; for an index built in memory, normalised on first use
        and kept."""
        if self._performance is None:
            stored = PerformanceTable.load(self.path) if self.path is not None else None
            self._performance = stored or PerformanceTable()
        return self._performance.get(doc)

    def prior(self) -> np.ndarray:
        """float32 per doc: the factor its BM25 score is multiplied by before ranking (store/prior.py;
        1 outside prior.PRIOR_SOURCES): the refresh's stored array, else computed from the docs once."""
        if self._prior is None:
            stored = doc_prior.load(self.path, len(self.docs)) if self.path is not None else None
            if stored is None:
                need = doc_prior.needs_usage(self.docs)
                stored = doc_prior.prior_array(self.docs, interpreter_usage() if need else UsageCounts())
            self._prior = stored
        return self._prior

    def term_frequencies(self) -> sparse.csr_matrix:
        """The scipy CSR term-frequency matrix (len(docs) x len(vocab), float32): tf, or built from the
        postings (and kept) for a loaded index. Imports scipy."""
        if self.tf is None:
            assert self.postings is not None
            self.tf = self.postings.to_matrix()
        return self.tf

    @classmethod
    def build(
        cls,
        docs: Sequence[ApiDoc],
        params: Bm25Params | None = None,
        meta: dict[str, Any] | None = None,
        tokens: Callable[[ApiDoc], Sequence[str] | None] | None = None,
    ) -> ApiIndex:
        """Tokenise `docs` (as tokenize.doc_terms: doc_text without the boilerplate_sentences of each doc's
        source, then tokenize) and build an in-memory index (BM25 only; attach vectors with
        index.dense.attach). tokens(doc): a doc's tokens when the caller already has them (a refresh
        reusing an unchanged source's term counts from the live index), None to tokenise it.

        Raises GorillaError for no docs, or when every doc is empty (no indexable word).
        """
        if not docs:
            raise GorillaError("the API pool is empty: nothing to index")
        known = tokens or (lambda doc: None)
        boiler = boilerplate_sentences(docs)  # per source, over all its docs (kept ones too)
        tf, vocab = term_matrix(
            toks
            if (toks := known(d)) is not None
            else tokenize(doc_text(d, boilerplate=boiler.get(d.source, frozenset())))
            for d in docs
        )
        index = cls(list(docs), tf, vocab, params or Bm25Params(), dict(meta or {}))
        index._scorer(None)  # validates the corpus (empty docs) now, not at the first search
        return index

    @classmethod
    def load(cls, path: str | Path | None = None) -> ApiIndex:
        """Load the live index (default: get_paths().index_dir) or a version folder, with its dense
        vectors when they are built (else they are picked up when they appear). Docs are parsed when
        first read (store.LazyDocs); an index stored by an older store version is read whole, the old way,
        with `note` saying so (refresh it to make searches fast again).

        Raises IndexMissingError (with a hint to run `gorilla-tui index --refresh`) when none is built,
        IndexOutdatedError when an older version built it with another tokenizer, GorillaError when it is
        unreadable or a newer version built it.
        """
        stored = store.read_stored(Path(path) if path is not None else None)
        check_tokenizer(stored.meta, stored.folder)
        if stored.damage:  # after the version checks: another version's index is no damaged one
            raise store.damaged(stored.folder, stored.damage)
        params = Bm25Params(**stored.meta.get("params", {}).get("bm25", {}))
        vocab = dict(zip(stored.terms, range(len(stored.terms)), strict=True))  # 3x a comprehension's speed
        postings = None
        if stored.postings is not None:
            postings = Postings(
                stored.postings["indptr"],
                stored.postings["rows"],
                stored.postings["tf"],
                stored.postings["lengths"],
            )
        index = cls(
            stored.docs,
            stored.tf,
            vocab,
            params,
            stored.meta,
            stored.folder,
            postings=postings,
            source_names=stored.source_names,
            source_codes=stored.source_codes,
        )
        index.note = stored.note
        return index

    @property
    def sources(self) -> list[str]:
        """Source short names in index order (e.g. ["torchhub", "tensorflowhub", "huggingface", "apizoo"])."""
        return list(self.source_names or [])

    def dense_state(self) -> dict[str, Any]:
        """Whether searches are hybrid: {"state": "ready" | "building" | "off" | "failed", "note": one line
        for the person, and "done"/"total" docs while building}. See DenseSide.state."""
        assert self.dense is not None
        return self.dense.state()

    def dense_failure(self) -> str:
        """The one-line note of a dense side that failed (DenseSide.state "failed": damaged vectors, an
        embedder that raised, an embedding run that was stopped), so searches are BM25 alone; "" otherwise
        (ready, building, or an index without vectors, whose `index --status` says why)."""
        state = self.dense_state()
        return str(state.get("note", "")) if state.get("state") == "failed" else ""

    def pool(self, hub: str | None = None) -> list[ApiDoc]:
        """The API pool: every doc, or only those of source `hub` (UsageError for an unknown source)."""
        if not hub:
            return list(self.docs)
        rows, _ = self._scorer(hub)
        return [self.docs[i] for i in rows]

    def _rows(self, hub: Any) -> np.ndarray:
        """Index rows (ascending) of every doc (hub None), of source `hub`, or of a tuple of sources."""
        assert self.source_codes is not None and self.source_names is not None
        if hub is None:
            return np.arange(len(self.source_codes))
        members = hub if isinstance(hub, tuple) else (hub,)  # a tuple: a group of sources (routing)
        codes = [self.source_names.index(m) for m in members if m in self.source_names]
        rows = np.flatnonzero(np.isin(self.source_codes, codes))
        if not len(rows) and not isinstance(hub, tuple):
            known = ", ".join(self.sources) or "none"
            raise UsageError(f"unknown source {cut(hub, MAX_NAME_CHARS)!r} (this index has: {known})")
        return rows

    def _scorer(self, hub: Any) -> tuple[np.ndarray, Any]:
        hub = hub or None
        cached = self._scorers.get(hub)
        if cached is None:
            rows = self._rows(hub)
            if self.scoring == "matrix":
                tf = self.term_frequencies()
                scorer: Any = Bm25Scorer(tf if hub is None else tf[rows], self.params)
            else:
                assert self.postings is not None
                scorer = PostingsScorer(self.postings, rows, self.params)
            cached = self._scorers[hub] = (rows, scorer)
        return cached

    def scores(self, query: str, hub: str | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(rows, scores): index rows of the searched pool and their BM25 score for `query`."""
        rows, scorer = self._scorer(hub)
        counts = Counter(t for t in tokenize(query) if t in self.vocab)
        return rows, scorer.scores([self.vocab[t] for t in counts], list(counts.values()))

    def best_possible(self, query: str, hub: str | None = None) -> float:
        """The query's best possible BM25 score in the pool of `hub` (Bm25Scorer.best_possible; every
        query term counts, also those the pool lacks)."""
        _, scorer = self._scorer(hub)
        counts = Counter(tokenize(query))
        return scorer.best_possible([self.vocab.get(t) for t in counts], list(counts.values()))

    def _bm25(self, query: str, hub: str | None) -> tuple[np.ndarray, np.ndarray]:
        """BM25 (rows, scores), retried once with QUERY_SYNONYMS when no doc shares a term."""
        rows, scores = self.scores(query, hub)
        if not top_k(scores, 1):  # no doc shares a term: retry once with everyday synonyms added
            expanded = expand_query(query)
            if expanded != query:
                rows, scores = self.scores(expanded, hub)
        return rows, scores

    def source_scores(self, query: str) -> dict[str, float]:
        """Per source, how well its best doc matches `query`, 0..1 (retrieve/routing.py source_scores),
        with routing.ROUTING_IDF read at each call (where tests patch it)."""
        return source_routing.source_scores(self, query, source_routing.ROUTING_IDF)

    def next_unit(self, query: str, source: str) -> str | tuple[str, ...] | None:
        """The routing unit after `source`'s for `query` (retrieve/routing.py next_unit): a source, a group's
        tuple of sources, or None."""
        return source_routing.next_unit(self, query, source)

    def fit_signals(self, query: str) -> dict[str, float | None]:
        """How well the whole index fits `query` (retrieve/fit.py retrieval_signals: the best normalised
        BM25 score, the share of known words, the best dense cosine and its margin)."""
        return fit.retrieval_signals(self, query)

    def source_cosine(self, query: str, source: str) -> float | None:
        """The best dense cosine of `query` over the docs of `source` (retrieve/fit.py source_cosine)."""
        return fit.source_cosine(self, query, source)

    def needs_translation(self, query: str) -> bool:
        """Whether `query` is searched better in English (retrieve/fit.py needs_translation: not English, and
        most of its words unknown to this index)."""
        return fit.needs_translation(self, query)

    def ranked(self, query: str, hub: str | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, Any]:
        """(rows, fused, bm25, dense) of one pool: fused is the RRF score (retrieve/dense.rrf) of BM25 and
        dense (each source's dense weight and fusion depth, fusion_settings(); the weight at most
        dense.POOLED_DENSE_CAP in a pool of several sources, FusionSettings.for_pool), or
        the BM25 score itself when dense retrieval is off, BM25 times each doc's prior (prior())
        for the pools that have one; bm25 is the plain BM25 score; dense is (cosine, mask) or None."""
        rows, bm25 = self._bm25(query, hub)
        ranking = bm25
        if self._has_prior(hub):
            ranking = bm25 * self.prior()[rows]
        assert self.dense is not None
        dense = self.dense.scores(query, rows) if len(rows) else None
        if dense is None:
            return rows, ranking, bm25, None
        fused = self.fusion_settings().fuse(ranking, dense, rows, self._members(hub))
        return rows, fused, bm25, dense

    def _members(self, hub: Any) -> tuple[str, ...]:
        """The sources of the pool `hub` (a source, a tuple of sources, None: every source)."""
        return tuple(self.sources) if hub is None else hub if isinstance(hub, tuple) else (hub,)

    def _has_prior(self, hub: Any) -> bool:
        """Whether the pool `hub` holds a source of prior.PRIOR_SOURCES."""
        return any(m in doc_prior.PRIOR_SOURCES for m in self._members(hub))

    def fusion_settings(self) -> FusionSettings:
        """The settings the fusion uses (fusion): a benchmark's own when it set them, else the shipped
        manifests' (FusionSettings.shipped: each source's `dense_weight` and `fusion_depth`), read once."""
        if self.fusion is None:
            assert self.source_codes is not None
            self.fusion = FusionSettings.shipped(self.sources, self.source_codes)
        return self.fusion

    def intent(self, query: str) -> str:
        """`query` as search() reads it: its literal values replaced by the word of their kind
        (query/literals.py intent_text with this index's vocabulary; the query itself when nothing else
        is left, or with literals=False)."""
        return (intent_text(query, self.vocab) or query) if self.literals else query

    def search(self, query: str, k: int = 5, hub: str | None = None) -> list[Hit]:
        """The k best hits for `query` (1-based ranks, best first), from every source or only `hub`.

        Hybrid when the index has dense vectors (BM25 and dense rankings fused by RRF, retrieve/dense.py),
        else BM25 alone. Hit.score stays the doc's BM25 score in the pool it was ranked in (0 for a doc
        found by the dense side alone). Without dense, only docs sharing at least one term with the query
        are returned (so fewer than k, possibly none); a query sharing no term at all is retried once with
        QUERY_SYNONYMS added (expand_query). Over every source, ROUTING decides how the sources are merged.
        Equal scores keep index order. Raises UsageError for an unknown hub or k < 1.

        The query's literal values (URLs, file names and paths, quoted text, numbers, e-mail addresses...)
        are replaced by the word of their kind first (query/literals.py intent_text, with this index's
        vocabulary: a repository or model id the pool names stays), so they cannot decide which API is
        found; BM25, the dense side and source routing all see that text (the query itself when nothing
        else is left). Off with literals=False.
        """
        if k < 1:
            raise UsageError(f"k must be at least 1, not {k}")
        unnamed = direction.unnamed_libraries(query)  # as typed: a backticked `df` names pandas
        query = self.intent(query)
        sources = self.sources
        way = direction.task_direction(query), direction.io_direction(query), unnamed  # other way: out / last
        if hub or len(sources) < 2 or self.routing == "global":
            return self._as_hits(self._top(*self.ranked(query, hub), k, way))
        # "source" routing (retrieve/routing.py): groups of sources in the order of their best
        # source_scores, each ranked alone (fused with dense)
        best = source_routing.by_meaning(self, query, self.source_scores(query))  # close calls: dense
        ranked = self.ranked
        order = source_routing.routed(sources, best, k, lambda pool: self._top(*ranked(query, pool), k, way))
        return self._as_hits(order[:k])  # _Top: docs are read at the end

    def _top(
        self, rows: np.ndarray, fused: np.ndarray, bm25: np.ndarray, dense: Any, k: int, way: Any
    ) -> list[_Top]:
        """(index row, BM25 score, dense cosine or None, fused score) of the k best fused scores of one pool.
        dense: ranked()'s (cosine, mask) or None; a doc without a vector (mask False) has no cosine. way: the
        task's (direction.task_direction, io_direction); when it states one, of the REVERSED_DEPTH * k best
        docs those whose domain goes the other way are left out, one that does exactly what the task states
        reaches the k (direction.kept_in_direction), and readers for a task that writes, writers for one
        that reads, rank last (direction.kept_in_io); the docs of a library the task does not name
        (direction.unnamed_libraries) rank lower among the LIBRARY_DEPTH best (named_first)."""
        modal, io, unnamed = way
        depth = direction.search_depth(k, modal, io)
        unnamed = unnamed if direction.indexed(self.meta, self.path is None) else frozenset()  # default: none
        kept = [pos for pos, _ in top_k(fused, max(depth, direction.LIBRARY_DEPTH) if unnamed else depth)]
        if unnamed:
            lib = lambda pos: direction.library_of(self.docs[int(rows[pos])])  # noqa: E731
            kept = direction.named_first(kept, lambda pos: float(fused[pos]), lib, unnamed)[:depth]
        kept = direction.kept_in_direction(kept, k, modal, lambda pos: self.docs[int(rows[pos])].domain)
        kept = direction.kept_in_io(kept, io, lambda pos: self.docs[int(rows[pos])].api_name)
        out: list[_Top] = []
        for pos in kept[:k]:
            cos = float(dense[0][pos]) if dense is not None and dense[1][pos] else None
            out.append((int(rows[pos]), float(bm25[pos]), cos, float(fused[pos])))
        return out

    def _as_hits(self, top: list[_Top]) -> list[Hit]:
        """Hits (1-based ranks) of _top's triples: only these docs are read (LazyDocs)."""
        return [
            Hit(doc=self.docs[row], score=score, rank=rank, dense=cos, fused=fused)
            for rank, (row, score, cos, fused) in enumerate(top, start=1)
        ]


#: One ranked doc of a pool before it is read: (index row, BM25 score, dense cosine or None, fused score).
_Top = tuple[int, float, "float | None", float]
