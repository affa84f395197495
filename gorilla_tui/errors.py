"""Errors that the CLI turns into one clear line and a non-zero exit (never a traceback)."""

from __future__ import annotations


class GorillaError(Exception):
    """A failure the user can act on. `exit_code` is what the CLI exits with (2: bad input or setup)."""

    exit_code = 2

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint


class UsageError(GorillaError):
    """Bad arguments or input (exit 2)."""


class IndexMissingError(GorillaError):
    """No index has been built yet (exit 2); the hint says how to build one."""


class IndexOutdatedError(GorillaError):
    """The index was built by an older gorilla-tui whose index this one cannot search (another tokenizer,
    exit 2). `gorilla-tui index --refresh` rebuilds it from the sources it was built from; the TUI does
    that by itself."""


class ContextOverflowError(GorillaError):
    """A prompt (or text to score) has more tokens than the model's n_ctx (exit 2)."""
