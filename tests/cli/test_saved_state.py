"""Issue 17 through the CLI: bad sources, a damaged index, a damaged or unwritable history and a bad config
each give one line (never a traceback), and no answer or saved state is lost."""

from __future__ import annotations

import pytest

from gorilla_tui.cli import main
from gorilla_tui.paths import get_paths


def _one_line_error(err: str) -> str:
    lines = err.strip().splitlines()
    assert lines and lines[0].startswith("gorilla-tui: error: ") and "Traceback" not in err, err
    return lines[0]


@pytest.mark.parametrize(
    "text, message",
    [
        ("sources = [1, 2]", "setting 'sources' must be a list of non-empty strings, not [1, 2]"),
        ('sources = "a.jsonl"', "setting 'sources' must be a list of strings, not 'a.jsonl'"),
        ('sources = [""]', "setting 'sources' must be a list of non-empty strings, not ['']"),
        ('k = "5"', "setting 'k' must be an integer, not '5'"),
        ("k = true", "setting 'k' must be an integer, not True"),
        ("model = 3.5", "setting 'model' must be a string, not 3.5"),
        ("[model]\nname = 'x'", "setting 'model' must be a string, not {'name': 'x'}"),
        *[
            (
                f"n_ctx = {n}",
                f"n_ctx must be 0 (the kernel profile's context size) or at least 512 tokens, not {n}",
            )
            for n in (-1, 16, 511)  # 16 was accepted: every ask then failed in the model
        ],
        ("n_threads = -2", "n_threads must be 0 (the kernel profile's default) or positive, not -2"),
        (
            "n_gpu_layers = -5",
            "n_gpu_layers must be -1 (the kernel profile's default), 0 (CPU only) or more, not -5",
        ),
        (None, "is a folder, not a config file (remove it or move it aside)"),
    ],
)
def test_config_of_the_wrong_type_or_shape_is_one_line_naming_the_key(text, message, capsys) -> None:
    cfg = get_paths().config_file
    cfg.parent.mkdir(parents=True, exist_ok=True)
    if text is None:
        cfg.mkdir()
    else:
        cfg.write_text(text + "\n")
    assert main(["index", "--refresh"]) == 2
    assert _one_line_error(capsys.readouterr().err) == f"gorilla-tui: error: {cfg}: {message}"


@pytest.mark.parametrize("recorded", [True, False])
@pytest.mark.parametrize(
    "garbage, why",
    [
        (b"\x80\x04\x95garbage" * 100, "postings.npz is not a NumPy archive (it holds other data)"),
        (b"PK\x03\x04 cut short", "postings.npz is not a NumPy archive (File is not a zip file)"),
    ],
)
def test_damaged_postings_name_the_file_and_never_advise_unsafe_loading(
    garbage, why, recorded, capsys
) -> None:
    """Break-it pass 10: random bytes in postings.npz gave numpy's advice to load the file "unsafely using
    the allow_pickle= keywo[rd]" (cut mid-word), and a cut archive did not say which file it was. An index
    with its record of its files is refused by the integrity check before the file is read, in its one
    wording; one without a record (an older release: tests.conftest.unrecord) by the read, naming it."""
    from tests.conftest import SMALL_POOL, unrecord

    assert main(["index", "--refresh", "--from", str(SMALL_POOL), "--only", "torchhub"]) == 0
    capsys.readouterr()
    version = get_paths().index_dir / (get_paths().index_dir / "CURRENT").read_text().strip()
    if not recorded:
        unrecord(version)
    (version / "postings.npz").write_bytes(garbage)
    assert main(["search", "classify images"]) == 2
    line = _one_line_error(capsys.readouterr().err)
    why = why if not recorded else "postings.npz changed since it was built"
    assert line == f"gorilla-tui: error: the index at {version} is damaged ({why}); rebuild it"
    assert "pickle" not in line
