"""The retriever's tokenizer: code-aware words (camelCase, snake_case, dotted and slashed ids split and kept
whole), Unicode folding, Chinese/Japanese/Korean character bigrams, a light stemmer; the doc text BM25
indexes (doc_text: FIELD_WEIGHTS or the source's SOURCE_FIELD_WEIGHTS, the words of concatenated names,
description sentences a source repeats left out) and the everyday synonyms a query without any shared
term is retried with (QUERY_SYNONYMS)."""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from gorilla_tui.errors import GorillaError, IndexOutdatedError
from gorilla_tui.pool.doc import ApiDoc

#: Bumped when tokenize() or doc_text() change (an index built by another version must be rebuilt).
#: 3: Unicode-aware (casefold, accents folded, non-ASCII letters kept in words), linear camelCase runs,
#: tokens capped at MAX_TOKEN_CHARS. 4: Chinese/Japanese/Korean runs split into character bigrams.
#: 5: per-source field weights (SOURCE_FIELD_WEIGHTS), the words of a concatenated name (name_words) and
#: description sentences repeated across a source (boilerplate_sentences) in doc_text. 6: the index
#: stores each doc's prior (store/prior.py, prior.npy), which python-env's BM25 ranking is weighted by.
#: 7: the prior has a usage part (how many standard-library files reference the API, prior.usage_files).
#: 8: the prior favours the docs hand-written questions expand (prior.HAND_QUESTIONS_FACTOR).
#: 9: the prior has a usage part for installed libraries' docs too (prior.library_files).
TOKENIZER_VERSION = 9

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
_CJK_SPLIT_RE = re.compile(f"([{_CJK}]+)")
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


#: The characters that join the runs of a chunk (_CHUNK_RE): stripped from the ends of a run cut out of
#: a chunk at its CJK runs.
_JOINERS = "-_./:"


def _mixed_terms(chunk: str) -> list[str]:
    """The terms of a chunk with CJK characters: the bigrams of each CJK run (cjk_bigrams) and the terms of
    each run between them as of any chunk (_chunk_terms). The runs are cut apart first: CJK characters
    count as lower-case letters for the camelCase split, so "JSON文件" gave "jso", "n文件" and the term
    "json" was lost ("读取一个JSON文件" found no JSON doc). A run between them loses the joiners at its ends
    (_JOINERS), so it gets the terms it has alone: "读取.json文件" gave "json" and the junk ".json", and a
    lone joiner between two CJK runs ("图像.分类") the term "."."""
    out: list[str] = []
    for piece in _CJK_SPLIT_RE.split(chunk):
        if _HAS_CJK_RE.match(piece):
            out.extend(cjk_bigrams(piece))
        elif piece := piece.strip(_JOINERS):
            out.extend(_chunk_terms(piece))
    return out


