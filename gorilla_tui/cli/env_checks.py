"""Environment variables our dependencies read without checking: a value their reader fails on is dropped,
with one warning line, before the dependency is imported, so that it uses its default (issue 42: the
environment is input; "internal error" from it is a bug). Break-it rounds 22 (R22-1), 23 (R23-1) and 24
(R24-1: NUMPY_MADVISE_HUGEPAGE=junk made every command that imports numpy "internal error: ValueError";
R24-8: TEXTUAL_COLOR_SYSTEM=junk made the TUI "internal error: KeyError")."""

from __future__ import annotations

import os
from collections.abc import Callable

from gorilla_tui.cli.output import say
from gorilla_tui.textsafe import safe_line

#: Variables a dependency converts with int() (at import unless said), each with where (the versions in the
#: lock file: huggingface_hub 2.4, numpy 2.4, tqdm 4.70). tqdm's envwrap (tqdm/utils.py:34-76, applied to
#: tqdm.__init__ at tqdm/std.py:958 when tqdm is imported: `model pull`, hub downloads) turns every
#: TQDM_<argument> into that argument, converted by its `types` (total/ncols/miniters/position/nrows) or by
#: the type of its default, uncaught; an argument whose default is None is kept as text (TQDM_FILE: below).
INT_ENV: dict[str, str] = {
    "HF_HUB_ETAG_TIMEOUT": "huggingface_hub/constants.py:310 (_as_int)",
    "HF_HUB_DOWNLOAD_TIMEOUT": "huggingface_hub/constants.py:314 (_as_int)",
    "NUMPY_MADVISE_HUGEPAGE": "numpy/__init__.py:923 (hugepage_setup)",
    "TQDM_NCOLS": "tqdm/std.py:958 types['ncols']",
    "TQDM_POSITION": "tqdm/std.py:958 types['position']",
    "TQDM_NROWS": "tqdm/std.py:958 types['nrows']",
    "TQDM_INITIAL": "tqdm/std.py:964 initial=0",
    "TQDM_UNIT_DIVISOR": "tqdm/std.py:964 unit_divisor=1000",
}
#: Variables a dependency converts with float(), as INT_ENV.
FLOAT_ENV: dict[str, str] = {
    "TQDM_TOTAL": "tqdm/std.py:958 types['total']",
    "TQDM_MINITERS": "tqdm/std.py:958 types['miniters']",
    "TQDM_MININTERVAL": "tqdm/std.py:961 mininterval=0.1",
    "TQDM_MAXINTERVAL": "tqdm/std.py:961 maxinterval=10.0",
    "TQDM_SMOOTHING": "tqdm/std.py:962 smoothing=0.3",
    "TQDM_DELAY": "tqdm/std.py:965 delay=0.0",
}
#: Sizes rich reads with int() after a str.isdigit() test (rich/console.py:685-692 and 1030-1036
#: COLUMNS/LINES; :660-668 JUPYTER_COLUMNS/LINES in a notebook): "²" or 5,000 digits pass the test and
#: int() fails (R23-1).
SIZE_ENV: dict[str, str] = {
    "COLUMNS": "rich/console.py:685",
    "LINES": "rich/console.py:689",
    "JUPYTER_COLUMNS": "rich/console.py:660",
    "JUPYTER_LINES": "rich/console.py:666",
}
#: Most digits a size may have (a terminal of 10^9 columns is no terminal).
INT_ENV_DIGITS = 9
#: Variables no value of which the dependency can use: tqdm keeps TQDM_FILE as text and writes to it
#: (tqdm/std.py:958, its default is None): "'str' object has no attribute 'write'" at the first bar.
NEVER_USABLE_ENV: dict[str, str] = {"TQDM_FILE": "tqdm/std.py:958 file=None"}


def _reads(convert: Callable[[str], object]) -> Callable[[str], bool]:
    def fails(value: str) -> bool:
        try:
            convert(value)
        except ValueError:  # int() of a text, or of more than sys.get_int_max_str_digits() digits
            return True
        return False

    return fails


def _bad_size(value: str) -> bool:
    """rich skips a size that fails str.isdigit(); one that passes must be an ASCII number int() reads."""
    return value.isdigit() and not (value.isascii() and len(value) <= INT_ENV_DIGITS)


def drop_unreadable_env() -> None:
    """Drop (one warning line each) a variable of INT_ENV, FLOAT_ENV, SIZE_ENV or NEVER_USABLE_ENV whose
    value its reader would fail on, so that the dependency uses its default."""
    checks: list[tuple[dict[str, str], Callable[[str], bool], str]] = [
        (INT_ENV, _reads(int), "is not a usable whole number"),
        (FLOAT_ENV, _reads(float), "is not a usable number"),
        (SIZE_ENV, _bad_size, "is not a usable whole number"),
        (NEVER_USABLE_ENV, lambda _value: True, "names no file tqdm can write to"),
    ]
    for names, bad, why in checks:
        for name in names:
            value = os.environ.get(name)
            if value is not None and bad(value):
                _drop(name, value, why)


#: What TEXTUAL_COLOR_SYSTEM may be besides rich's COLOR_SYSTEMS (rich/console.py:525, looked up with [] at
#: rich/console.py:712 from textual/app.py:623): "auto" detects the terminal's.
_COLOR_AUTO = "auto"


def drop_unusable_tui_env() -> None:
    """Before the TUI imports textual (textual/constants.py reads its variables at import), drop (one
    warning line each) what textual would fail on: a TEXTUAL_COLOR_SYSTEM rich does not know (the
    terminal's is detected instead); a TEXTUAL_LOG file that cannot be opened for appending (textual/
    __init__.py:93 opens it at every log call: "internal error: FileNotFoundError"); a TEXTUAL_SCREENSHOT
    whose folder (TEXTUAL_SCREENSHOT_LOCATION, else the current one: textual/app.py:1907-1916) cannot be
    written (a rich traceback on the screen). TEXTUAL_DRIVER is checked by the app (tui/app.py)."""
    value = os.environ.get("TEXTUAL_COLOR_SYSTEM")
    if value is not None and value != _COLOR_AUTO:
        from rich.console import COLOR_SYSTEMS  # only when set: rich is ~0.05 s to import

        if value not in COLOR_SYSTEMS:
            choices = ", ".join([_COLOR_AUTO, *COLOR_SYSTEMS])
            _drop("TEXTUAL_COLOR_SYSTEM", value, f"is not one of {choices}")
    log = os.environ.get("TEXTUAL_LOG")
    if log:
        try:
            with open(log, "a", encoding="utf-8"):  # textual appends to it (creating it) at its first log
                pass
        except (OSError, ValueError) as e:  # ValueError: a NUL in the path
            _drop("TEXTUAL_LOG", log, f"cannot be written ({getattr(e, 'strerror', None) or e})")
    delay = os.environ.get("TEXTUAL_SCREENSHOT")
    if delay is not None:
        place = os.environ.get("TEXTUAL_SCREENSHOT_LOCATION") or "./"
        name = os.environ.get("TEXTUAL_SCREENSHOT_FILENAME") or "screenshot.svg"
        folder = os.path.dirname(os.path.expanduser(os.path.join(place, name))) or "."
        if not (os.path.isdir(folder) and os.access(folder, os.W_OK)):
            _drop("TEXTUAL_SCREENSHOT", delay, f"would write into {folder}, which is no writable folder")


def _drop(name: str, value: str, why: str) -> None:
    del os.environ[name]
    say(f"gorilla-tui: warning: {name}={safe_line(value[:40])} {why}: ignored")
