"""The APIBench files: hub names, finding a file (a local mirror or the Hugging Face dataset), the shared
data folder (shared_dir), and reading eval sets and response files (JSON Lines)."""

from __future__ import annotations

import errno
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gorilla_tui.errors import GorillaError, UsageError
from gorilla_tui.jsontext import split_json_lines
from gorilla_tui.pool.apidoc import SourceRejected
from gorilla_tui.pool.files import MAX_SOURCE_BYTES, open_regular
from gorilla_tui.pool.sources import FetchContext, Manifest, SourceUnavailable, hf_files

#: The Hugging Face dataset holding the APIBench files (Patil et al. 2023, arXiv 2305.15334).
DATASET = "gorilla-llm/APIBench"
#: Largest eval set, pool or response file read, bytes: a source's size limit (pool.files.MAX_SOURCE_BYTES,
#: 64 MB; APIBench's largest file is about 1 MB). A larger one is refused unread (break-it round 11).
MAX_FILE_BYTES = MAX_SOURCE_BYTES
#: hub -> (API pool file, eval file), file names as in the dataset.
HUB_FILES = {
    "torchhub": ("torchhub_api.jsonl", "torchhub_eval.json"),
    "tensorflowhub": ("tensorflowhub_api.jsonl", "tensorflow_eval.json"),
    "huggingface": ("huggingface_api.jsonl", "huggingface_eval.json"),
}
_ALIASES = {"th": "torchhub", "torch": "torchhub", "tf": "tensorflowhub", "tensorflow": "tensorflowhub",
            "hf": "huggingface"}  # fmt: skip


#: The environment variable naming the shared data folder (apibench/, apizoo/, bfcl/, conala/), as the
#: tests and the bench/ scripts read it.
SHARED_ENV = "GORILLA_TUI_SHARED"


def shared_dir() -> Path:
    """The shared data folder (the public data sets, read-only): $GORILLA_TUI_SHARED when set, else
    ../shared beside the checkout that holds gorilla_tui/ (where CI lays it, as tests/conftest.py SHARED).
    It may not exist: callers check the folder they need in it and say which option names another."""
    named = os.environ.get(SHARED_ENV, "").strip()
    return Path(named) if named else Path(__file__).resolve().parents[3] / "shared"


def hub_name(name: str) -> str:
    """Canonical hub name (torchhub, tensorflowhub, huggingface; th/tf/hf accepted). UsageError otherwise."""
    hub = _ALIASES.get(name.lower(), name.lower())
    if hub not in HUB_FILES:
        raise UsageError(f"unknown hub {name!r} (expected one of {', '.join(HUB_FILES)})")
    return hub


def resolve_file(filename: str, from_dir: str | Path | None = None) -> Path:
    """Find an APIBench file: with from_dir, DIR/name, DIR/api/name or DIR/eval/name (a local mirror, e.g.
    ../shared/apibench); without, huggingface_hub.hf_hub_download from the dataset (cached; works offline
    once cached) through sources.hf_files, which probes the hub once and, when it is unreachable, reads only
    the local cache (no ~25 s of huggingface_hub retries). Raises GorillaError (with a hint) when the file
    cannot be found or downloaded."""
    if from_dir is not None:
        base = Path(from_dir)
        for candidate in (base / filename, base / "api" / filename, base / "eval" / filename):
            if candidate.is_file():
                return candidate
        raise GorillaError(f"{filename} not found in {base} (nor in its api/ or eval/ folder)")

    dataset = Manifest(name="apibench", title="APIBench", files=(filename,),
                       remote={"type": "hf", "repo_id": DATASET, "repo_type": "dataset"})  # fmt: skip
    try:
        return hf_files(dataset, FetchContext())[0]
    except (SourceUnavailable, SourceRejected) as e:  # offline, unreachable, missing, over 64 MB: one line
        raise GorillaError(
            str(e), hint="pass --from DIR (a local copy of the APIBench files) or --eval FILE / --pool FILE"
        ) from None


def read_capped(path: str | Path, what: str) -> bytes:
    """The bytes of an eval file (`what`: "responses", "eval", ...), at most MAX_FILE_BYTES: the one cap of
    every eval set, pool and answer file read (`eval score --responses`, `eval run --out` and `eval bfcl
    --out` resumed), checked by os.fstat before a byte is read (`eval run --out` read a 1 GiB sparse file
    whole, 2.1 GB of memory, where `eval score` refused it at once; break-it round 14, R14-13). Raises
    UsageError when the file is missing or unreadable, not a regular file (a FIFO or /dev/zero is never
    opened: pool.files.open_regular) or larger than the cap."""
    p = Path(path)
    try:
        with open_regular(p, MAX_FILE_BYTES) as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
        if len(data) > MAX_FILE_BYTES:  # grown since it was opened, or of st_size 0 (/proc)
            raise OSError(errno.EFBIG, f"more than {MAX_FILE_BYTES:,} bytes")
    except SourceRejected as e:
        raise UsageError(f"cannot read {what} file {e}") from None
    except OSError as e:
        raise UsageError(f"cannot read {what} file {p}: {e.strerror or e}") from None
    return data


