"""Break-it round 27 (issue 42), one test per class fixed (the generate-mode import and colon classes are in
tests/cli/test_generate_imports.py and tests/unit/test_handover.py, the string-or-file class in
tests/unit/test_fill_values_r26.py):

- R27-7: a source file whose read fails midway (EIO: /proc/self/mem, a failing disk) was "internal error"
  in `check --pool` and `index --refresh`: one line saying it cannot be read, exit 2.
- R27-13: ``__import__('os.path')`` returns the top-level package (os), so ``__import__('os.path').path.join``
  is os.path.join (was called a hallucination) and ``__import__('os.path').join`` is os.join (was valid).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gorilla_tui.check.validator import Validator
from gorilla_tui.cli import main

MEM = Path("/proc/self/mem")


@pytest.mark.skipif(not MEM.exists(), reason="needs Linux's /proc/self/mem (a file whose read fails: EIO)")
def test_a_source_whose_read_fails_is_one_line_and_exit_2(gorilla_home: Path, capsys) -> None:
    assert main(["check", "--pool", str(MEM), "--code", "x()"]) == 2
    err = capsys.readouterr().err
    assert "cannot read" in err and "internal error" not in err and len(err.strip().splitlines()) == 1


def test_a_dotted_dynamic_import_is_its_top_level_package(validator: Validator) -> None:
    ok = validator.check_code("__import__('os.path').path.join('a', 'b')")
    assert ok.kind == "valid" and "os.path.join" in [c.callee for c in ok.calls], ok
    assert validator.check_code("__import__('os.path').join('a', 'b')").kind == "hallucination"
