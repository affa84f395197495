"""The usage feature of python-env's prior (issue 18): how many files of this interpreter's own standard
library reference each API (pool/pyenv/usage.py), on the real standard library; cached per interpreter;
neutral where the standard library has no .py sources."""

from __future__ import annotations

import ast
import shutil
import sysconfig
from pathlib import Path

import numpy as np
import pytest

from gorilla_tui.paths import get_paths
from gorilla_tui.pool.doc import ApiDoc
from gorilla_tui.pool.pyenv import usage
from gorilla_tui.retrieve.index import ApiIndex
from gorilla_tui.store import prior

STDLIB = Path(sysconfig.get_paths()["stdlib"])


@pytest.fixture(scope="module")
def stdlib(stdlib_docs: tuple[ApiDoc, ...]) -> dict[str, ApiDoc]:
    return {d.api_name: d for d in stdlib_docs}


@pytest.fixture(scope="module")
def counts() -> usage.UsageCounts:
    return usage.scan(usage.stdlib_files())


def test_the_api_everybody_calls_is_used_more(stdlib: dict[str, ApiDoc], counts: usage.UsageCounts) -> None:
    if not counts.modules:
        pytest.skip("this interpreter's standard library has no .py sources")
    used = {n: prior.usage_files(stdlib[n], counts) for n in stdlib}
    # the near-equal hits of issue 18: the API everybody calls against the one BM25 preferred
    for common, rare in [
        ("os.makedirs", "mailbox.MH.add_folder"),
        ("os.path.exists", "os.path.lexists"),
        ("time.sleep", "signal.alarm"),
        ("base64.b64encode", "base64.urlsafe_b64encode"),
        ("heapq.nlargest", "numbers.Number"),
        ("os.getenv", "os.putenv"),
        ("os.environ.get", "os.putenv"),  # a method of a module-level object: by its object, environ
        ("zipfile.ZipFile.extractall", "zipfile.PyZipFile.writepy"),  # a method: by its class
    ]:
        assert used[common] > used[rare], (common, used[common], rare, used[rare])
        assert prior.doc_prior(stdlib[common], counts) > prior.doc_prior(stdlib[rare], counts)
    assert used["mailbox.MH.add_folder"] == 0  # only mailbox.py itself refers to MH
    # a method is counted by its class: every method of smtplib.SMTP alike (s.sendmail: s is any object)
    assert used["smtplib.SMTP.sendmail"] == used["smtplib.SMTP.send"] == counts.files("SMTP", "smtplib") > 0
    # the factor: kind_prior times (1 + files) ** USAGE_WEIGHT
    makedirs = stdlib["os.makedirs"]
    assert prior.doc_prior(makedirs, counts) == pytest.approx((1 + used["os.makedirs"]) ** prior.USAGE_WEIGHT)


def test_own_file_is_not_counted(counts: usage.UsageCounts) -> None:
    if not counts.modules:
        pytest.skip("this interpreter's standard library has no .py sources")
    # shutil.py calls its own copytree ("copytree(...)": a plain name), mailbox.py its own add_folder
    refs = [counts.modules[i] for i in counts.refs.get("add_folder", ())]
    assert set(refs) <= {"mailbox"}
    assert counts.files("add_folder", "mailbox") == 0
    posix = counts.files("path.exists")
    assert posix > 10 and counts.files("path.exists", "posixpath") <= posix


def test_regex_scan_finds_what_ast_finds() -> None:
    """The regex scan (strings and comments masked) against the ast module on real standard-library
    files: every attribute and from-imported name the ast finds, but those inside f-strings."""
    files = [STDLIB / "shutil.py", STDLIB / "os.py", STDLIB / "json" / "__init__.py", STDLIB / "csv.py"]
    files = [f for f in files if f.is_file()]
    if not files:
        pytest.skip("this interpreter's standard library has no .py sources")
    for path in files:
        source = path.read_bytes()
        keys = usage.file_keys(source)
        tree = ast.parse(source)
        in_fstrings = {id(n) for f in ast.walk(tree) if isinstance(f, ast.JoinedStr) for n in ast.walk(f)}
        names: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and id(node) not in in_fstrings:
                names.add(node.attr)
            elif isinstance(node, ast.ImportFrom):
                names.update(a.name for a in node.names if a.name != "*")
        assert len(names) > 10 and names <= keys, (path.name, sorted(names - keys))
    # a word in a docstring or a comment is not a reference; a pair is
    keys = usage.file_keys(b'"""see os.rmdir"""\n# os.chdir\nimport os.path\nos.makedirs(p)\n')
    assert "os.makedirs" in keys and "makedirs" in keys and "os.path" in keys
    assert not {"rmdir", "chdir", "os.rmdir"} & keys
    keys = usage.file_keys(b"from os.path import (join,\n    exists as ex)\nfrom a import b, \\\n c\n")
    assert {"join", "path.join", "exists", "path.exists", "b", "c", "a.c"} <= keys and "ex" not in keys


