"""The retriever: code-aware tokenizer, BM25 over a sparse term-frequency matrix, and ApiIndex.search.

A search scores from the index's postings (retrieve/bm25.py, numpy only) and parses only the docs it shows
(store.LazyDocs); scipy builds the matrix at refresh time (term_matrix) and backs the reference scorer
(Bm25Scorer), both imported only there (issue 20: a cold `search` in <= 0.3 s)."""

from __future__ import annotations

import re
import unicodedata
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from gorilla_tui.errors import GorillaError, UsageError
from gorilla_tui.pool.doc import ApiDoc
from gorilla_tui.pool.metrics import Performance
from gorilla_tui.pool.sources import load_manifests
from gorilla_tui.retrieve import store
from gorilla_tui.retrieve.bm25 import IDF_MODES, Bm25Params, Postings, PostingsScorer, idf_vector, top_k
from gorilla_tui.retrieve.dense import DENSE_WEIGHT_KEY, W_BM25, W_DENSE, DenseSide, rrf
from gorilla_tui.retrieve.metadata import PerformanceTable
from gorilla_tui.types import Hit

if TYPE_CHECKING:
    from scipy import sparse

#: Bumped when tokenize() or doc_text() change (an index built by another version must be rebuilt).
#: 3: Unicode-aware (casefold, accents folded, non-ASCII letters kept in words), linear camelCase runs,
#: tokens capped at MAX_TOKEN_CHARS. 4: Chinese/Japanese/Korean runs split into character bigrams.
TOKENIZER_VERSION = 4

#: Longest term kept, in characters: longer terms (a 250 KB "word" in a description, a base64 blob) are
#: truncated to their first MAX_TOKEN_CHARS characters, in docs and queries alike, so they still match each
#: other and cannot bloat the vocabulary. Real model ids are shorter (APIBench's longest are ~60 chars).
MAX_TOKEN_CHARS = 64

# Every pattern below is linear in the length of its input (no nested quantifier can re-scan a run): the
# former camelCase-run pattern [A-Za-z]*[a-z][A-Z][A-Za-z]* re-scanned each run from every start position
# (quadratic: tokenize("x" * 40000) took 13 s). "Letter" is any Unicode word character that is neither a
# digit nor "_"; camelCase splitting only looks at ASCII capitals (non-ASCII letters count as lower case,
# so "Ünïcödé" stays one word).
_LOWER = r"[^\W\dA-Z_]"
_CHUNK_RE = re.compile(r"[^\W_]+(?:[-_./:][^\W_]+)*")
_PART_RE = re.compile(rf"[A-Z]+(?=[A-Z]{_LOWER})|[A-Z]?{_LOWER}+|[A-Z]+|\d+")
_LETTER_RUN_RE = re.compile(r"[^\W\d_]+")
_CAMEL_EDGE_RE = re.compile(r"[a-z][A-Z]")
#: Chinese, Japanese and Korean characters (Unicode blocks: CJK Unified Ideographs and Extension A,
#: Compatibility Ideographs, Hiragana, Katakana and its phonetic extensions, Hangul syllables and jamo,
#: halfwidth Katakana/Hangul). Their text has no spaces between words, so a run of them is indexed as
#: overlapping character bigrams (a lone character as itself), as Lucene's CJKAnalyzer does.
_CJK = (
    "\u1100-\u11ff\u3040-\u309f\u30a0-\u30ff\u3130-\u318f\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
    "\uac00-\ud7af\uf900-\ufaff\uff66-\uffdc"
)
_CJK_RUN_RE = re.compile(f"[{_CJK}]+")
_HAS_CJK_RE = re.compile(f"[{_CJK}]")
#: Combining marks of Latin, Greek and Cyrillic letters (Unicode blocks 0300-036F, 1AB0-1AFF, 1DC0-1DFF,
#: 20D0-20FF, FE20-FE2F), dropped after NFKD so "café" matches "cafe"; marks of other scripts are kept.
_ACCENT_RE = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")
#: English function words and the boilerplate of task phrasing ("Give me an API that can ...").
STOPWORDS = frozenset(
    """a an the of to in on for and or is are be been being can could would should will shall may might must
    i me my we our us you your he she it its they them their this that these those there here what which who
    whom how when where why with without from by as at into onto about than then so such some any all each
    do does did done have has had having get gets got am was were not no if but also just only very
    please want wants need needs like help api apis""".split()
)


