"""Break-it round 31 (findings 8 and 14): values read wrong. A date inside a path or URL is part of it (the
path is the value, not the date), a folder the task names as a variable goes into the glob pattern, and
bounds in words are the range a sampling function draws from. Shown on tasks of the same classes as the
findings', not on theirs, on the running Python's standard-library pool (tests/stdlib_fixtures.py); the
model fills them at the end."""

from __future__ import annotations

import pytest

from gorilla_tui.config import Settings
from gorilla_tui.fill.unused import left_out
from gorilla_tui.fill.values import strings
from gorilla_tui.pipeline import Pipeline
from gorilla_tui.retrieve.index import ApiIndex
from tests.stdlib_fixtures import offered_values

_offered = offered_values


@pytest.mark.parametrize(
    ("task", "value"),
    [
        ("get the base name of /var/backups/2025-03-01.tar", "/var/backups/2025-03-01.tar"),
        (
            "download https://example.org/reports/2026-01-31/summary.pdf now",
            "https://example.org/reports/2026-01-31/summary.pdf",
        ),
        ("how big is sales_2024-06-30.xlsx", "sales_2024-06-30.xlsx"),
        ("open logs/2026-12-01/app.log", "logs/2026-12-01/app.log"),
    ],
)
def test_a_date_inside_a_path_is_part_of_it(task: str, value: str) -> None:
    """ "what is the folder part of /srv/data/2026-12-07.csv" was glob.glob('2026-12-07'): the date was read
    first and the path around it cut into 'srv' and 'data'."""
    read = [c.value for c in strings(task)]
    assert value in read and not any(v != value and v in value and "-" in v for v in read), read


def test_a_date_alone_is_still_a_date(docs) -> None:
    assert [c.kind for c in strings("what weekday was 2025-03-01?") if c.value == "2025-03-01"] == ["date"]
    assert _offered(docs, "os.path.basename", "get the base name of /var/backups/2025-03-01.tar") == {
        "p": ["'/var/backups/2025-03-01.tar'"]
    }


@pytest.mark.parametrize(
    ("task", "pattern"),
    [
        ("find the .json files in `config_dir`", "os.path.join(config_dir, '*.json')"),
        ("list every .py file under the directory `src` and its subfolders", "os.path.join(src, '**/*.py')"),
        ("list the .txt files in /tmp/notes", "'/tmp/notes/*.txt'"),  # a folder written out: as before
    ],
)
def test_a_folder_variable_goes_into_the_glob_pattern(docs, task: str, pattern: str) -> None:
    """ "list the files in `folder` that end with .csv" was glob.glob('*.csv'), the folder unused."""
    assert _offered(docs, "glob.glob", task)["pathname"] == [pattern]


@pytest.mark.parametrize(
    ("name", "task", "offered"),
    [
        (
            "random.sample",
            "draw 6 lottery numbers between 1 and 49",
            {"population": ["range(1, 50)"], "k": ["6"]},
        ),
        ("random.choice", "choose a random number from 10 to 20", {"seq": ["range(10, 21)"]}),
        ("random.sample", "draw 4 numbers between 9 and 2", {"population": ["[9, 2]"], "k": ["4", "9", "2"]}),
    ],
)
def test_bounds_in_words_are_the_range_drawn_from(docs, name: str, task: str, offered) -> None:
    """ "pick 3 random numbers between 1 and 100" was randint(1, 100), 3 unused, or sample([1, 100], 3): the
    bounds are a range, the last included; bounds downwards are left as they were."""
    assert _offered(docs, name, task) == offered
    assert left_out("draw 6 lottery numbers between 1 and 49", "random.sample(range(1, 50), 6)") == []


@pytest.mark.model
def test_the_model_fills_them(stdlib_docs, gemma_backend) -> None:
    by_name = {d.api_name: d for d in stdlib_docs}

    def ask(name: str, task: str):
        return Pipeline(Settings(mode="select", k=1), ApiIndex.build([by_name[name]]), gemma_backend).ask(
            task
        )

    assert ask("os.path.dirname", "get the directory name of /srv/exports/2026-11-30.json").api_call == (
        "os.path.dirname('/srv/exports/2026-11-30.json')"
    )
    assert ask("random.sample", "take a random sample of 6 numbers between 1 and 49").api_call == (
        "random.sample(range(1, 50), 6)"
    )
    assert ask("glob.glob", "find the pathnames of the .json files in `config_dir`").api_call == (
        "glob.glob(os.path.join(config_dir, '*.json'))"
    )