def test_counts_are_cached_per_interpreter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "lib"
    shutil.copytree(STDLIB / "json", root / "json", ignore=shutil.ignore_patterns("__pycache__"))
    (root / "user.py").write_text("import json\njson.dumps(x)\nfrom json import loads\n")
    cache = tmp_path / "cache"
    first = usage.stdlib_usage(cache, root)
    assert first.files("json.dumps") == 1 and first.files("loads") >= 1
    assert len(list((cache / usage.FOLDER).glob("*.json"))) == 1
    usage._MEMO.clear()

    def no_scan(files: object) -> usage.UsageCounts:
        raise AssertionError("scanned again: the cache was not read")

    monkeypatch.setattr(usage, "scan", no_scan)
    assert usage.stdlib_usage(cache, root) == first  # read back from the cache file
    usage._MEMO.clear()
    (root / "user.py").write_text("import json\njson.dumps(x)\njson.dump(y)\n")  # a changed file: new key
    with pytest.raises(AssertionError, match="scanned again"):
        usage.stdlib_usage(cache, root)
    usage._MEMO.clear()


def test_old_cached_scans_are_pruned(tmp_path: Path) -> None:
    root = tmp_path / "lib"
    root.mkdir()
    cache = tmp_path / "cache"
    for n in range(usage.KEEP + 2):  # as many interpreters (or upgrades) as that
        (root / "m.py").write_text("import os\n" + "os.getcwd()\n" * (n + 1))
        usage._MEMO.clear()
        assert usage.stdlib_usage(cache, root).files("os.getcwd") == 1
    kept = list((cache / usage.FOLDER).glob("*.json"))
    assert len(kept) == usage.KEEP
    assert usage.cache_key(usage.stdlib_files(root), root) in {p.stem for p in kept}  # the newest stays
    usage._MEMO.clear()


def test_without_sources_the_usage_part_is_neutral(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stdlib: dict[str, ApiDoc]
) -> None:
    """An embedded Python that ships only .pyc: no counts, no error, the prior is its kind part."""
    root = tmp_path / "lib"
    (root / "json").mkdir(parents=True)
    (root / "os.pyc").write_bytes(b"\x00compiled")
    (root / "json" / "__init__.pyc").write_bytes(b"\x00compiled")
    monkeypatch.setattr(usage, "stdlib_root", lambda: root)
    usage._MEMO.clear()
    assert usage.stdlib_usage(get_paths().cache) == usage.UsageCounts()
    docs = [stdlib[n] for n in ("os.makedirs", "mailbox.MH.add_folder", "numbers.Number", "os.path.exists")]
    assert np.allclose(
        prior.prior_array(docs, usage.interpreter_usage()), [prior.kind_prior(d) for d in docs]
    )
    assert not (get_paths().cache / usage.FOLDER).exists()  # nothing scanned, nothing cached
    usage._MEMO.clear()


def test_usage_moves_the_api_people_call_first(stdlib: dict[str, ApiDoc]) -> None:
    """On the real index: a dev task (tests/data/stdlib_tasks.toml) whose first hit changes with usage."""
    docs = list(stdlib.values())
    index = ApiIndex.build(docs)
    task = "open a URL and read the response"
    index._prior = np.array([prior.kind_prior(d) for d in docs], np.float32)
    assert index.search(task, 1)[0].doc.api_name == "webbrowser.open_new"  # without usage
    index._prior = prior.prior_array(docs, usage.interpreter_usage())
    assert index.search(task, 1)[0].doc.api_name == "urllib.request.urlopen"
