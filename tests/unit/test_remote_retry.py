"""RemoteBackend's wait between retries (HTTP 429/5xx): exponential backoff, Retry-After, the cap."""

from __future__ import annotations

import email.utils
import math
import time

import pytest

from gorilla_tui.model.remote import MAX_BACKOFF_S, RETRY_STATUSES, retry_delay


def test_backoff_doubles_and_is_capped() -> None:
    assert [retry_delay(a, 0.5) for a in range(4)] == [0.5, 1.0, 2.0, 4.0]
    assert retry_delay(20, 0.5) == MAX_BACKOFF_S


def test_retry_after_seconds_or_date_wins_over_backoff() -> None:
    assert retry_delay(3, 0.5, "0") == 0.0
    assert retry_delay(0, 0.5, "7") == 7.0
    assert retry_delay(0, 0.5, "3600") == MAX_BACKOFF_S
    soon = email.utils.formatdate(time.time() + 10, usegmt=True)
    assert 8.0 <= retry_delay(0, 0.5, soon) <= 10.0
    assert retry_delay(1, 0.5, "not a date") == 1.0


def test_which_statuses_are_retried() -> None:
    assert {429, 500, 502, 503, 504} == set(RETRY_STATUSES)
    assert 400 not in RETRY_STATUSES and 404 not in RETRY_STATUSES


#: Retry-After values a hostile or broken server can send (break-it round 18, R18-1: the two dates past the
#: platform's range raised OverflowError, "internal error" in ask, eval run and mcp).
HOSTILE_RETRY_AFTER = [
    "Sun, 06 Nov 99999999999 08:49:37 GMT",
    "Sun, 06 Nov 1994 08:49:37 +99999999999999999999",
    "Sun, 06 Nov 1994 99999999999:49:37 GMT",
    "Sun, 99 Nov 1994 08:49:37 GMT",
    "Sun, 06 Nov 0000 08:49:37 GMT",
    "Sun, 06 Nov -5 08:49:37 GMT",
    "Sun, 06 Nov 1994 08:49:37 -99999999999999999999",
    "1e999",
    "-1e999",
    "nan",
    "-100",
    "9" * 400,
    "-" + "9" * 400,
    "0x10",
    "\x00\x1b]0;x\x07",
    " ",
    "Sun, 06 Nov",
]


@pytest.mark.parametrize("value", HOSTILE_RETRY_AFTER)
def test_any_retry_after_gives_a_bounded_wait(value: str) -> None:
    """Whatever the header holds: a number in [0, MAX_BACKOFF_S], never an exception (R18-1)."""
    for attempt in (0, 3, 10_000):
        wait = retry_delay(attempt, 0.5, value)
        assert isinstance(wait, float) and math.isfinite(wait) and 0.0 <= wait <= MAX_BACKOFF_S, wait


def test_a_retry_after_without_a_usable_wait_is_backoff() -> None:
    """NaN, garbage and dates the platform cannot convert name no wait: the backoff is used."""
    for value in (
        "nan",
        "0x10",
        "Sun, 06 Nov 99999999999 08:49:37 GMT",
        "Sun, 06 Nov 1994 08:49:37 +" + "9" * 20,
    ):
        assert retry_delay(1, 0.5, value) == 1.0, value
    assert retry_delay(1, 0.5, "1e999") == MAX_BACKOFF_S and retry_delay(1, 0.5, "-1e999") == 0.0