def _chunk_terms(chunk: str) -> list[str]:
    """The terms of a chunk without CJK characters, stop words included (see tokenize)."""
    parts = [_stem(p.casefold()) for p in _PART_RE.findall(chunk)]
    terms = list(parts)
    whole = chunk.casefold()
    for run in _LETTER_RUN_RE.findall(chunk):  # "ResNet" -> "resnet" beside "res", "net"
        if _CAMEL_EDGE_RE.search(run) and run.casefold() != whole:
            terms.append(run.casefold())
    if len(parts) != 1 or parts[0] != whole:  # compounds, and words changed by plural folding
        terms.append(whole)
    return terms


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
    a substring of a doc's text shares its terms; a chunk mixing them with other letters is cut at its CJK
    runs first, and each other run gets its terms as a chunk of its own: _mixed_terms), and terms are
    case-folded (str.casefold: "Straße" -> "strasse"). Terms longer than MAX_TOKEN_CHARS are truncated to
    that length. Runs in time linear in len(text).
    """
    cap = MAX_TOKEN_CHARS
    tokens: list[str] = []
    for m in _CHUNK_RE.finditer(fold(text)):
        chunk = m.group()
        # no spaces between CJK words: bigrams, and no whole-chunk term across a CJK run
        terms = _mixed_terms(chunk) if _HAS_CJK_RE.search(chunk) else _chunk_terms(chunk)
        tokens.extend(t[:cap] for t in terms if t not in STOPWORDS)
    return tokens


#: How many times each ApiDoc field is repeated in the text BM25 sees (a field weight). First picked among a
#: few variants on the APIBench eval tasks (differences within ~2 points); checked since on the Torch Hub dev
#: split (bench/field_weights.py, docs/benchmarks.md "BM25 field weights, Torch Hub dev split"): of 54 weight
#: sets none beats these by more than 0.7 points on domain@1, api@1 or api@5, with the docs expanded or not,
#: so they stay. Eval questions are never indexed.
FIELD_WEIGHTS: dict[str, int] = {
    "domain": 2,
    "functionality": 2,
    "api_name": 1,
    "description": 1,
    "api_call": 1,
    "questions": 1,
    "framework": 1,
    "parameters": 1,
}


#: The pseudo-field "parameters" (parameter_text) is the names, descriptions and string enum values of the
#: parameters of a doc that has a parameters schema (ApiDoc.parameters: OpenAI tools, MCP tools/list,
#: BFCL function lists, OpenAPI operations), whose description is often one line and whose parameters say
#: the rest ("city: the city, e.g. Paris"); it adds nothing to the text of a doc without one, so the
#: terms of every other source's docs are unchanged.

#: Field weights of the sources whose docs are not written like the APIBench hubs' (issue 18; chosen on
#: the dev sets: the dev half of bench/everyday_tasks.toml, tests/data/stdlib_tasks.toml,
#: bench/data/apizoo_dev_tasks.toml; BM25 of the source alone, right@1 / right@5):
#: - python-env (pool/pyenv/names.py): its domain is the same for every standard-library doc ("Python
#:   standard library") and its functionality is only "<kind> in <module>", so both weighted 2 made the
#:   module's name outweigh what the docstring says (stdlib_tasks: "compute the median of a list of
#:   numbers" -> numbers.Number); domain 0, functionality 1: stdlib right@1 24 -> 25, right@5 34 -> 36
#:   of 42. "name_words" (name_words()) adds the words of its concatenated names once (zipfile.ZipFile.
#:   extractall -> "zip file extract all"), right@5 36 -> 37.
#: - apizoo: the words of its names once (name_words), as for python-env.
#: Other sources (the APIBench hubs, a user's own) use FIELD_WEIGHTS unchanged.
SOURCE_FIELD_WEIGHTS: dict[str, dict[str, int]] = {
    "python-env": {**FIELD_WEIGHTS, "domain": 0, "functionality": 1, "name_words": 1},
    "apizoo": {**FIELD_WEIGHTS, "name_words": 1},
}
#: Sources whose description sentences repeated in BOILERPLATE_MIN_DOCS or more of their docs are left out
#: of the text BM25 indexes (boilerplate_sentences). APIZoo copies one paragraph about the provider into
#: every endpoint of a file ("yfinance is a Python library that allows you to download historical market
#: data ..." in all 13 yfinance docs), so every endpoint matched "download" as well as the one that
#: downloads (bench/everyday_tasks.toml, zoo-stock-history: the right doc 9th by BM25 before, 4th after;
#: 1st in the hybrid default setting).
BOILERPLATE_SOURCES = frozenset({"apizoo"})
#: A sentence in at least this many docs of one source is boilerplate (3 and 5 gave the same dev results;
#: 2 would also drop a sentence two endpoints happen to share).
BOILERPLATE_MIN_DOCS = 3
#: Concatenated names shorter than this are left whole by name_words (gzip, uuid, ehlo: a split of a short
#: abbreviation is a guess); pieces shorter than NAME_PIECE_MIN_CHARS are dropped ("n" of nlargest).
NAME_WORD_MIN_CHARS = 5
NAME_PIECE_MIN_CHARS = 3
_SENTENCE_END_RE = re.compile(r"(?<=[.!?])\s+")
_NAME_RUN_RE = re.compile(r"[A-Za-z]+")


def sentences(text: str) -> list[str]:
    """`text` split into sentences (after ., ! or ? and white space), white space collapsed."""
    return [x for x in (p.strip() for p in _SENTENCE_END_RE.split(" ".join(text.split()))) if x]


def name_words(name: str) -> str:
    """The English words of the concatenated parts of an API name, space-separated: "extractall" ->
    "extract all", "sendmail" -> "send mail", "PyZipFile" -> "zip file" (camelCase split first, as
    tokenize does). Parts shorter than NAME_WORD_MIN_CHARS and parts that are one word are left out (the
    name itself is indexed already), and so are pieces shorter than NAME_PIECE_MIN_CHARS. The split is
    wordninja's (the most probable words by English Wikipedia unigram frequencies, Zipf's law)."""
    out: list[str] = []
    for run in _NAME_RUN_RE.findall(name):
        for part in _PART_RE.findall(run):
            if len(part) >= NAME_WORD_MIN_CHARS:
                out.extend(_split_word(part.casefold()))
    return " ".join(out)


@functools.lru_cache(maxsize=65536)
def _split_word(word: str) -> tuple[str, ...]:
    """name_words' pieces of one lower-case word (empty when wordninja keeps it whole); cached: module and
    class names repeat in every doc of their module."""
    import wordninja  # deferred: loads its word list (~0.2 s); only an index build splits names

    pieces = wordninja.split(word)
    return tuple(p for p in pieces if len(p) >= NAME_PIECE_MIN_CHARS) if len(pieces) > 1 else ()


def boilerplate_sentences(docs: Iterable[ApiDoc]) -> dict[str, frozenset[str]]:
    """Per source of BOILERPLATE_SOURCES among `docs`: the description sentences (sentences()) found in at
    least BOILERPLATE_MIN_DOCS of its docs. Pass a source's set to doc_text as `boilerplate`."""
    counts: dict[str, Counter[str]] = {}
    for d in docs:
        if d.source in BOILERPLATE_SOURCES and d.description:
            counts.setdefault(d.source, Counter()).update(set(sentences(d.description)))
    return {s: frozenset(x for x, n in c.items() if n >= BOILERPLATE_MIN_DOCS) for s, c in counts.items()}