def _stem(part: str) -> str:
    """A light plural folding (images -> image, libraries -> library); leaves short words and -ss/-us/-is."""
    if len(part) > 4 and part.endswith("ies"):
        return part[:-3] + "y"
    if len(part) > 3 and part.endswith("s") and not part.endswith(("ss", "us", "is")):
        return part[:-1]
    return part


def cjk_bigrams(run: str) -> list[str]:
    """Overlapping character bigrams of a run of CJK characters ("图像分类" -> 图像, 像分, 分类); a run of one
    character gives itself. The bigram scheme of Lucene's CJKAnalyzer (CJKBigramFilter)."""
    if len(run) < 2:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def _cjk_terms(part: str) -> list[str]:
    """A part with CJK characters: the bigrams of each CJK run, and the other runs of the part as they are."""
    out: list[str] = []
    last = 0
    for m in _CJK_RUN_RE.finditer(part):
        if m.start() > last:
            out.append(part[last : m.start()])
        out.extend(cjk_bigrams(m.group()))
        last = m.end()
    if last < len(part):
        out.append(part[last:])
    return out


def fold(text: str) -> str:
    """`text` with compatibility forms and accents folded (NFKD, Latin/Greek/Cyrillic combining marks
    dropped, NFC): "café" -> "cafe", "ﬁle" -> "file", fullwidth "ＡＰＩ" -> "API".
    ASCII text is returned as is."""
    if text.isascii():
        return text
    return unicodedata.normalize("NFC", _ACCENT_RE.sub("", unicodedata.normalize("NFKD", text)))


def tokenize(text: str) -> list[str]:
    """Split text into BM25 terms, in order (duplicates kept: term frequency counts).

    A chunk is a run of letters/digits joined by ``- _ . / :`` (``bert-base-uncased``, ``torch.hub.load``,
    ``ResNet50``). Each chunk yields its parts (split on the joiners, on camelCase and on letter/digit
    boundaries, lower-cased, English stop words dropped, plurals folded), each camelCase word whole
    (``ResNet`` -> ``resnet``), and the whole chunk lower-cased when that differs from its single part: model
    ids stay findable as one term (``resnet50``, ``bert-base-uncased``) and a plural keeps its surface form
    beside the folded one (``images`` -> ``image``, ``images``), so exact matches score higher.
    Example: ``AutoModel.from_pretrained('bert-base')`` -> auto, model, pretrained, automodel,
    automodel.from_pretrained, bert, base, bert-base.

    Unicode: the text is folded first (fold(): "café" -> "cafe"), letters of any script count, runs of
    Chinese, Japanese or Korean characters become overlapping character bigrams (cjk_bigrams: a task that is
    a substring of a doc's text shares its terms), and terms are case-folded (str.casefold: "Straße" ->
    "strasse"). Terms longer than MAX_TOKEN_CHARS are truncated to that length. Runs in time linear in
    len(text).
    """
    cap = MAX_TOKEN_CHARS
    tokens: list[str] = []
    for m in _CHUNK_RE.finditer(fold(text)):
        chunk = m.group()
        parts = [_stem(p.casefold()) for p in _PART_RE.findall(chunk)]
        if _HAS_CJK_RE.search(chunk):  # no spaces between words: bigrams, and no whole-chunk term
            tokens.extend(t[:cap] for p in parts for t in _cjk_terms(p) if t not in STOPWORDS)
            continue
        tokens.extend(p[:cap] for p in parts if p not in STOPWORDS)
        whole = chunk.casefold()
        for run in _LETTER_RUN_RE.findall(chunk):  # "ResNet" -> "resnet" beside "res", "net"
            if _CAMEL_EDGE_RE.search(run) and run.casefold() != whole:
                tokens.append(run.casefold()[:cap])
        if len(parts) != 1 or parts[0] != whole:  # compounds, and words changed by plural folding
            if whole not in STOPWORDS:
                tokens.append(whole[:cap])
    return tokens


#: How many times each ApiDoc field is repeated in the text BM25 sees (a field weight). Chosen among a few
#: variants by domain@1 on the APIBench eval tasks (bench/retrieval.py; differences were within ~2 points);
#: eval questions are never indexed.
FIELD_WEIGHTS: dict[str, int] = {
    "domain": 2,
    "functionality": 2,
    "api_name": 1,
    "description": 1,
    "api_call": 1,
    "questions": 1,
    "framework": 1,
}


