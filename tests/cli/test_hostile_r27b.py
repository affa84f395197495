"""Break-it round 27 (issue 42), the check, tools-schema, fit and doctor classes (the others are in
tests/cli/test_hostile_r27.py):

- R27-3: a tools.json parameter typed through ``$ref`` was never type-checked (any value passed), and a
  schema applying itself through ``allOf``/``anyOf`` was accepted: refs are inlined as OpenAPI's are, and
  an in-place cycle is refused whole, exit 2.
- R27-8: doctor said "no problems found" for config.toml sources that refresh refuses: a tools file with a
  ``$ref`` cycle (doctor reads each source with refresh's reader) and ``python:NAME`` naming nothing (now
  refused by both, before any work, as ``--source python:NAME`` is).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gorilla_tui.cli import main
from gorilla_tui.paths import get_paths


def _tool(name: str, properties: dict, defs: dict) -> list[dict]:
    parameters = {"type": "object", "properties": properties, "required": list(properties), "$defs": defs}
    return [{"type": "function", "function": {"name": name, "description": "d", "parameters": parameters}}]


def _verdict(capsys, args: list[str]) -> tuple[int, dict]:
    status = main(args)
    out = capsys.readouterr().out
    return status, (json.loads(out) if out.strip() else {})


def test_a_parameter_typed_through_a_ref_is_type_checked(gorilla_home: Path, tmp_path: Path, capsys) -> None:
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(_tool("pr", {"x": {"$ref": "#/$defs/I"}}, {"I": {"type": "integer"}})))
    status, verdict = _verdict(capsys, ["check", "--json", "--pool", str(path), "--code", "pr(x='s')"])
    assert (status, verdict["reason"]) == (1, "wrong_args:wrong_type"), verdict
    assert main(["check", "--pool", str(path), "--code", "pr(x=3)"]) == 0


@pytest.mark.parametrize("applicator", ["allOf", "anyOf", "oneOf"])
def test_a_schema_that_applies_itself_in_place_is_refused(
    gorilla_home: Path, tmp_path: Path, capsys, applicator: str
) -> None:
    path = tmp_path / "tools.json"
    defs = {"A": {applicator: [{"type": "integer"}, {"$ref": "#/$defs/A"}]}}
    path.write_text(json.dumps(_tool("loop_a", {"x": {"$ref": "#/$defs/A"}}, defs)))
    assert main(["check", "--pool", str(path), "--code", "loop_a(x=1)"]) == 2
    line = f"{path}: function 'loop_a': $ref cycle at #/$defs/A (#/$defs/A)"
    assert capsys.readouterr().err.strip() == f"gorilla-tui: error: {line}"


def test_a_recursive_schema_that_nests_is_no_cycle(gorilla_home: Path, tmp_path: Path, capsys) -> None:
    """A tree node whose children are nodes nests (each level a new value): indexed, its root type judged."""
    node = {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/N"}}}}
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(_tool("walk", {"tree": {"$ref": "#/$defs/N"}}, {"N": node})))
    assert main(["check", "--pool", str(path), "--code", "walk(tree={'children': []})"]) == 0
    capsys.readouterr()
    status, verdict = _verdict(capsys, ["check", "--json", "--pool", str(path), "--code", "walk(tree=[1])"])
    assert (status, verdict["reason"]) == (1, "wrong_args:wrong_type"), verdict


def _doctor_and_refresh(entry: str, capsys, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str, int, str]:
    """(doctor's exit, its problem lines, refresh's exit, its stderr) with config.toml sources = [entry]."""
    monkeypatch.setenv("COLUMNS", "400")  # the problem line unwrapped
    config = get_paths().config_file
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f"sources = [{json.dumps(entry)}]\n", encoding="utf-8")
    doctor = main(["doctor", "--no-hash", "--no-inference"])
    said = capsys.readouterr()
    problems = "\n".join(x for x in (said.out + said.err).splitlines() if x.startswith("problem:"))
    refresh = main(["index", "--refresh", "--no-dense", "--only", "python-env"])
    return doctor, problems, refresh, capsys.readouterr().err


def test_doctor_reports_a_configured_tools_file_with_a_ref_cycle(
    gorilla_home: Path, tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "cyc.json"
    path.write_text(json.dumps(_tool("cyc", {"x": {"$ref": "#/properties/x"}}, {})), encoding="utf-8")
    doctor, problems, _, _ = _doctor_and_refresh(f"x={path}", capsys, monkeypatch)
    line = f"{path}: function 'cyc': $ref cycle at #/properties/x (#/properties/x)"
    assert doctor == 1 and f"sources entry 'x={path}': {line}" in problems, problems
    assert main(["index", "--refresh", "--no-dense", "--only", "x"]) == 2
    assert line in capsys.readouterr().err


def test_doctor_and_refresh_refuse_a_configured_python_name_that_names_nothing(
    gorilla_home: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    doctor, problems, refresh, err = _doctor_and_refresh("python:no_such_pkg_xyz", capsys, monkeypatch)
    why = "'no_such_pkg_xyz' is neither an installed distribution nor an importable module"
    assert doctor == 1 and f"sources entry 'python:no_such_pkg_xyz': {why}" in problems, problems
    assert refresh == 2 and why in err and len(err.strip().splitlines()) == 1, err
