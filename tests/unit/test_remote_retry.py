"""RemoteBackend's wait between retries (HTTP 429/5xx): exponential backoff, Retry-After, the cap."""

from __future__ import annotations

import email.utils
import time

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
