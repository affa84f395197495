"""What the stubs say of a function's parameters (file objects, kinds of value, typed parameters, forwarded
keywords), read once and cached per module on disk (pool/stub_cache.py): a second process answers from the
file without importing typeshed_client, and a cache file of another key, or one damaged or planted (cut
short, a folder or a FIFO in its place, values of the wrong type), is looked past: the answer is the stubs'.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gorilla_tui.paths import get_paths
from gorilla_tui.pool import stub_cache
from gorilla_tui.pool.stub_params import read_params
from gorilla_tui.pool.typeshed import file_parameters

ROOT = Path(__file__).resolve().parents[2]
PROBE = (
    "import sys; from gorilla_tui.pool.stub_cache import stub_files, kinds, forwarded, typed; "
    "print(stub_files('pickle.load'), stub_files('csv.reader'), sorted(kinds('re.sub')['count']), "
    "('cwd', 'string') in forwarded('subprocess.check_output'), typed('json.dump', 'obj'), "
    "typed('json.dump', 'fp'), 'typeshed_client' in sys.modules)"
)
ANSWER = "((0, 'file', 'rb'),) ((0, 'iterable', 'r'),) ['number'] True True False"
#: Functions whose facts span each field: a file object, kinds, forwarded keywords, a method, a builtin.
SPREAD = ("pickle.load", "re.sub", "subprocess.check_output", "json.dump", "datetime.datetime.fromtimestamp",
          "sorted", "csv.DictReader", "no_such_module.f")  # fmt: skip


def _probe(home: Path) -> str:
    env = {**os.environ, "GORILLA_TUI_HOME": str(home), "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def _cached(module: str) -> Path:
    (path,) = (get_paths().cache / stub_cache.FOLDER).glob(f"*/{module}.json")
    return path


def _fresh(function: str) -> stub_cache.StubFacts:
    """The facts read from the stubs themselves, past every cache."""
    return stub_cache.StubFacts(file_parameters(function), *read_params(function))


def test_a_second_process_reads_the_answers_from_the_cache_without_the_stubs(gorilla_home):
    assert _probe(gorilla_home) == f"{ANSWER} True"  # looked up in the stubs, then written
    written = sorted(p.name for p in (get_paths().cache / stub_cache.FOLDER).glob("*/*.json"))
    assert written == ["csv.json", "json.json", "pickle.json", "re.json", "subprocess.json"]
    assert _probe(gorilla_home) == f"{ANSWER} False"  # read back: typeshed_client never imported


def test_the_cached_facts_are_the_stubs_own(gorilla_home, monkeypatch):
    monkeypatch.setattr(stub_cache, "_MEMORY", {})
    found = {f: stub_cache.stub_facts(f) for f in SPREAD}
    assert found == {f: _fresh(f) for f in SPREAD}
    assert found["re.sub"].kinds["pattern"] == frozenset({"string"})
    assert found["no_such_module.f"] == stub_cache.StubFacts((), {}, frozenset(), (), {}, ())
    monkeypatch.setattr(stub_cache, "_MEMORY", {})
    assert {f: stub_cache._read(f.split(".")[0] if "." in f else "builtins")[f] for f in SPREAD} == found
    assert stub_cache.admits("time.sleep", "seconds", "number")
    assert not stub_cache.admits("time.sleep", "seconds", "string")


DAMAGE = {
    "cut short": lambda p: p.write_text(p.read_text(encoding="utf-8")[:40], encoding="utf-8"),
    "not an object": lambda p: p.write_text("[1, 2]", encoding="utf-8"),
    "nested too deep": lambda p: p.write_text("[" * 100_000, encoding="utf-8"),
    "a field short": lambda p: _edit(p, lambda f: f.pop("typed")),
    "a row short": lambda p: _edit(p, lambda f: f.update(files=[[0, "file"]])),
    "a bool for a position": lambda p: _edit(p, lambda f: f.update(files=[[False, "file", "rb"]])),
    "a mode open() would not take": lambda p: _edit(p, lambda f: f.update(files=[[0, "file", "r+x"]])),
    "a kind that is none": lambda p: _edit(p, lambda f: f.update(kinds={"file": ["evil"]})),
    "a keyword that is no name": lambda p: _edit(p, lambda f: f.update(forwarded=[["a=1)#", "any"]])),
    "a string for the kinds": lambda p: _edit(p, lambda f: f.update(kinds="number")),
    "a required name that is no name": lambda p: _edit(p, lambda f: f.update(required=["a=1)#"])),
    "a shape that is none": lambda p: _edit(p, lambda f: f.update(shapes={"file": "evil"})),
    "a FIFO": lambda p: (p.unlink(), os.mkfifo(p)),
}


def _edit(path: Path, change) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data["pickle.load"])
    path.write_text(json.dumps(data), encoding="utf-8")


@pytest.mark.parametrize("damage", DAMAGE, ids=list(DAMAGE))
def test_a_damaged_cache_file_is_looked_past_and_rebuilt(gorilla_home, monkeypatch, damage):
    monkeypatch.setattr(stub_cache, "_MEMORY", {})
    stub_cache.stub_facts("pickle.load")
    path = _cached("pickle")
    DAMAGE[damage](path)
    monkeypatch.setattr(stub_cache, "_MEMORY", {})
    assert stub_cache.stub_files("pickle.load") == ((0, "file", "rb"),)
    assert path.is_file()  # written again, sound
    assert stub_cache._read("pickle") == {"pickle.load": _fresh("pickle.load")}


def test_a_folder_in_place_of_the_cache_file_is_skipped(gorilla_home, monkeypatch):
    monkeypatch.setattr(stub_cache, "_MEMORY", {})
    stub_cache.stub_facts("pickle.dump")
    path = _cached("pickle")
    path.unlink()
    path.mkdir()
    (path / "x").write_text("kept", encoding="utf-8")
    monkeypatch.setattr(stub_cache, "_MEMORY", {})
    assert stub_cache.stub_files("pickle.load") == ((0, "file", "rb"),)
    assert (path / "x").read_text(encoding="utf-8") == "kept"  # neither read nor removed
    assert not list(path.parent.glob("*.tmp"))


def test_a_cache_of_another_rule_or_python_is_not_read(gorilla_home, monkeypatch):
    monkeypatch.setattr(stub_cache, "_MEMORY", {})
    stub_cache.stub_facts("pickle.load")
    path = _cached("pickle")
    _edit(path, lambda f: f.update(files=[[0, "planted", "w"]]))  # sound, but not the stubs' answer
    monkeypatch.setattr(stub_cache, "_MEMORY", {})
    assert stub_cache.stub_files("pickle.load") == ((0, "planted", "w"),)  # this key's file is read
    assert path.parent.name.startswith(f"py{sys.version_info[0]}.{sys.version_info[1]}-r{stub_cache.RULE}-")
    monkeypatch.setattr(stub_cache, "RULE", stub_cache.RULE + 1)
    monkeypatch.setattr(stub_cache, "_MEMORY", {})
    assert stub_cache.stub_files("pickle.load") == ((0, "file", "rb"),)


def test_a_name_that_is_no_module_names_no_file(gorilla_home, monkeypatch):
    monkeypatch.setattr(stub_cache, "_MEMORY", {})
    assert stub_cache.stub_facts("../../escaped.load").files == ()
    assert not list(gorilla_home.rglob("*escaped*"))
    assert not (get_paths().cache / stub_cache.FOLDER).exists()


def test_an_unusable_home_is_no_cache(tmp_path, monkeypatch):
    not_a_folder = tmp_path / "home"
    not_a_folder.write_text("", encoding="utf-8")
    monkeypatch.setenv("GORILLA_TUI_HOME", str(not_a_folder))
    monkeypatch.setattr(stub_cache, "_MEMORY", {})
    assert stub_cache.stub_files("json.dump") == ((1, "fp", "w"),)


def test_the_shapes_of_bytes_and_command_parameters_are_kept(tmp_path, monkeypatch):
    """stub_params._shapes' answers go through the one cache too (fill/derived.py, filler.takes_bytes)."""
    monkeypatch.setenv("GORILLA_TUI_HOME", str(tmp_path))
    monkeypatch.setattr(stub_cache, "_MEMORY", {})
    assert stub_cache.takes_command("subprocess.check_output", "args")
    assert stub_cache.takes_bytes("base64.b64encode", "s")
    monkeypatch.setattr(stub_cache, "_MEMORY", {})  # read back from the file written
    assert stub_cache.stub_facts("base64.b64encode").shapes == {"s": "bytes", "altchars": "bytes"}


RETURNS_PROBE = (
    "import sys; from gorilla_tui.check.builtin_types import through_returns; "
    "print(through_returns('str().join().jion'), through_returns('str().split().append'), "
    "through_returns('bytes().join().decode'), through_returns('dict().get().x'), "
    "'typeshed_client' in sys.modules)"
)


def test_builtin_method_returns_are_cached_like_the_facts(gorilla_home):
    """R26-4: a chain of builtin method calls is read through their stub return types (``str.join`` gives
    str, ``str.split`` a list, ``dict.get`` no one class); a second process answers from the cache file."""
    env = {**os.environ, "GORILLA_TUI_HOME": str(gorilla_home), "PYTHONPATH": str(ROOT)}
    answers = []
    for _ in range(2):
        done = subprocess.run([sys.executable, "-c", RETURNS_PROBE], env=env, capture_output=True, text=True)
        answers.append(done.stdout.strip())
    expected = "str().jion list().append bytes().decode dict().get().x"
    assert answers == [f"{expected} True", f"{expected} False"], answers
