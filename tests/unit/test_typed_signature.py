"""APIZoo client calls written as typed signatures (``youtube.search().list(part: str, q: str)``) get a
Python-valid call with keyword placeholders (pool/repair.keyword_call), so select mode can offer them and
the checker matches filled-in calls against them; on the small pool of tests/data/pool."""

from __future__ import annotations

import pytest

from gorilla_tui.check.validator import Validator
from gorilla_tui.pool.doc import ApiDoc
from gorilla_tui.pool.repair import keyword_call, repair_call


@pytest.mark.parametrize(
    ("api_call", "expected"),
    [
        ("youtube.search().list(part: str, q: str).execute()",
         "youtube.search().list(part=part, q=q).execute()"),
        ("service.events().insert(calendarId: str).execute()",
         "service.events().insert(calendarId=calendarId).execute()"),
        ("client.list(maxResults: int = 5, tags: List[str])", "client.list(maxResults=5, tags=tags)"),
    ],
)  # fmt: skip
def test_typed_parameters_become_keywords(api_call: str, expected: str) -> None:
    assert keyword_call(api_call) == expected
    assert repair_call(api_call) == (expected, "typed signature as keywords")


@pytest.mark.parametrize(
    "api_call",
    [
        "service.events().import(calendarId: str).execute()",  # `import` is a keyword: still not Python
        "openweathermap.one_call(lat={lat}, appid={API key})",  # no typed parameter
    ],
)
def test_no_repair_when_it_would_not_parse(api_call: str) -> None:
    assert keyword_call(api_call) is None


def test_small_pool_entry_is_offered_and_checked(small_pool: list[ApiDoc]) -> None:
    doc = next(d for d in small_pool if d.api_name == "Youtube API - search.list")
    assert doc.flagged and doc.repaired == "youtube.search().list(part=part, q=q).execute()"
    assert doc.call == doc.repaired
    validator = Validator(small_pool)
    filled = validator.check("youtube.search().list(part='snippet', q='sourdough bread').execute()")
    assert filled.kind == "valid" and filled.matched is doc
    made_up = validator.check("youtube.search().lists(part='snippet').execute()")
    assert made_up.kind != "valid"
