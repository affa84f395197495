"""Lenient reading of hand-written JSON lists (APIZoo files): repair common slips, split into entries."""

from __future__ import annotations

import re

_REPAIR = re.compile(r'(?P<str>"(?:[^"\\]|\\.)*")|(?P<trailing>,(?=\s*[\]}]))|\}(?P<gap>\s*)\{', re.DOTALL)


def repair_json(text: str) -> str:
    """Repair the slips common in hand-written APIZoo files: trailing commas before ] or }, and a missing
    comma between adjacent objects (`} {`). String literals are left untouched (raw newlines inside
    them are accepted by the caller's json.loads(strict=False))."""

    def fix(m: re.Match[str]) -> str:
        if m.group("str") is not None:
            return m.group(0)
        if m.group("trailing") is not None:
            return ""
        return "}," + m.group("gap") + "{"

    return _REPAIR.sub(fix, text)


def entry_chunks(text: str) -> list[tuple[int, str]]:
    """Split a JSON list of objects into (1-based line, text) chunks, one per top-level entry, using the
    indentation of the first entry: lets a file with one broken entry still yield all the others."""
    first = re.search(r"^([ \t]*)\{", text[text.find("[") + 1 :], re.MULTILINE)
    if first is None:
        return []
    indent = first.group(1)
    starts = [m.start() for m in re.finditer(rf"^{re.escape(indent)}\{{", text, re.MULTILINE)]
    chunks = []
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(text)
        chunk = text[start:end].rstrip()
        chunk = chunk[:-1].rstrip() if i + 1 == len(starts) and chunk.endswith("]") else chunk
        chunks.append((text.count("\n", 0, start) + 1, chunk.rstrip(",").rstrip()))
    return chunks