def doc_text(doc: ApiDoc, weights: dict[str, int] | None = None) -> str:
    """The text of `doc` that BM25 indexes: the fields that describe what the API does, each repeated
    `weights[field]` times (default FIELD_WEIGHTS). api_arguments names and example code are left out:
    they describe how to call the API, not what it does, and add noise."""
    weights = FIELD_WEIGHTS if weights is None else weights
    parts: list[str] = []
    for name, times in weights.items():
        value = getattr(doc, name, "")
        text = " ".join(value) if isinstance(value, list) else str(value or "")
        parts.extend([text] * times)
    return "\n".join(parts)


# ---------------------------------------------------------------------------------------------------------
# BM25 on a sparse matrix


def term_matrix(
    token_lists: Iterable[Sequence[str]], vocab: dict[str, int] | None = None
) -> tuple[sparse.csr_matrix, dict[str, int]]:
    """Term-frequency matrix (n_docs x n_terms, float32 CSR) of tokenised docs, and the vocabulary
    (term -> column; extended in place when given).

    `token_lists` may be a generator: each doc's tokens are counted and dropped at once, and the postings
    go to compact int32 arrays, so building from 200k docs never holds every token list (that took ~1 GB).
    """
    from scipy import sparse  # deferred: scipy (~0.2 s); built at refresh, never on the query path

    vocab = {} if vocab is None else vocab
    indptr = array("q", [0])
    indices = array("i")
    data = array("f")
    for tokens in token_lists:
        counts = Counter(tokens)
        indices.extend([vocab.setdefault(term, len(vocab)) for term in counts])
        data.extend(counts.values())
        indptr.append(len(indices))
    shape = (len(indptr) - 1, len(vocab))
    matrix = sparse.csr_matrix(
        (
            np.frombuffer(data, np.float32).copy(),
            np.frombuffer(indices, np.int32).copy(),
            np.frombuffer(indptr, np.int64).copy(),
        ),
        shape=shape,
    )
    return matrix, vocab


class Bm25Scorer:
    """BM25 scores of a fixed set of docs, computed as one sparse matrix product per query: the reference
    that bm25.PostingsScorer (what ApiIndex searches with) matches bit for bit; imports scipy.

    `tf`: term frequencies (n_docs x n_terms). At construction each non-zero tf(d, t) becomes its final
    contribution idf(t) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * |d| / avgdl)) (|d| = tokens in d), stored
    column-major, so a query only touches the columns of its own terms: O(postings of the query terms).
    Gives the same scores as rank_bm25.BM25Okapi.get_scores (idf "okapi"; tests/unit/test_retrieval.py
    checks it on the APIBench pools). Raises GorillaError for an empty corpus or one whose docs are all empty
    (where rank_bm25 divides by zero).
    """

    def __init__(self, tf: sparse.csr_matrix, params: Bm25Params | None = None) -> None:
        from scipy import sparse  # deferred: scipy (~0.2 s); the reference scorer, not the query path

        self.params = params or Bm25Params()
        n_docs = tf.shape[0]
        if n_docs == 0:
            raise GorillaError("the API pool is empty: nothing to index")
        lengths = np.asarray(tf.sum(axis=1)).ravel()
        total = float(lengths.sum())
        if total == 0:
            raise GorillaError(f"every document is empty ({n_docs} docs without a single indexable word)")
        avgdl = total / n_docs
        tf = tf.tocsr()
        if not tf.has_canonical_format:  # duplicate entries would count twice in df
            tf = tf.copy()
            tf.sum_duplicates()
        df = np.bincount(tf.indices, minlength=tf.shape[1])
        idf = idf_vector(df, n_docs, self.params)
        k1, b = self.params.k1, self.params.b
        rows = np.repeat(np.arange(n_docs), np.diff(tf.indptr))
        freq = tf.data.astype(np.float64)
        weight = idf[tf.indices] * freq * (k1 + 1) / (freq + k1 * (1 - b + b * lengths[rows] / avgdl))
        del rows, freq
        self.weights = sparse.csr_matrix((weight, tf.indices, tf.indptr), shape=tf.shape).tocsc()
        self.n_docs = n_docs
        self.idf = idf
        #: idf of a term no doc has (df = 0), by the same formula: what a query term missing here is worth.
        self.missing_idf = float(idf_vector(np.array([0.5]), n_docs, Bm25Params(idf="lucene"))[0])

    def best_possible(self, columns: Sequence[int | None], counts: Sequence[float]) -> float:
        """An upper bound of any doc's score for a query: sum of count * idf * (k1 + 1) over its terms (the
        limit of BM25's saturation), a term that no doc here has (column None or df 0) counted at
        missing_idf. Dividing a doc's score by it gives the share of the query's information the doc
        matches, comparable across pools of different sizes and vocabularies (ApiIndex routing)."""
        total = 0.0
        for col, count in zip(columns, counts, strict=True):
            idf = self.idf[col] if col is not None and self.idf[col] > 0 else self.missing_idf
            total += count * idf * (self.params.k1 + 1)
        return total

    def scores(self, columns: Sequence[int], counts: Sequence[float]) -> np.ndarray:
        """Scores of every doc (float64, length n_docs) for a query given as vocabulary columns and their
        counts in the query (a term repeated in the query counts again, as in rank_bm25)."""
        if not len(columns):
            return np.zeros(self.n_docs)
        sub = self.weights[:, list(columns)]
        return np.asarray(sub @ np.asarray(counts, np.float64)).ravel()


