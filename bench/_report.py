"""The harness every bench script shares: its command line (`parser`: --no-write, --shared), the public data
folder (`shared_dir`), and its report (`publish`: print the section, write it into docs/benchmarks.md between
begin/end TITLE comment markers, and its headline figures into the summary table at the top of that file).

A bench script is one section of docs/benchmarks.md:

    ap = parser(__doc__)                 # --no-write, --shared DIR, plus the script's own options
    args = ap.parse_args(argv)
    ...
    return publish(TITLE, text, not args.no_write, summary=[Figure("BFCL simple", "48.8 %", ">= 65 %")])
"""

from __future__ import annotations

import argparse
import os
import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REPORT = ROOT / "docs" / "benchmarks.md"
SUMMARY = "Summary"
_SUMMARY_HEAD = (
    "One row per headline figure, written by the script of its section (bench/_report.py publish).\n\n"
    "| figure | value | target | anchor | section |\n|---|---|---|---|---|"
)


@dataclass(frozen=True)
class Figure:
    """One row of the summary table: a headline figure of a section (`name` is the row's key: a script
    rewrites the rows it names and leaves the others), its measured `value` (with unit), the issue's
    `target` ("" when there is none) and an `anchor` (a published figure to compare with, "" when none)."""

    name: str
    value: str
    target: str = ""
    anchor: str = ""


def default_shared() -> Path:
    """The public data folder: $GORILLA_TUI_SHARED, else ../shared beside the checkout."""
    env = os.environ.get("GORILLA_TUI_SHARED")
    return Path(env) if env else ROOT.parent / "shared"


def parser(doc: str | None, asks: bool = False) -> argparse.ArgumentParser:
    """The argument parser of a bench script: its description is the first line of `doc` (the script's
    docstring); --no-write (print only) and --shared DIR (the public data: default_shared()) are there,
    and with `asks` (a script that answers tasks over the default index) --home DIR (the GORILLA_TUI_HOME
    whose live index is used) and --split all|dev|test."""
    ap = argparse.ArgumentParser(description=(doc or "").strip().splitlines()[0] if doc else None)
    ap.add_argument("--no-write", action="store_true", help="print only, do not update docs/benchmarks.md")
    ap.add_argument(
        "--shared",
        type=Path,
        default=default_shared(),
        help="the public data folder (apibench/, bfcl/, conala/...): $GORILLA_TUI_SHARED or ../shared",
    )
    if asks:
        ap.add_argument("--home", type=Path, default=None, help="the GORILLA_TUI_HOME whose index is used")
        ap.add_argument("--split", choices=("all", "dev", "test"), default="all", help="one split's tasks")
    return ap


def shared_dir(args: argparse.Namespace, sub: str = "") -> Path:
    """args.shared (or default_shared() for a parser without --shared), joined with `sub`. Raises
    SystemExit with one line when the folder is missing (how to get the data is said)."""
    base = Path(getattr(args, "shared", None) or default_shared())
    folder = base / sub if sub else base
    if not folder.is_dir():
        raise SystemExit(f"bench: {folder} not found: pass --shared DIR or set GORILLA_TUI_SHARED")
    return folder


def _read(path: Path) -> str:
    return (
        path.read_text(encoding="utf-8")
        if path.exists()
        else "# Benchmarks\n\nFigures written by the scripts in bench/.\n"
    )


def _block(title: str, markdown: str) -> str:
    return f"<!-- begin: {title} -->\n## {title}\n\n{markdown.strip()}\n<!-- end: {title} -->"


def _pattern(title: str) -> re.Pattern[str]:
    return re.compile(
        re.escape(f"<!-- begin: {title} -->") + r".*?" + re.escape(f"<!-- end: {title} -->"), re.S
    )


def write_section(title: str, markdown: str, path: Path = REPORT) -> Path:
    """Replace the section `title` of docs/benchmarks.md with `markdown` (appended when absent; the file is
    created with a heading when missing). Returns the file path."""
    text = _read(path)
    block = _block(title, markdown)
    pattern = _pattern(title)
    text = (
        pattern.sub(lambda _: block, text, count=1)
        if pattern.search(text)
        else text.rstrip() + "\n\n" + block + "\n"
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def write_summary(section: str, figures: list[Figure], path: Path = REPORT) -> Path:
    """Put `figures` into the summary table at the top of docs/benchmarks.md (the section "Summary", made
    right after the file's first heading when absent): a row whose figure name is one of `figures`' is
    replaced, others are kept, new ones are appended. Each row links to `section`. Returns the file path."""
    text = _read(path)
    match = _pattern(SUMMARY).search(text)
    rows: list[str] = []
    if match:
        rows = [
            ln for ln in match.group(0).splitlines() if ln.startswith("| ") and not ln.startswith("| figure")
        ]
    anchor = "#" + re.sub(r"[^a-z0-9 -]", "", section.lower()).replace(" ", "-")
    new = {
        f.name: "| "
        + " | ".join([*map(_cell, (f.name, f.value, f.target, f.anchor)), f"[{section}]({anchor})"])
        + " |"
        for f in figures
    }
    kept = []
    for row in rows:
        name = row[2:].split(" | ", 1)[0].replace("\\|", "|")
        kept.append(new.pop(name) if name in new else row)
    body = _SUMMARY_HEAD + "\n" + "\n".join([*kept, *new.values()])
    block = _block(SUMMARY, body)
    if match:
        text = text[: match.start()] + block + text[match.end() :]
    else:
        head, sep, rest = text.partition("\n\n")
        text = head + "\n\n" + block + "\n\n" + rest if sep else text.rstrip() + "\n\n" + block + "\n"
    path.write_text(text, encoding="utf-8")
    return path


def publish(
    title: str, text: str, write: bool, path: Path = REPORT, summary: list[Figure] | None = None
) -> int:
    """Print `text` (a script's Markdown section), then, when `write` (no --no-write), replace section
    `title` of docs/benchmarks.md with it (write_section), put `summary`'s figures into the summary table
    (write_summary) and print "wrote PATH". Returns 0, the script's exit code, so a script's main can end
    with `return publish(TITLE, text, not args.no_write, summary=[...])`."""
    print(text)
    if summary:
        print("\n".join(f"{f.name}: {f.value} (target {f.target or '-'})" for f in summary))
    if write:
        write_section(title, text, path)
        if summary:
            write_summary(title, summary, path)
        print(f"wrote {path}")
    return 0