def parameter_text(doc: ApiDoc) -> str:
    """The names, descriptions and string enum values of the top-level parameters of `doc`'s parameters
    schema, one line each ("" for a doc without one: ApiDoc.parameters None)."""
    schema = doc.parameters
    props = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(props, dict):
        return ""
    lines = []
    for name, spec in props.items():
        spec = spec if isinstance(spec, dict) else {}
        enum = spec.get("enum") if isinstance(spec.get("enum"), list) else []
        words = [str(name), str(spec.get("description") or ""), *(v for v in enum if isinstance(v, str))]
        lines.append(" ".join(w for w in words if w))
    return "\n".join(lines)


def doc_text(
    doc: ApiDoc, weights: dict[str, int] | None = None, boilerplate: frozenset[str] = frozenset()
) -> str:
    """The text of `doc` that BM25 indexes: the fields that describe what the API does, each repeated
    `weights[field]` times (default: SOURCE_FIELD_WEIGHTS of the doc's source, else FIELD_WEIGHTS; the
    pseudo-field "name_words" is name_words(doc.api_name), "parameters" parameter_text(doc), left out
    when empty). Description sentences in `boilerplate` (boilerplate_sentences() of the doc's source) are
    left out. api_arguments names and example code are left out: for the hubs they describe how to call
    the API, not what it does, and add noise; a parameters schema's names and descriptions do say it."""
    if weights is None:
        weights = SOURCE_FIELD_WEIGHTS.get(doc.source, FIELD_WEIGHTS)
    parts: list[str] = []
    for name, times in weights.items():
        if not times:
            continue
        if name == "name_words":
            text = name_words(doc.api_name)
        elif name == "parameters":
            text = parameter_text(doc)
            if not text:
                continue
        elif name == "description" and boilerplate:
            text = " ".join(x for x in sentences(doc.description) if x not in boilerplate)
        else:
            value = getattr(doc, name, "")
            text = " ".join(value) if isinstance(value, list) else str(value or "")
        parts.extend([text] * times)
    return "\n".join(parts)


