"""check/batch.py (a tree checked by forked workers) and lookup.named_ids (model ids in a tree's text):
the same findings, notes and skipped calls, in the same order, as one process with one Validator (real
tree-sitter, the real test pool and the running Python's standard-library docs)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gorilla_tui.check import batch, lint
from gorilla_tui.check.lookup import named_ids
from gorilla_tui.check.validator import Validator

CORPUS = Path(__file__).resolve().parent.parent / "data" / "lint_corpus"


@pytest.fixture(scope="module")
def validator(small_pool, stdlib_docs) -> Validator:
    return Validator([*small_pool, *stdlib_docs])


def _files() -> list[tuple[str, list[lint.Block]]]:
    """The lint corpus's files (Python, Markdown, notebook) three times over, plus files with a
    standard-library finding, a skipped call and a clean one: 24 files."""
    extra = {
        "args.py": "import json\njson.loads('x', 1, 2, 3)\n",
        "own.py": "from .utils import logging\nlogging.get_logger(__name__)\n",
        "clean.py": "import os\nos.path.join('a', 'b')\n",
    }
    out = []
    for k in range(3):
        for path in sorted(CORPUS.iterdir()):
            if path.suffix in (".py", ".md", ".ipynb"):
                name = f"{k}/{path.name}"
                out.append((name, lint.blocks(name, path.read_text(encoding="utf-8"))))
        out += [(f"{k}/{n}", lint.blocks(n, code)) for n, code in extra.items()]
    return out


def test_workers_give_the_findings_of_one_process_in_path_order(validator, monkeypatch):
    files = _files()
    one = batch.check_files(files, validator, syntax_notes=True)
    found = [f for per_file in one for found, _, _ in per_file for f in found]
    assert "wrong_args:too_many_arguments" in {f.reason for f in found}
    assert "unparseable:python_syntax" not in {f.reason for f in found}  # files: a note instead
    said = [n for per_file in one for _, notes, _ in per_file for n in notes]
    assert any("broken_syntax.py: skipped: not Python 3 syntax (" in n for n in said)
    assert any(skipped for per_file in one for _, _, skipped in per_file)  # the relative import's call
    monkeypatch.setattr(batch, "PARALLEL_MIN", 2)
    monkeypatch.setattr(batch, "workers", lambda: 2)  # forked even on a single-core runner
    asked: list[int] = []

    def validator_for(codes: list[str]) -> Validator:
        asked.append(len(codes))
        return validator

    assert batch.checked_files(files, validator_for, syntax_notes=True) == one
    assert asked == []  # each chunk's Validator was made in a worker, not here
    monkeypatch.setattr(batch, "PARALLEL_MIN", len(files) + 1)
    assert batch.checked_files(files, validator_for, syntax_notes=True) == one
    assert asked == [sum(len(blocks) for _, blocks in files)]  # one Validator for all, in this process


def test_chunks_keep_path_order_and_balance_size():
    files = [(f"f{i}", [lint.Block("x" * (1000 if i == 0 else 10))]) for i in range(10)]
    chunks = batch._chunks(files, 3)
    assert [name for chunk in chunks for name, _ in chunk] == [name for name, _ in files]
    assert len(chunks) <= 3 and chunks[0] == files[:1]  # the big file alone
    assert batch._chunks(files[:1], 4) == [files[:1]]


def test_named_ids_is_substring_search():
    ids = [
        "facebook/bart-large-cnn",  # inner run "bart", "large"
        "bert-base-uncased",
        "gpt2",
        "albert",  # inside a longer run only
        "xlnet/xlnet-base",  # absent
        "t5-small",  # its first run is the end of a longer run ("bigt5-small")
        "-/-",  # no letter or digit
        "Helsinki-NLP/opus-mt-en-de",  # absent: one inner run missing
    ]
    filler = "import os\nos.path.join('a', 'b')\n" * 8_000  # a long text: the pre-check is used
    text = filler + "m = load('facebook/bart-large-cnn')\nx = 'superalbertos'\ny = 'bigt5-small' + '-/-'\n"
    text += "z = 'Helsinki-NLP/opus-mt-en-fr' gpt2model\n"
    assert len(text) > 200_000
    expected = [i for i in ids if i in text]
    assert expected == ["facebook/bart-large-cnn", "gpt2", "albert", "t5-small", "-/-"]
    index: dict = {}
    assert named_ids(ids, text, index) == expected
    assert named_ids(ids, text, index) == expected  # the runs read once, kept in `index`
    assert named_ids(ids, "m = load('gpt2')") == ["gpt2"]  # a short text: searched directly
