"""The Python code blocks of a file the linter checks (check/lint.py): the whole text of a Python file,
a notebook's code cells joined (check/notebook.py), the Python fences of Markdown read as CommonMark reads
them (markdown-it-py), and the cap on how much code of one file is checked."""

from __future__ import annotations

import doctest
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from markdown_it import MarkdownIt
from markdown_it.token import Token

from gorilla_tui.check.ipython_syntax import read_cell
from gorilla_tui.check.notebook import HELP_NOTE, UNREAD_NOTE, notebook_lines, numbered_lines

#: Most code checked of one file, in bytes (1 MiB: its Python, its Markdown fences, its notebook cells).
#: Checking is linear but dear: a 9 MB file of calls took 19.5 s and 1.2 GB, of one long list 37 s and
#: 4.1 GB (issue 42; tree-sitter twice, CPython's AST, the call scan). The largest hand-written modules seen
#: (pydoc_data/topics.py 0.76 MB, pandas/core/frame.py 0.73 MB) fit under it; more code is reported as not
#: checked.
MAX_CODE_BYTES = 1024 * 1024
#: Deepest nesting of block quotes and lists the Markdown parser reads (markdown-it-py's "default" preset
#: value; a list item is 2 levels): the "commonmark" preset's 20 dropped the rest of a file after a list
#: nested 10 deep (break-it round 13). Measured: 100 levels of block quotes take ~210 Python frames, of
#: lists ~110 (far under Python's recursion limit of 1000); the rest after deeper content is read again
#: and the lines not read are said (_fence_tokens).
_MAX_NESTING = 100
#: Most parses again of a Markdown file's rest after nesting deeper than _MAX_NESTING (_fence_tokens)
_MAX_RESTARTS = 4
#: A line at top level: not blank, not indented, no block quote
_TOP = re.compile(r"[^\s>]")
#: The CommonMark parser Markdown files are read with (markdown-it-py's "commonmark" preset, block level
#: only: only fences are read, so the inline rules and the core rules on inline text are off -- the inline
#: parse of a 9 MB file of emphasis openers cost ~90 s and 2.8 GB, break-it round 13).
_MARKDOWN = MarkdownIt("commonmark", {"maxNesting": _MAX_NESTING}).disable(
    ["inline", "text_join"], ignoreInvalid=True
)
#: Fence tags of Python code (GitHub Linguist's and Pygments' names; IPython's for a fence copied from one)
_PYTHON_TAGS = frozenset({"python", "py", "python3", "ipython", "ipython3"})
#: Fence tags of an interactive session, ``>>>`` prompts before the code (Pygments' PythonConsoleLexer:
#: pycon, python-console; Sphinx's doctest blocks): its examples are checked, read by the stdlib doctest
#: parser (_session_code). A Python fence whose first line is a prompt is read so too.
_SESSION_TAGS = frozenset({"pycon", "python-console", "doctest"})