def doc_terms(docs: Sequence[ApiDoc]) -> Iterable[list[str]]:
    """The BM25 terms of each doc, in order: tokenize(doc_text(doc, boilerplate=its source's
    boilerplate_sentences among `docs`)). What ApiIndex.build indexes."""
    boiler = boilerplate_sentences(docs)
    for d in docs:
        yield tokenize(doc_text(d, boilerplate=boiler.get(d.source, frozenset())))


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


#: The note of a task without a BM25 term (no_terms_note): emoji, symbols and stop words alone.
NO_TERMS_NOTE = "the task has no searchable words (emoji, symbols and stop words are not searched)"


def no_terms_note(task: str) -> str:
    """NO_TERMS_NOTE when tokenize(task) gives no term (BM25 can match no doc: "🚀🔥", "?!", "what is
    this"), else "". The dense side, where the index has one, still searches such a task."""
    return "" if tokenize(task) else NO_TERMS_NOTE


def expand_query(query: str) -> str:
    """`query` plus the QUERY_SYNONYMS of its terms (after tokenize's folding), or `query` unchanged."""
    extra = [QUERY_SYNONYMS[t] for t in tokenize(query) if t in QUERY_SYNONYMS]
    return f"{query} {' '.join(extra)}" if extra else query


def iter_terms(docs: Iterable[ApiDoc]) -> Iterable[list[str]]:
    """Tokenised doc_text of each doc (what the index is built from: doc_terms); for tests and benchmarks."""
    yield from doc_terms(list(docs))


def check_tokenizer(meta: Mapping[str, Any], folder: Path) -> None:
    """Check that the stored index at `folder` (its meta.json `meta`) was tokenised as this release
    tokenises (TOKENIZER_VERSION), so its terms are the ones a search looks up.

    Raises:
        GorillaError: a newer release built it (not IndexOutdatedError: the TUI would rebuild it by
            itself, under the newer release's feet).
        IndexOutdatedError: an older release built it, with another tokenizer (rebuild it).
    """
    built_with = meta.get("tokenizer_version")
    if isinstance(built_with, int) and built_with > TOKENIZER_VERSION:
        raise GorillaError(
            f"the index at {folder} was built by a newer version of gorilla-tui "
            f"(tokenizer {built_with}; this one reads {TOKENIZER_VERSION})",
            hint="upgrade gorilla-tui, or rebuild the index for this one: gorilla-tui index --refresh",
        )
    if built_with != TOKENIZER_VERSION:
        raise IndexOutdatedError(
            f"the index at {folder} was built by an older version of gorilla-tui",
            hint="rebuild it from the same sources with: gorilla-tui index --refresh",
        )


__all__ = [
    "BOILERPLATE_MIN_DOCS",
    "check_tokenizer",
    "BOILERPLATE_SOURCES",
    "FIELD_WEIGHTS",
    "SOURCE_FIELD_WEIGHTS",
    "boilerplate_sentences",
    "doc_terms",
    "name_words",
    "parameter_text",
    "sentences",
    "MAX_TOKEN_CHARS",
    "QUERY_SYNONYMS",
    "STOPWORDS",
    "TOKENIZER_VERSION",
    "cjk_bigrams",
    "doc_text",
    "expand_query",
    "fold",
    "iter_terms",
    "tokenize",
]
