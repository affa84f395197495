"""Break-it round 27, the retrieval and filling classes fixed by s12-fix27b (the standard library's python-env
pool and the real tiny model):

- R27-6: a no-break space inside an unquoted path ("delete the file /tmp/my\u00a0file.txt") cut it for
  retrieval: "/tmp/my" was searched as "path" beside "txt file", the hits changed and os.path.splitext was
  chosen instead of os.remove. Filling already read the path whole (R25-5, R26-3).
- R27-10: "3 days and 4 hours" gave 4 to hours and its 14,400 seconds to seconds as well:
  ``datetime.timedelta(3, 14400, hours=hours)``.
"""

from __future__ import annotations

import pytest

from gorilla_tui.fill.call_grammar import TaskValues
from gorilla_tui.fill.filler import fill, target_of
from gorilla_tui.retrieve.query.literals import intent_text
from gorilla_tui.textsafe import clean_task

BLANKS = ["\u00a0", "\u2007", "\u202f", "\u3000"]


@pytest.mark.parametrize("blank", BLANKS)
@pytest.mark.parametrize(
    "path",
    ["/tmp/alpha{}beta.txt", "~/alpha{}beta/gamma{}delta.md", "C:\\alpha{}beta\\a.txt",
     "backup/alpha{}beta.csv", "/srv/alpha{}beta"],
)  # fmt: skip
def test_a_no_break_space_inside_a_path_is_searched_as_the_path(blank: str, path: str) -> None:
    task, _ = clean_task(f"delete {path.format(blank, blank)} now")
    assert intent_text(task) == intent_text(f"delete {path.format('', '')} now"), task
    assert not {"alpha", "beta", "gamma", "delta"} & set(intent_text(task).split()), intent_text(task)


def test_a_no_break_space_before_a_path_still_ends_the_word() -> None:
    # before the first separator it is a space, as filling reads it (fill/call_grammar.py _PATH_TOKEN)
    assert intent_text("read my\u00a0dir/file.txt") == "read my txt file"
    assert intent_text("list /var/log\u00a0 now") == "list path now"


def _offered(docs, name: str, task: str) -> dict[str, list[str]]:
    """Parameter -> the values filling offers it for `task`."""
    target = target_of(docs[name], TaskValues.of(task), docs.get, {})
    return {s.param.name: list(s.values) for s in target.offered}


def test_a_number_claimed_by_its_unit_name_is_offered_nowhere_else(docs) -> None:
    offered = _offered(docs, "datetime.timedelta", "make a timedelta of 3 days and 4 hours")
    assert offered == {"days": ["3"], "hours": ["4"]}, offered
    # a parameter that takes seconds still takes a time in another unit when no parameter is named by it
    assert _offered(docs, "time.sleep", "wait 2 minutes")["seconds"] == ["120"]


@pytest.mark.model
def test_the_model_fills_each_value_once(gemma_backend, docs, validator) -> None:
    filled = fill(gemma_backend, "make a timedelta of 3 days and 4 hours", docs["datetime.timedelta"],
                  constructors=docs.get)  # fmt: skip
    assert validator.check(filled.call).kind == "valid", filled.call
    given = {a.name: (a.value, a.origin) for a in filled.arguments}
    assert given == {"days": ("3", "task"), "hours": ("4", "task")}, filled.call