# ---------------------------------------------------------------------------------------------------------
# ApiIndex


#: How a search over every source (no hub named) keeps one source from crowding out the others:
#: "source" (default) ranks each source on its own (its own BM25 IDF and lengths, fused with dense) and
#: puts the sources in the order of their best *normalised* BM25 score (score / the query's best possible
#: score in that source, Bm25Scorer.best_possible: the share of the task's information the source's best
#: doc matches); when no source shares a word with the task (another language), in the order of their best
#: cosine similarity. "global" fuses one BM25 over every doc with dense (the 0.x behaviour). Chosen on
#: hand-written dev tasks (bench/data/*_dev_tasks.toml, tests/data/stdlib_tasks.toml; bench/retrieval.py).
ROUTING = "source"
ROUTINGS = ("source", "global")
#: Sources routed as one group (one BM25 over their docs together, fused with dense): the APIBench model
#: hubs (index/apibench-*.toml) answer the same kind of task, and ranking each alone let the Torch Hub pool
#: (expanded with training questions) win every model task (TF Hub eval, no hub named: domain@1 5.5 %).
GROUPS: tuple[frozenset[str], ...] = (frozenset({"torchhub", "tensorflowhub", "huggingface"}),)
#: "source" routing: when the second source (or group) scores at least this share of the first's
#: source_scores, its best hit takes the second place of the k hits (instead of coming after all of the
#: first's), so a close call between, say, a model hub and APIZoo leaves the right doc among the hits
#: for the choice to pick. Chosen on the dev half of bench/everyday_tasks.toml (hit@5 82.9 % without,
#: 85.7 % at 0.7-0.85), with no change on the routing dev sets (tests/data/stdlib_tasks.toml,
#: bench/data/apizoo_dev_tasks.toml, bench/data/hub_dev_tasks.toml): the largest value of that plateau,
#: so the fewest tasks get a hit from a second source (at 0.8, "classify the actions in short video
#: clips" got yfinance's Actions API, 0.80 of the hubs' score, for one shared word). One hit, not
#: alternating hits: a second source that matched on a shared word costs the first one place.
ROUTING_MARGIN = 0.85


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
    recorded (sources with counts, diagnostics, built time, sizes; see gorilla_tui.retrieve.refresh);
    path: the version folder it was loaded from (None when built in memory); source_names / source_codes:
    the sources in index order and each doc's position in that list (int16 per doc; derived from docs when
    not given, read from the store otherwise so no doc is parsed to route a search); scoring: see SCORINGS.
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
    routing: str = ROUTING
    postings: Postings | None = field(default=None, repr=False)
    source_names: list[str] | None = None
    source_codes: np.ndarray | None = field(default=None, repr=False)
    scoring: str = "postings"
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
    #: Each doc's dense weight in the fusion (dense_weights by its source, through source_codes: no doc
    #: parsed), computed on first use.
    _w_dense: np.ndarray | None = field(default=None, repr=False)

    def performance(self, doc: ApiDoc) -> Performance:
        """`doc`'s normalised performance metadata (pool/metrics.py): from the table a refresh stored with
        this index (retrieve/metadata.py), read once; for an index built in memory, normalised on first use
        and kept."""
        if self._performance is None:
            stored = PerformanceTable.load(self.path) if self.path is not None else None
            self._performance = stored or PerformanceTable()
        return self._performance.get(doc)

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
        """Tokenise `docs` (doc_text + tokenize) and build an in-memory index (BM25 only; attach vectors
        with index.dense.attach). tokens(doc): a doc's tokens when the caller already has them (a refresh
        reusing an unchanged source's term counts from the live index), None to tokenise it.

        Raises GorillaError for no docs, or when every doc is empty (no indexable word).
        """
        if not docs:
            raise GorillaError("the API pool is empty: nothing to index")
        known = tokens or (lambda doc: None)
        tf, vocab = term_matrix(
            toks if (toks := known(d)) is not None else tokenize(doc_text(d)) for d in docs
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
        GorillaError when it is unreadable or was built by an incompatible version.
        """
        stored = store.read_stored(Path(path) if path is not None else None)
        if stored.meta.get("tokenizer_version") != TOKENIZER_VERSION:
            raise GorillaError(
                f"the index at {stored.folder} uses an older tokenizer; rebuild it", hint=store.REBUILD_HINT
            )
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
            raise UsageError(f"unknown source {hub!r} (this index has: {known})")
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
        """Per source, how well its best doc matches `query` (the "source" ROUTING rule): best BM25 score /
        best possible score (0..1), or, when no source shares a word with the query, the best cosine
        similarity minus 1 (-2..0, so any word match ranks first). Sources without vectors then get -2."""
        out: dict[str, float] = {}
        for s in self.sources:
            _, bm25 = self._bm25(query, s)
            best = float(bm25.max()) if len(bm25) else 0.0
            out[s] = best / max(self.best_possible(query, s), 1e-9) if best > 0 else 0.0
        if any(v > 0 for v in out.values()):
            return out
        assert self.dense is not None
        for s in self.sources:
            rows, _ = self._scorer(s)
            d = self.dense.scores(query, rows)
            out[s] = float(np.max(np.where(d[1], d[0], -1.0))) - 1.0 if d is not None else -2.0
        return out

    def ranked(self, query: str, hub: str | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, Any]:
        """(rows, fused, bm25, dense) of one pool: fused is the RRF score (retrieve/dense.rrf) of BM25 and
        dense, or the BM25 score itself when dense retrieval is off; dense is (cosine, mask) or None."""
        rows, bm25 = self._bm25(query, hub)
        assert self.dense is not None
        dense = self.dense.scores(query, rows) if len(rows) else None
        if dense is None:
            return rows, bm25, bm25, None
        if self._w_dense is None:
            assert self.source_names is not None and self.source_codes is not None
            weights = self.dense_weights()
            per_source = np.array([weights.get(s, W_DENSE) for s in self.source_names], float)
            self._w_dense = per_source[self.source_codes]
        return rows, rrf(bm25, dense[0], dense[1], weights=(W_BM25, self._w_dense[rows])), bm25, dense

    def dense_weights(self) -> dict[str, float]:
        """Source -> its dense weight in the fusion: the DENSE_WEIGHT_KEY of its shipped manifest
        (index/*.toml) when that is a positive number, else W_DENSE (user sources too)."""
        out: dict[str, float] = {}
        try:
            manifests = load_manifests()
        except UsageError:  # a broken shipped manifest: the refresh reports it; searching goes on
            manifests = []
        for m in manifests:
            value = m.extra.get(DENSE_WEIGHT_KEY, W_DENSE)
            if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
                out[m.name] = float(value)
        return out

    def search(self, query: str, k: int = 5, hub: str | None = None) -> list[Hit]:
        """The k best hits for `query` (1-based ranks, best first), from every source or only `hub`.

        Hybrid when the index has dense vectors (BM25 and dense rankings fused by RRF, retrieve/dense.py),
        else BM25 alone. Hit.score stays the doc's BM25 score in the pool it was ranked in (0 for a doc
        found by the dense side alone). Without dense, only docs sharing at least one term with the query
        are returned (so fewer than k, possibly none); a query sharing no term at all is retried once with
        QUERY_SYNONYMS added (expand_query). Over every source, ROUTING decides how the sources are merged.
        Equal scores keep index order. Raises UsageError for an unknown hub or k < 1.
        """
        if k < 1:
            raise UsageError(f"k must be at least 1, not {k}")
        sources = self.sources
        if hub or len(sources) < 2 or self.routing == "global":
            rows, fused, bm25, _ = self.ranked(query, hub)
            return self._as_hits(self._top(rows, fused, bm25, k))
        # "source" routing: groups of sources (GROUPS; any other source alone) in the order of their best
        # source_scores, each ranked alone (fused with dense)
        best = self.source_scores(query)
        groups: list[tuple[str, ...]] = []
        for s in sorted(sources, key=lambda s: -best[s]):
            group = next((g for g in GROUPS if s in g), frozenset({s}))
            members = tuple(m for m in sources if m in group)
            if members not in groups:
                groups.append(members)
        scores = [max(best[m] for m in members) for members in groups]
        per_group: list[list[tuple[int, float]]] = []  # (index row, BM25 score): docs are read at the end
        for members in groups:
            rows, fused, bm25, _ = self.ranked(query, members[0] if len(members) == 1 else members)
            per_group.append(self._top(rows, fused, bm25, k))
            if sum(map(len, per_group)) >= k and len(per_group) >= 2:
                break
        order = [h for group in per_group for h in group]
        if len(per_group) >= 2 and scores[0] > 0 and scores[1] >= ROUTING_MARGIN * scores[0]:
            # a close second source: its best hit takes the second place, so it reaches the k hits
            first, second = per_group[0], per_group[1]
            order = first[:1] + second[:1] + first[1:] + second[1:]
            order += [h for group in per_group[2:] for h in group]
        return self._as_hits(order[:k])

    def _top(self, rows: np.ndarray, fused: np.ndarray, bm25: np.ndarray, k: int) -> list[tuple[int, float]]:
        """(index row, BM25 score) of the k best fused scores of one pool, best first."""
        return [(int(rows[pos]), float(bm25[pos])) for pos, _ in top_k(fused, k)]

    def _as_hits(self, top: list[tuple[int, float]]) -> list[Hit]:
        """Hits (1-based ranks) of (index row, BM25 score) pairs: only these docs are read (LazyDocs)."""
        return [
            Hit(doc=self.docs[row], score=score, rank=rank) for rank, (row, score) in enumerate(top, start=1)
        ]


#: Everyday words -> the words API docs use for the same thing. Used only when a query shares no term
#: with the pool (e.g. TensorFlow Hub docs never say "picture" or "photo", only "image"), so it cannot
#: change the ranking of a query that already has hits. General vocabulary, not taken from eval answers.
QUERY_SYNONYMS: dict[str, str] = {
    "picture": "image",
    "photo": "image",
    "photograph": "image",
    "pic": "image",
    "snapshot": "image",
    "selfie": "image face",
    "clip": "video",
    "footage": "video",
    "movie": "video",
    "film": "video",
    "voice": "speech audio",
    "spoken": "speech audio",
    "recording": "audio",
    "song": "audio music",
    "sound": "audio",
    "paragraph": "text",
    "sentence": "text",
    "article": "text",
    "review": "text sentiment",
}


def expand_query(query: str) -> str:
    """`query` plus the QUERY_SYNONYMS of its terms (after tokenize's folding), or `query` unchanged."""
    extra = [QUERY_SYNONYMS[t] for t in tokenize(query) if t in QUERY_SYNONYMS]
    return f"{query} {' '.join(extra)}" if extra else query


def iter_terms(docs: Iterable[ApiDoc]) -> Iterable[list[str]]:
    """Tokenised doc_text of each doc (what the index is built from); for tests and benchmarks."""
    for d in docs:
        yield tokenize(doc_text(d))


__all__ = [
    "ApiIndex",
    "Bm25Params",
    "IDF_MODES",
    "Postings",
    "PostingsScorer",
    "SCORINGS",
    "Bm25Scorer",
    "FIELD_WEIGHTS",
    "MAX_TOKEN_CHARS",
    "QUERY_SYNONYMS",
    "ROUTING",
    "ROUTINGS",
    "STOPWORDS",
    "TOKENIZER_VERSION",
    "cjk_bigrams",
    "doc_text",
    "expand_query",
    "fold",
    "idf_vector",
    "iter_terms",
    "term_matrix",
    "tokenize",
    "top_k",
]
