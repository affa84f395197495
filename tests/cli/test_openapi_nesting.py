"""Break-it pass 4, kind 4 (partly held): an OpenAPI `--source` with a ``$ref`` cycle, or a valid schema
nested 900 levels deep, was refused with Python's own "maximum recursion depth exceeded" (from
openapi-spec-validator). Each is one line in our words, exit 2; a recursive schema (a tree whose child is
itself) still loads. Real documents in tmp_path, the CLI in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gorilla_tui.pool.openapi import MAX_NESTING

ROOT = Path(__file__).resolve().parents[2]
A, B = "#/components/schemas/A", "#/components/schemas/B"


def _document(schemas: dict[str, Any]) -> dict[str, Any]:
    body = {"application/json": {"schema": {"$ref": A}}}
    get = {"operationId": "listPets", "responses": {"200": {"description": "ok", "content": body}}}
    return {
        "openapi": "3.0.3",
        "info": {"title": "pets", "version": "1"},
        "paths": {"/pets": {"get": get}},
        "components": {"schemas": schemas},
    }


def _cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GORILLA_TUI_HOME": str(tmp_path / "home")}
    done = subprocess.run(
        [sys.executable, "-m", "gorilla_tui", *args], capture_output=True, text=True, env=env, timeout=300
    )
    assert "recursion" not in done.stderr and "internal error" not in done.stderr, done.stderr
    return done


def _nested(levels: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"x": schema}}
    return schema


@pytest.mark.parametrize(
    ("schemas", "why"),
    [
        ({"A": {"$ref": B}, "B": {"$ref": A}}, f"$ref cycle at {A} ({A} -> {B})"),
        ({"A": {"$ref": A}}, f"$ref cycle at {A} ({A})"),
        ({"A": _nested(450)}, f"nested deeper than {MAX_NESTING} levels"),
        ({"A": {"allOf": [{"$ref": A}]}}, f"$ref cycle at {A} ({A})"),  # in place: refused before validation
    ],
    ids=["cycle", "self", "900-deep", "allof-cycle"],
)
def test_a_ref_cycle_or_deep_nesting_is_one_line_exit_2(tmp_path: Path, schemas, why: str) -> None:
    doc = tmp_path / "api.json"
    doc.write_text(json.dumps(_document(schemas)))
    done = _cli(tmp_path, "index", "--refresh", "--source", str(doc), "--no-dense")
    assert done.returncode == 2 and f"gorilla-tui: error: --source refused: {doc}: " in done.stderr
    assert why in done.stderr and done.stderr.count("\n") <= 2, done.stderr
    done = _cli(tmp_path, "check", "GET /pets", "--pool", str(doc))
    assert done.returncode == 2 and done.stderr.startswith(f"gorilla-tui: error: {doc}: ")
    assert why in done.stderr


def test_a_recursive_schema_still_loads(tmp_path: Path) -> None:
    doc = tmp_path / "tree.json"
    tree = {"type": "object", "properties": {"child": {"$ref": A}, "deep": _nested(40)}}
    doc.write_text(json.dumps(_document({"A": tree})))
    done = _cli(tmp_path, "check", "GET /pets", "--pool", str(doc))
    assert done.returncode == 0, done.stderr
