"""Tokenizer, sparse BM25 vs rank_bm25, degenerate corpora, per-hub search, the on-disk index and its lock."""

from __future__ import annotations

import pytest
from rank_bm25 import BM25Okapi

from gorilla_tui.errors import GorillaError
from gorilla_tui.pool.doc import ApiDoc
from gorilla_tui.retrieve.index import ApiIndex
from gorilla_tui.retrieve.tokenize import MAX_TOKEN_CHARS, doc_text, tokenize


def test_tokenize_code_and_model_ids() -> None:
    toks = tokenize("AutoModel.from_pretrained('bert-base-uncased')")
    assert {"auto", "model", "pretrained", "bert", "base", "uncased", "bert-base-uncased"} <= set(toks)
    assert "automodel.from_pretrained" in toks
    assert {"resnet", "50", "resnet50"} <= set(tokenize("torch.hub.load('pytorch/vision', 'ResNet50')"))
    assert tokenize("getUserProfile") == ["user", "profile", "getuserprofile"]  # "get" is a stop word
    assert {"res", "net", "resnet"} <= set(tokenize("ResNet"))
    assert tokenize("snake_case_name") == ["snake", "case", "name", "snake_case_name"]
    assert tokenize("Give me an API for images.") == ["give", "image", "images"]
    assert tokenize("") == [] and tokenize("!!! ---") == []


def test_tokenize_long_words_are_linear_and_capped() -> None:
    # the former camelCase-run regex re-scanned each run from every start (tokenize("x" * 40000): 13 s);
    # speed is measured in bench/, here: the result on 200 KB inputs, and the MAX_TOKEN_CHARS cap
    assert tokenize("x" * 200_000) == ["x" * MAX_TOKEN_CHARS]
    camel = tokenize("xY" * 100_000)  # one 200 KB camelCase word: x, yx * 99999, y, then the whole
    assert len(camel) == 100_002 and camel[:2] == ["x", "yx"] and camel[-1] == "xy" * (MAX_TOKEN_CHARS // 2)
    words = tokenize("resnet " * 30_000 + "Y" * 100_000)
    assert words.count("resnet") == 30_000 and words[-1] == "y" * MAX_TOKEN_CHARS
    # a query with the same long word still finds the doc holding it (both are truncated alike)
    long_doc = ApiDoc(id="t:1", source="t", api_call="f()", description="q" * 250_000)
    other = ApiDoc(id="t:2", source="t", api_call="g()", description="resize an image")
    idx = ApiIndex.build([long_doc, other])
    assert [h.doc.id for h in idx.search("q" * 60_000)] == ["t:1"]


def test_tokenize_unicode() -> None:
    assert tokenize("ünïcödé") == ["unicode"]  # was "n", "c", "d" (ASCII-only)
    assert tokenize("Café crème") == tokenize("cafe creme") == ["cafe", "creme"]
    assert tokenize("Straße") == ["strasse"] and tokenize("ＡＰＩ ﬁle") == ["file"]  # "api" is a stop word
    assert tokenize("Ελληνικά κείμενα") == ["ελληνικα", "κειμενα"]
    assert tokenize("图像分类 with ResNet") == ["图像", "像分", "分类", "res", "net", "resnet"]


def test_latin_words_next_to_cjk_keep_their_terms() -> None:
    """CJK characters count as lower-case letters for the camelCase split, so "JSON文件" gave "jso" and
    "n文件": the Chinese "read a JSON file" found no doc about JSON. The runs are cut apart first, and each
    Latin run gets the terms it has alone."""
    assert tokenize("读取一个JSON文件") == ["读取", "取一", "一个", "json", "文件"]
    assert tokenize("HTTP请求") == ["http", "请求"] and tokenize("データをJSONで保存")[3] == "json"
    assert tokenize("ResNet50图像分类") == [*tokenize("ResNet50"), "图像", "像分", "分类"]
    docs = [
        ApiDoc(id="p:1", source="p", api_call="json.load(fp)", description="Deserialize a JSON document"),
        ApiDoc(id="p:2", source="p", api_call="csv.reader(f)", description="Read rows of a CSV file"),
        ApiDoc(id="p:3", source="p", api_call="math.factorial(n)", description="Return n factorial"),
    ]
    assert [h.doc.id for h in ApiIndex.build(docs).search("读取一个JSON文件")][:1] == ["p:1"]


@pytest.mark.parametrize(
    "joiner", ["-", "_", ".", "/", ":", "．", "／", "\u200d", "\u200c", "\u2060", "\u200d-"]
)
def test_a_joiner_beside_cjk_gives_the_latin_run_its_own_terms(joiner: str) -> None:
    """Break-it finding: the chunk "读取.json文件" cut at its CJK runs left ".json", whose terms were "json"
    and the junk ".json" ("json-", "-json_", a lone "." between two CJK runs likewise). A run between CJK
    characters gets the terms the ASCII tokenizer gives it alone; zero-width joiners split chunks anyway."""
    for text in (f"读取{joiner}json文件", f"读取json{joiner}文件", f"读取{joiner}json{joiner}文件"):
        assert tokenize(text) == ["读取", "json", "文件"], text
    assert tokenize(f"读取{joiner}json.load{joiner}文件") == ["读取", *tokenize("json.load"), "文件"]
    assert tokenize(f"图像{joiner}分类") == ["图像", "分类"]
    assert tokenize(f"bert-base{joiner}模型") == [*tokenize("bert-base"), "模型"]


def test_two_document_corpus_is_ordered_sensibly() -> None:
    docs = [
        ApiDoc(
            id="a:1", source="a", api_call="vision.detect(image)", description="detect objects in an image"
        ),
        ApiDoc(id="a:2", source="a", api_call="audio.transcribe(wav)", description="transcribe speech audio"),
    ]
    # rank_bm25's Okapi idf is 0 for a term in 1 of 2 docs: every score is zero, no order at all
    assert list(BM25Okapi([tokenize(doc_text(d)) for d in docs]).get_scores(tokenize("detect objects"))) == [
        0,
        0,
    ]
    index = ApiIndex.build(docs)
    hits = index.search("detect objects in a picture")
    assert [h.doc.id for h in hits] == ["a:1"] and hits[0].score > 0
    hits = index.search("transcribe the audio of an image")
    assert [h.doc.id for h in hits] == ["a:2", "a:1"] and hits[0].score > hits[1].score > 0


def test_empty_corpus_and_empty_docs_are_clean_errors() -> None:
    with pytest.raises(GorillaError, match="empty"):
        ApiIndex.build([])
    blank = [ApiDoc(id=f"b:{i}", source="b", api_call="!!!") for i in range(3)]
    with pytest.raises(GorillaError, match="every document is empty"):
        ApiIndex.build(blank)
    with pytest.raises(ZeroDivisionError):  # what the guard protects against
        BM25Okapi([[] for _ in blank])