@dataclass
class Block:
    """Python code of a file: the whole file, a Markdown fence or a notebook's code cells joined.
    line_offset: lines before the block's first line in the file (Markdown); cells: for a notebook, the
    (1-based cell number, line in that cell) of each line of `code`, else empty; notes: what of it was
    not checked (a notebook's cells that are no Python: "cell N: skipped: ..."), said by check_block."""

    code: str
    line_offset: int = 0
    cells: list[tuple[int, int]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: (cell, line) of a notebook's shell commands (``!cmd``), which `run` does not run (it says so)
    shell: list[tuple[int, int]] = field(default_factory=list)
    #: for each line of `code`, the columns before it in the file (a Markdown fence's indentation that
    #: CommonMark removes: under a list item, in a block quote); empty: none
    col_offsets: list[int] = field(default_factory=list)


def too_much_code(blocks: Sequence[Block]) -> str | None:
    """Why a file's `blocks` are not checked (more than MAX_CODE_BYTES of code in UTF-8), or None."""
    size = sum(len(b.code.encode("utf-8", "surrogatepass")) for b in blocks)
    if size <= MAX_CODE_BYTES:
        return None
    return f"too large ({size / 2**20:.1f} MiB of code > {MAX_CODE_BYTES // 2**20} MiB): not checked"


#: The note on a type stub (.pyi): check_block says it, nothing of the file is checked.
STUB_SKIPPED = "skipped: a type stub (.pyi) is never run; its calls are not checked"


def blocks(path: str, text: str) -> list[Block]:
    """The Python blocks of a file's text: Markdown fences tagged python/py/python3/ipython (or untagged
    fences holding ``import``) and the examples of ``pycon`` sessions, a notebook's code cells as one block
    (IPython's syntax made Python line for line, check/ipython_syntax.py; each line mapped to its cell:
    check/notebook.py, nbformat 4 and 3), else the whole text. A type stub (.pyi) gives one empty block
    noting STUB_SKIPPED: its calls (``TypeVar(..., default=...)``, PEP 696, fine in stubs for every
    Python) are read by type checkers only, so a finding there would be no call that fails.
    Raises ValueError for a notebook that is not one (not JSON, no cells, a cell's text that is not text)."""
    lower = path.lower()
    if lower.endswith((".md", ".markdown")):
        return markdown_blocks(text)
    if lower.endswith(".ipynb"):
        lines, where, skipped, shell = notebook_lines(text, MAX_CODE_BYTES)
        return [Block("\n".join(lines), 0, where, skipped, shell)] if lines else []
    if lower.endswith(".pyi"):  # a type stub is read by type checkers, never run (break-it round 31, F13)
        return [Block("", notes=[STUB_SKIPPED])]
    return [Block(text)]


def markdown_blocks(text: str) -> list[Block]:
    """Fenced code blocks of Markdown that hold Python (see blocks; tagged ipython/ipython3 too), read as
    CommonMark reads them (markdown-it-py: a fence under a list item or in a block quote, ``~~~``, a longer
    fence; its indentation removed from each line as CommonMark 0.31 section 4.5 says), with their line
    offsets and each line's removed columns (findings are placed in the file), IPython's syntax made Python
    line for line as in a notebook (check/ipython_syntax.py); an interactive session's examples
    (``pycon``, ``>>>`` prompts) read as doctest reads them (_read_session). Break-it round 12: a fence
    indented 2 spaces (common under a list item) kept its indentation: "not Python 3 syntax", its calls
    unchecked, exit 0."""
    out: list[Block] = []
    file_lines = re.split(r"\r\n|\r|\n", text)  # the line ends markdown-it reads (its normalize)
    tokens, unread = _fence_tokens(file_lines)
    for token in tokens:
        words = token.info.strip().lstrip("{.").split()
        lang = words[0].rstrip("}").lower() if words else ""
        code = token.content.removesuffix("\n")
        session = lang in _SESSION_TAGS or (lang in _PYTHON_TAGS and code.lstrip().startswith(">>>"))
        if session or lang in _PYTHON_TAGS or (not lang and re.search(r"^\s*(import|from)\s", code, re.M)):
            first = token.map[0] + 1  # the fence's opening line (0-based) + 1: the code's first line
            shifts = []
            for k, line in enumerate(code.split("\n")):
                in_file = file_lines[first + k] if first + k < len(file_lines) else line
                shifts.append(len(in_file) - len(line) if in_file.endswith(line) else 0)
            block = Block(code, first, col_offsets=shifts)
            if session:
                _read_session(block)
            out.append(block)
    if unread:  # said, never dropped silently: on a block of its own if no fence was read
        out = out or [Block("", unread[0][0] - 1)]
        out[0].notes += [f"lines {a}-{b}: not read (nested deeper than {_MAX_NESTING})" for a, b in unread]
    if too_much_code(out) is None:  # more is refused unread (MAX_CODE_BYTES)
        for block in out:  # IPython's syntax (``!pip install x``, a fence copied from a notebook) as in one
            cell = read_cell(block.code)
            block.code = "\n".join(cell.lines)
            for lines, note in ((cell.unread, UNREAD_NOTE), (cell.help, HELP_NOTE)):
                if lines:  # numbered in the file, as its findings are
                    block.notes.append(numbered_lines([block.line_offset + k for k in lines]) + " " + note)
    return out


def _read_session(block: Block) -> None:
    """Make `block` (a fence holding an interactive session, ``>>> `` and ``... `` prompts, output lines
    after) the Python of its examples, line for line: each example's source where the stdlib doctest
    parser finds it (DocTestParser.get_examples: the prompts and the example's indentation cut, its
    columns added to block.col_offsets), output and blank lines blank. A session doctest refuses
    (``>>>x``: "lacks blank after >>>", an example's lines indented unevenly) is left out with a note.
    Before, a ``pycon`` fence was not checked and got no note (break-it round 13)."""
    count = len(block.code.split("\n"))
    lines = [""] * count
    try:
        examples = doctest.DocTestParser().get_examples(block.code)
    except ValueError as e:  # its message names a line of the fence: "line 3 of the docstring for <string>"
        why = re.sub(
            r"line (\d+) of the docstring for <string>",
            lambda m: f"line {block.line_offset + int(m.group(1))}",
            str(e).splitlines()[0],
        )
        where = numbered_lines(list(range(block.line_offset + 1, block.line_offset + count + 1)))
        block.notes.append(f"{where} not checked: not a Python session as doctest reads one ({why})")
        block.code = "\n".join(lines)
        return
    for example in examples:
        for k, source in enumerate(example.source.removesuffix("\n").split("\n"), example.lineno):
            if k < count:
                lines[k] = source
                block.col_offsets[k] += example.indent + len(">>> ")
    block.code = "\n".join(lines)


def _fence_tokens(file_lines: list[str]) -> tuple[list[Token], list[tuple[int, int]]]:
    """The fence tokens of Markdown (its lines), their maps in the file's lines. Where the parse stops at
    _MAX_NESTING (markdown-it skips the rest of the file), the rest is parsed again from the next line at
    top level (column 0, no block quote) after the deepest block, so a later top-level fence is not dropped
    (break-it round 13); at most _MAX_RESTARTS times, as each parse costs the length of the rest.
    Returns the fences and the 1-based (first, last) lines not read (deeper than _MAX_NESTING)."""
    out: list[Token] = []
    start = 0
    unread: list[tuple[int, int]] = []
    for _ in range(_MAX_RESTARTS + 1):
        tokens = _MARKDOWN.parse("\n".join(file_lines[start:]))
        deep = [t.map[0] for t in tokens if t.nesting == 1 and t.level >= _MAX_NESTING - 1 and t.map]
        for token in tokens:
            if token.type == "fence" and token.map and (not deep or token.map[0] < deep[0]):
                token.map = [token.map[0] + start, token.map[1] + start]
                out.append(token)
        if not deep:
            break
        first = start + deep[0]
        start = next((k for k in range(first + 1, len(file_lines)) if _TOP.match(file_lines[k])), 0)
        unread.append((first + 1, start or len(file_lines)))
        if not start:
            break
    else:  # restarts used up: the rest is not read
        unread.append((start + 1, len(file_lines)))
    return out, unread
