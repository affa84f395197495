"""Write one benchmark's section of docs/benchmarks.md (between begin/end TITLE comment markers), and the
tail every bench script shares (publish: print the text, write the section unless --no-write)."""

from __future__ import annotations

import re
from pathlib import Path

REPORT = Path(__file__).resolve().parent.parent / "docs" / "benchmarks.md"


def write_section(title: str, markdown: str, path: Path = REPORT) -> Path:
    """Replace the section `title` of docs/benchmarks.md with `markdown` (appended when absent; the file is
    created with a heading when missing). Returns the file path."""
    begin, end = f"<!-- begin: {title} -->", f"<!-- end: {title} -->"
    block = f"{begin}\n## {title}\n\n{markdown.strip()}\n{end}"
    text = (
        path.read_text(encoding="utf-8")
        if path.exists()
        else "# Benchmarks\n\nFigures written by the scripts in bench/.\n"
    )
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.DOTALL)
    text = (
        pattern.sub(lambda _: block, text, count=1)
        if pattern.search(text)
        else text.rstrip() + "\n\n" + block + "\n"
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def publish(title: str, text: str, write: bool, path: Path = REPORT) -> int:
    """Print `text` (a script's Markdown section), then, when `write` (no --no-write), replace section
    `title` of docs/benchmarks.md with it (write_section) and print "wrote PATH". Returns 0, the script's
    exit code, so a script's main can end with `return publish(TITLE, text, not args.no_write)`."""
    print(text)
    if write:
        print(f"wrote {write_section(title, text, path)}")
    return 0