def _read_text(path: str | Path, what: str) -> str:
    """A text file's content as str (read_capped). Raises UsageError as read_capped does, and when it is
    binary (holds NUL bytes) or not UTF-8 (a leading BOM is accepted)."""
    p = Path(path)
    data = read_capped(p, what)
    if b"\x00" in data:
        raise UsageError(f"{what} file {p} is binary (it holds NUL bytes), not JSON Lines")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise UsageError(f"{what} file {p} is not UTF-8 text (bad byte at offset {e.start})") from None


def json_object(line: str) -> dict[str, Any] | None:
    """One JSON Lines line as a dict, or None when it is not valid JSON (nesting deeper than Python's
    recursion limit included) or not an object."""
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def read_jsonl(path: str | Path, what: str) -> list[dict[str, Any] | None]:
    """JSON Lines file -> one entry per non-blank line (None for a line that is not a JSON object).

    Raises UsageError when the file is missing, unreadable, binary, not UTF-8, or has no line at all.
    """
    return [row for _, row in read_numbered(path, what)]


def read_numbered(path: str | Path, what: str) -> list[tuple[int, dict[str, Any] | None]]:
    """read_jsonl with each entry's 1-based line number in the file (blank lines counted, not returned),
    for messages that name a line. Raises UsageError as read_jsonl."""
    rows: list[tuple[int, dict[str, Any] | None]] = []
    for number, line in enumerate(split_json_lines(_read_text(path, what)), start=1):
        if line.strip():
            rows.append((number, json_object(line)))
    if not rows:
        raise UsageError(f"{what} file {Path(path)} is empty")
    return rows


#: A response file is rejected when more than this share of its non-blank lines are not JSON objects with a
#: question_id (a few bad lines are tolerated and counted as errors; a file of another kind is not).
MAX_BAD_SHARE = 0.05


@dataclass
class Responses:
    """A response file read line by line: rows = (1-based line number, object holding "question_id"),
    bad = line numbers of the non-blank lines that are not such objects, total = non-blank lines."""

    rows: list[tuple[int, dict[str, Any]]]
    bad: list[int]
    total: int


def read_responses(path: str | Path) -> Responses:
    """Read a Gorilla response file (JSON Lines of {question_id, text}).

    Raises UsageError (exit 2, one line) when the file is unreadable, binary, not UTF-8 or empty, when no
    line is a JSON object with a question_id, or when more than MAX_BAD_SHARE of its lines are not (the
    message names the first bad line).
    """
    p = Path(path)
    rows: list[tuple[int, dict[str, Any]]] = []
    bad: list[int] = []
    for number, line in enumerate(split_json_lines(_read_text(p, "responses")), start=1):
        if not line.strip():
            continue
        value = json_object(line)
        if value is not None and "question_id" in value:
            rows.append((number, value))
        else:
            bad.append(number)
    total = len(rows) + len(bad)
    if not total:
        raise UsageError(f"responses file {p} is empty")
    if not rows:
        raise UsageError(
            f"responses file {p} is not JSON Lines of {{question_id, text}} objects "
            f"(no line is; first line that is not: {bad[0]})"
        )
    if len(bad) > MAX_BAD_SHARE * total:
        raise UsageError(
            f"{len(bad)} of {total} lines of responses file {p} are not JSON objects with a question_id "
            f"(first: line {bad[0]}); more than {MAX_BAD_SHARE:.0%} bad lines"
        )
    return Responses(rows, bad, total)


@dataclass
class EvalItem:
    """One eval question: its domain and ground-truth api_call (from api_data, as the released scripts)."""

    domain: str
    api_call: str


def load_eval(path: str | Path) -> list[EvalItem]:
    """An APIBench eval file (JSON Lines despite the .json name) -> EvalItems in line order (question_id 1
    is the first). Lines that are not objects become EvalItem("", "")."""
    items = []
    for row in read_jsonl(path, "eval"):
        data = row.get("api_data") if row else None
        data = data if isinstance(data, dict) else {}
        domain = data.get("domain", "")
        api_call = data.get("api_call") or (row or {}).get("api_call") or ""
        items.append(EvalItem(str(domain), str(api_call)))
    return items
