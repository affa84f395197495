"""Hand-written questions of a source (a manifest's `hand_questions`): the packaged files read and attached
to the source's docs (doc expansion where no training split is at hand; the rules of reading and
attaching are pool/expansion.py's read_hand_questions and attach_hand_questions)."""

from __future__ import annotations

from dataclasses import replace

from gorilla_tui.pool.apidoc import Diagnostic, LoadResult
from gorilla_tui.pool.expansion import attach_hand_questions, read_hand_questions
from gorilla_tui.pool.manifest import Manifest
from gorilla_tui.resources import data_dir

#: The package's data folder (resources.data_dir) of the hand-written question files a manifest's
#: `hand_questions` names, inside the index folder of the manifests.
HAND_QUESTIONS_DIR = "questions"
#: The note of a source whose training split was not found (pool/sources.py with_questions) ...
NO_TRAINING_SPLIT = "training questions not found: docs not expanded"
#: ... and what it becomes when the manifest's hand-written questions expanded the docs instead.
HAND_ONLY = "training questions not found: docs expanded with the hand-written questions only"


def hand_questions_text(name: str) -> str | None:
    """The text of the packaged hand-written questions file `name` (index/questions/<name>), or None when
    the installation has no such file or it cannot be read."""
    try:
        return (data_dir("index") / HAND_QUESTIONS_DIR / name).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def with_hand_questions(manifest: Manifest, result: LoadResult) -> LoadResult:
    """Attach the manifest's hand-written questions (its `hand_questions` files, pool/expansion.py) to
    `result`'s docs, whatever loader read them, and return `result`. A missing, unreadable or malformed
    file is not an error: a diagnostic (severity "note") says so and the docs stay as they are."""
    for name in manifest.hand_questions:
        text = hand_questions_text(name)
        if text is None:
            result.diagnostics.append(Diagnostic(name, 0, "note", "hand-written questions not found"))
            continue
        try:
            pairs, diags = read_hand_questions(text, name)
        except ValueError as e:
            result.diagnostics.append(
                Diagnostic(name, 0, "note", f"hand-written questions are not TOML: {e}")
            )
            continue
        result.diagnostics.extend(diags[:20])
        if attach_hand_questions(result.docs, pairs) == 0:
            result.diagnostics.append(Diagnostic(name, 0, "note", "no hand-written question matched a doc"))
            continue
        for i, d in enumerate(result.diagnostics):  # the docs are expanded after all: say by what
            if d.message == NO_TRAINING_SPLIT:
                result.diagnostics[i] = replace(d, message=HAND_ONLY)
    return result
