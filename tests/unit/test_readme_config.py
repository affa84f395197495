"""The README's config.toml example names every setting the app reads (config.Settings), with its default
and a comment saying what it means, and is a config file load_settings accepts."""

from __future__ import annotations

import re
import sys
from dataclasses import asdict, fields
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from gorilla_tui.config import Settings, load_settings

README = Path(__file__).resolve().parents[2] / "README.md"


def _example() -> str:
    text = README.read_text(encoding="utf-8")
    section = text.split("## Configuration and files", 1)[1]
    found = re.search(r"```toml\n(.*?)```", section, re.S)
    assert found, "no ```toml block under 'Configuration and files' in README.md"
    return found.group(1)


def test_the_readme_config_example_lists_every_setting_with_its_default(tmp_path):
    example = _example()
    data = tomllib.loads(example)
    assert set(data) == {f.name for f in fields(Settings)}, set(data) ^ {f.name for f in fields(Settings)}
    assert data == asdict(Settings())  # the values shown are the defaults
    for line in example.splitlines():
        if line.strip():
            assert "#" in line.split("=", 1)[1], f"no comment saying what it means: {line}"
    path = tmp_path / "config.toml"
    path.write_text(example, encoding="utf-8")
    assert load_settings(path) == Settings()
