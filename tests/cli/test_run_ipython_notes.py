"""Break-it round 12 (R12-4): `run NB.ipynb` noted skipped ``!cmd`` lines but dropped other IPython lines in
silence (``x = %sx echo hi`` became None; ``%env``, ``%cd``, ``%%bash`` vanished), and after a skipped
``%%writefile m.py`` the failing ``import m`` got "pip install m". Every line or cell `run` does not run
as IPython would is named in one note, and the ImportError of a module a skipped %%writefile would have
made says so. Real sandbox runs."""

from __future__ import annotations

from pathlib import Path

from gorilla_tui.check.notebook import HELP_NOTE
from gorilla_tui.cli import main
from gorilla_tui.cli.run import file_code
from tests.conftest import SMALL_POOL, clone_home
from tests.hostile_cli import notebook


def test_every_ipython_line_run_does_not_run_is_named_in_one_note(capsys, tmp_path) -> None:
    nb = notebook(
        tmp_path / "nb.ipynb",
        "x = %sx echo hi\nprint(x)\n%env FOO=1\n%time print(1)\n",
        "%%writefile m.py\nprint('from m')\n",
        "%%bash\necho hi\n",
        "%cd /\ny = !ls\n!echo bang\nprint?\n",
    )
    code = file_code(nb, Path(nb).read_text())
    assert code.splitlines()[:4] == ["x = None", "print(x)", "pass", "if 1:" + " " * 1 + "print(1)"]
    assert "# gorilla-tui: not written by run: %%writefile m.py" in code.splitlines()
    err = capsys.readouterr().err
    assert err == (
        f"gorilla-tui: note: {nb}: cell 4: line 4 {HELP_NOTE}\n"  # help: IPython-only (break-it round 13)
        f"gorilla-tui: note: {nb}: IPython lines not run as IPython runs them (`run` runs the Python): "
        "cell 1 line 1 `x = %sx echo hi` (x gets None); cell 1 line 3 `%env FOO=1` (not run); "
        "cell 2 line 1 `%%writefile m.py` (m.py not written); cell 3 line 1 `%%bash` (cell not run); "
        "cell 4 line 1 `%cd /` (not run); cell 4 line 2 `y = !ls` (y gets []); "
        "cell 4 line 3 `!echo bang` (not run)\n"
    )


def test_an_import_of_a_module_a_skipped_writefile_makes_is_not_sent_to_pip(
    gorilla_home, home_template, capsys, tmp_path
) -> None:
    clone_home(
        home_template(["index", "--refresh", "--only", "python-env", "--from", str(SMALL_POOL)]), gorilla_home
    )
    nb = notebook(tmp_path / "nb.ipynb", "%%writefile m.py\nprint('from m')\n", "import m\n")
    assert main(["run", nb, "--yes"]) == 1
    err = capsys.readouterr().err
    assert "No module named 'm'" in err and "pip install" not in err
    assert "missing module: m: the notebook's %%writefile m.py would have made it;" in err
