"""Access to the data folders shipped with the package (kernels/, index/, vectors/) via
importlib.resources."""

from __future__ import annotations

from importlib import resources
from importlib.abc import Traversable
from pathlib import Path


def data_dir(name: str) -> Traversable:
    """Return the shipped data folder `name` ("kernels", "index" or "vectors").

    In a wheel the folders live at gorilla_tui/_data/<name> (hatchling force-include); in a source
    checkout or editable install they are the top-level folders of the repository.
    Raises FileNotFoundError when neither exists.
    """
    packaged = resources.files("gorilla_tui") / "_data" / name
    if packaged.is_dir():
        return packaged
    source = Path(__file__).resolve().parent.parent / name
    if source.is_dir():
        return source
    raise FileNotFoundError(f"data folder {name!r} is missing from the installation")


def data_files(name: str, suffix: str = ".toml") -> list[Traversable]:
    """All files in data folder `name` ending in `suffix`, sorted by file name."""
    return sorted((f for f in data_dir(name).iterdir() if f.name.endswith(suffix)), key=lambda f: f.name)
