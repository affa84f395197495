"""Break-it round 27 (issue 42), the check, tools-schema, fit and doctor classes (the others are in
tests/cli/test_hostile_r27.py):

- R27-3: a tools.json parameter typed through ``$ref`` was never type-checked (any value passed), and a
  schema applying itself through ``allOf``/``anyOf`` was accepted: refs are inlined as OpenAPI's are, and
  an in-place cycle is refused whole, exit 2.
- R27-8: doctor said "no problems found" for config.toml sources that refresh refuses: a tools file with a
  ``$ref`` cycle (doctor reads each source with refresh's reader) and ``python:NAME`` naming nothing (now
  refused by both, before any work, as ``--source python:NAME`` is).
- R27-4: a chain read through typeshed's stubs (``sys.stdout.buffer.write``) was only half judged: a
  name its stub class lacks is a hallucination with did-you-mean, a method's arguments are held to the
  stub's signature, in `check --code` and `check FILE` alike; what the runtime class may add to an
  abstract stub type (``sys.stdout.buffer.detach``: io.BufferedWriter's) stays unjudged.
- R27-14: "join the list parts with tabs" got ``'\\t'.join(parts)`` judged "nothing fits": the words naming
  the separator the call takes ("tabs") are a value, and the fit judgment no longer reads them; a
  character the call works on ("newlines" of ``'\\n'.strip()``) is still read.
- R27-11: a type alias in a stub (timeit's ``_Timer: TypeAlias = Callable[[], float]``) admitted any value,
  so filling put 3 in ``timeit.Timer(timer=3)``; aliases are followed. `check` refuses a literal where a
  standard-library call's stub takes None alone (``threading.Thread('14:00')``: group).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gorilla_tui.check import lint
from gorilla_tui.check.validator import Validator
from gorilla_tui.cli import main
from gorilla_tui.config import Settings
from gorilla_tui.paths import get_paths
from gorilla_tui.pipeline import Pipeline
from gorilla_tui.pipeline_fit import without_named_characters
from gorilla_tui.pool.stub_cache import admits, kinds
from gorilla_tui.retrieve.fit import coverage
from gorilla_tui.retrieve.index import ApiIndex
from gorilla_tui.types import Argument


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


#: Code -> (verdict, reason, first did-you-mean) of `check --code` (the stdlib pool; R27-4).
CHAINS = {
    "import sys; sys.stdout.buffer.write(b'x', 1)": ("wrong_args", "wrong_args:too_many_arguments", None),
    "import sys; sys.stdout.buffer.write()": ("wrong_args", "wrong_args:missing_argument", None),
    "import sys; sys.stdin.buffer.read(3, 4)": ("wrong_args", "wrong_args:too_many_arguments", None),
    "import sys; sys.stdout.buffer.wirte(b'x')": (
        "hallucination", "hallucination:unknown_callee", "sys.stdout.buffer.write"),
    "import sys; sys.stdout.bufer.write(b'x')": (
        "hallucination", "hallucination:unknown_callee", "sys.stdout.buffer.write"),
    "import sys; sys.stdout.buffer.write(b'x')": ("valid", None, None),
    "import sys; sys.stdin.buffer.read()": ("valid", None, None),
}  # fmt: skip


@pytest.mark.parametrize("code", sorted(CHAINS))
def test_a_chain_through_the_stubs_is_judged_past_its_first_attribute(
    validator: Validator, code: str
) -> None:
    verdict = validator.check_code(code)
    near = verdict.suggestions[0] if verdict.suggestions else None
    assert (verdict.kind, verdict.reason or None, near) == CHAINS[code], verdict


def test_a_runtime_attribute_of_an_abstract_stub_type_is_not_a_finding(validator: Validator) -> None:
    """typing.BinaryIO lacks detach and raw; sys.stdout.buffer (io.BufferedWriter) has them."""
    for code in ("import sys; sys.stdout.buffer.detach()", "import sys; sys.stderr.buffer.raw.write(b'x')"):
        assert validator.check_code(code).kind == "no_call", code


def test_the_file_route_reports_what_check_code_reports(validator: Validator) -> None:
    lines = (
        "import sys",
        "sys.stdout.buffer.wirte(b'x')",
        "sys.stdout.buffer.write(b'x', 1)",
        "sys.stdout.buffer.detach()",
    )
    code = "\n".join(lines) + "\n"
    found = [f for b in lint.blocks("t.py", code) for f in lint.check_block(validator, "t.py", b)]
    assert [(f.line, f.reason) for f in found] == [
        (2, "hallucination:unknown_callee"),
        (3, "wrong_args:too_many_arguments"),
    ], found
    assert found[0].suggestions[0] == "sys.stdout.buffer.write"


@pytest.mark.model
@pytest.mark.parametrize(
    ("task", "method", "call", "judged"),
    [
        ("join the list parts with tabs", "str.join", "'\\t'.join(parts)", "join the list parts with"),
        ("join the list parts with commas", "str.join", "','.join(parts)", "join the list parts with"),
    ],
)
def test_the_fit_reads_a_separator_the_task_names_as_a_value(
    stdlib_docs, gemma_backend, task: str, method: str, call: str, judged: str
) -> None:
    """The real filler and model over the str docs (the constructor for the literal receiver, one method):
    the coverage the fit reads is that of the task without the separator's words."""
    docs = [d for d in stdlib_docs if d.api_name in ("str", method)]
    proposal = Pipeline(Settings(k=1), ApiIndex.build(docs), gemma_backend).ask(task)
    assert proposal.api_call == call, proposal.api_call
    doc = next(d for d in docs if d.api_name == method)
    assert proposal.fit_signals["cov"] == coverage(judged, doc) != coverage(task, doc)


