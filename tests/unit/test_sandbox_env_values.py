"""Break-it round 11, R11-7 (issue 42, kind 6): the variables the sandbox lets in took any value of a loose
shape, and TERM=ghp_..., TZ=sk_live_..., NO_COLOR=SECRET1, LANGUAGE=de:en_US.SECRETB reached the code.
Each passes now only as a value the variable really takes (sandbox/isolation.py passed_value): a terminfo
entry, a tz database zone or POSIX rule, "1" for NO_COLOR, locale names of glibc's codesets. A real run."""

from __future__ import annotations

from pathlib import Path

import pytest

from gorilla_tui.sandbox.isolation import passed_value
from gorilla_tui.sandbox.limits import Limits
from gorilla_tui.sandbox.runner import SandboxRun

NAMES = ("TERM", "TZ", "NO_COLOR", "LANGUAGE", "LANG", "LC_TIME")
SHOW = "import os, time\nfor k in {names!r}:\n    print(k, '=', os.environ.get(k))\nprint(time.tzname)\n"


def _run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, values: dict[str, str]) -> dict[str, str]:
    for name in NAMES:
        monkeypatch.delenv(name, raising=False)
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    lines: list[str] = []
    code = SHOW.format(names=NAMES)
    run = SandboxRun(code, limits=Limits(timeout_s=10.0), on_output=lambda _s, line: lines.append(line),
                     base_dir=tmp_path)  # fmt: skip
    result = run.run()
    assert result.exit_status == 0, result.output
    seen = dict(line.split(" = ", 1) for line in result.output.splitlines() if " = " in line)
    seen["tzname"] = result.output.splitlines()[-1]
    return seen


def test_secret_shaped_values_never_reach_the_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _run(tmp_path, monkeypatch, {
        "TERM": "ghp_SECRETTOKEN0123456789abcdef", "TZ": "sk_live_SECRETTZ99", "NO_COLOR": "SECRET1",
        "LANGUAGE": "de:en_US.SECRETB", "LANG": "en.sk_live_SE", "LC_TIME": "de_DE.TOKEN42",
    })  # fmt: skip
    assert seen == {**dict.fromkeys(NAMES, "None"), "NO_COLOR": "1", "tzname": "('UTC', 'UTC')"}, seen


def test_values_the_variables_take_still_pass(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A terminfo name, a zone the run's libc reads, the locale names gettext and setlocale take."""
    values = {"TERM": "xterm-256color", "TZ": "Europe/Paris", "NO_COLOR": "", "LANGUAGE": "de_DE.UTF-8:de:en",
              "LANG": "C.UTF-8", "LC_TIME": "en_US.utf8"}  # fmt: skip
    seen = _run(tmp_path, monkeypatch, values)
    assert seen == {**values, "NO_COLOR": "None", "tzname": "('CET', 'CEST')"}, seen


@pytest.mark.parametrize(
    "name,value,passed",
    [
        ("TZ", "CET-1CEST,M3.5.0,M10.5.0/3", True),
        ("TZ", "<+0330>-3:30", True),
        ("TZ", ":America/New_York", True),
        ("TZ", "zone.tab", False),  # a file of the database, no zone
        ("TZ", "../../../etc/passwd", False),
        ("TZ", "SECRETTOKEN5", False),
        ("TERM", "nosuchterminal", False),
        ("TERM", "../../x/xterm", False),
        ("LANG", "sr_RS@latin", True),
        ("LANG", "en_US@SECRET", False),
        ("LANGUAGE", ":".join(["de"] * 9), False),  # more names than gettext needs: room for data
        ("COLUMNS", "120", True),
        ("COLUMNS", "12O", False),
    ],
)
def test_each_value_is_one_the_variable_takes(name: str, value: str, passed: bool) -> None:
    assert (passed_value(name, value) == value) is passed
