"""Write one benchmark's section of docs/benchmarks.md (between begin/end TITLE comment markers)."""

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