def test_a_character_the_call_works_on_is_still_read() -> None:
    """'\\n'.strip() for "join the list parts with newlines" (break-it round 27's wrong method): the
    newlines are what strip removes, not a separator: the fit reads them (and says nothing fits)."""
    task = "join the list parts with newlines"
    strip = [Argument("object", repr("\n"), "task")]
    assert without_named_characters(task, strip, "'\\n'.strip()") == task
    assert without_named_characters(task, strip, "'\\n'.join(parts)") == "join the list parts with"
    sep = [Argument("sep", repr(","), "task")]
    assert without_named_characters("print the values with commas", sep, "print(values, sep=',')") == (
        "print the values with"
    )


def test_a_stub_type_alias_is_followed_for_the_kinds_a_parameter_takes() -> None:
    assert kinds("timeit.Timer")["timer"] == frozenset()  # Callable[[], float]: no value a task writes
    assert not admits("timeit.Timer", "timer", "number")  # what filling asks (R26-1's typed filling)
    assert kinds("timeit.Timer")["stmt"] == frozenset({"string"})  # _Stmt: str | Callable[[], object]


#: Code -> (verdict, reason) of check: a literal the stub's types refuse (R27-11), and what they take.
STUB_TYPED = {
    "import threading; threading.Thread('14:00')": ("wrong_args", "wrong_args:wrong_type"),
    "import threading; threading.Thread(group=3, target=print)": ("wrong_args", "wrong_args:wrong_type"),
    "import threading; threading.Thread(name='w', daemon=True)": ("valid", ""),
    "import threading; threading.Thread(None, print)": ("valid", ""),
    "max(1, 2)": ("valid", ""),  # the stub's first overload takes numbers; another names it iterable
    "import timeit; timeit.Timer('x = 1')": ("valid", ""),
}


@pytest.mark.parametrize("code", sorted(STUB_TYPED))
def test_check_holds_a_literal_to_the_stubs_types(validator: Validator, code: str) -> None:
    verdict = validator.check_code(code)
    assert (verdict.kind, verdict.reason) == STUB_TYPED[code], verdict
