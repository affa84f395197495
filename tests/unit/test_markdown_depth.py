"""Markdown nested deeper than markdown-it's limit (break-it round 13, R13-4) and the block-level-only parse
(R13-5): no Python fence is dropped silently; the lines not read are said in a note."""

from gorilla_tui.check.blocks import markdown_blocks

FENCE = '```python\nimport shutil\nshutil.copytree("x")\n```\n'


def test_fence_after_a_list_nested_ten_deep_is_read():
    text = "".join("  " * i + "- x\n" for i in range(10)) + "\n" + FENCE
    found = markdown_blocks(text)
    assert [b.code for b in found] == ['import shutil\nshutil.copytree("x")']
    assert found[0].line_offset == 12 and found[0].notes == []


def test_fence_inside_21_block_quotes_is_read():
    text = "".join("> " * 21 + line + "\n" for line in FENCE.splitlines())
    found = markdown_blocks(text)
    assert [b.code for b in found] == ['import shutil\nshutil.copytree("x")']
    assert found[0].col_offsets == [42, 42]


def test_fence_after_content_deeper_than_the_limit_is_read_with_a_note():
    text = "> " * 150 + "x\n\n" + FENCE
    found = markdown_blocks(text)
    assert [b.code for b in found] == ['import shutil\nshutil.copytree("x")']
    assert found[0].line_offset == 3
    assert found[0].notes == ["lines 1-2: not read (nested deeper than 100)"]


def test_deep_content_without_a_later_fence_is_said_not_dropped():
    found = markdown_blocks("".join("  " * i + "- x\n" for i in range(120)))
    assert [b.code for b in found] == [""]
    assert found[0].notes == ["lines 50-121: not read (nested deeper than 100)"]


def test_prose_is_not_parsed_inline_and_fences_still_found():
    text = "*a _b [" * 20000 + "\n\n" + FENCE + "text with `code` and *emphasis*\n"
    found = markdown_blocks(text)
    assert [(b.code, b.line_offset) for b in found] == [('import shutil\nshutil.copytree("x")', 3)]
