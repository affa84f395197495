"""extract(): every response format of the released Gorilla outputs, and hostile text."""

from __future__ import annotations

from gorilla_tui.check.extract import extract


def test_gorilla_fields_one_per_line():
    text = ("<<<domain>>>: NLP\n<<<api_call>>>: pipeline('ner', model='dslim/bert-base-NER')\n"
            "<<<api_provider>>>: Hugging Face Transformers\n<<<explanation>>>: 1. Import.\n"
            "<<<code>>>: from transformers import pipeline\n"
            "ner = pipeline('ner', model='dslim/bert-base-NER')")  # fmt: skip
    ex = extract(text)
    assert ex.api_call == "pipeline('ner', model='dslim/bert-base-NER')"
    assert ex.explanation == "1. Import."
    assert ex.code.endswith("ner = pipeline('ner', model='dslim/bert-base-NER')")


def test_fences_with_and_without_tag():
    for fence in ("```python\n", "```\n", "```py title\n"):
        ex = extract(f"Here you go:\n{fence}import torch\nm = torch.hub.load('a/b', 'c')\n```\nEnjoy.")
        assert ex.format == "fence"
        assert ex.code == "import torch\nm = torch.hub.load('a/b', 'c')"
        assert "Here you go" in ex.explanation and "Enjoy" in ex.explanation


def test_prose_only_and_prose_around_code():
    assert extract("I cannot help with that").code == ""
    ex = extract("Load it like this:\nmodel = hub.load('https://tfhub.dev/x/1')\nThat is all, friend.")
    assert ex.code == "model = hub.load('https://tfhub.dev/x/1')"
    assert extract("").format == "empty"


def test_json_tool_call_format():
    ex = extract(
        '[{"name": "torch.hub.load", "arguments": {"repo_or_dir": "pytorch/vision", "model": "resnet50"}}]'
    )
    assert ex.format == "json"
    assert ex.api_call == "torch.hub.load(repo_or_dir='pytorch/vision', model='resnet50')"
    openai = '{"function": {"name": "f", "arguments": "{\\"headers\\": {\\"k\\": \\"v\\"}, \\"n\\": 1}"}}'
    assert extract(openai).api_call == "f(headers={'k': 'v'}, n=1)"
    assert extract('[{"name": "not a name!", "arguments": {}}]').format != "json"


def test_several_calls_kept_in_code():
    ex = extract("import torch\nmodel = torch.hub.load('a/b', 'c')\nmodel.eval()")
    assert ex.format == "code" and ex.code.count("\n") == 2


def test_every_call_of_a_json_tool_call_list_is_checked() -> None:
    """Break-it pass: a valid first tool call hid a hallucinated second one (only the first was checked)."""
    ex = extract(
        '[{"name": "shutil.copytree", "arguments": {"src": "a", "dst": "b"}},'
        ' {"name": "json.laods", "arguments": {"s": "x"}}]'
    )
    assert ex.format == "json"
    assert ex.candidates() == ["shutil.copytree(src='a', dst='b')\njson.laods(s='x')"]


def test_a_string_literals_own_escape_is_kept():
    """Break-it round 8: ``sys.stdout.write('hello\\n')`` (one line, the literal's own ``\\n``) was read as an
    escaped response and unescaped into a real newline inside the string: "unparseable" for a valid call
    (check CODE, check -, MCP check_api_call). Text that parses as it is and would not once unescaped is
    kept; escaped code that does not parse as it is still gets unescaped."""
    from gorilla_tui.check.extract import clean_code

    assert clean_code("sys.stdout.write('hello\\n')") == "sys.stdout.write('hello\\n')"
    assert clean_code("print('a\\nb', end='\\n')") == "print('a\\nb', end='\\n')"
    escaped = "import torch\\nmodel = torch.hub.load('pytorch/vision', 'resnet50')"
    assert clean_code(escaped) == "import torch\nmodel = torch.hub.load('pytorch/vision', 'resnet50')"
