"""A standard-library parameter's documented values (fill/documented.py): the strings its docstring lists,
read from the module's real source file, offered where the task names one."""

from __future__ import annotations

from gorilla_tui.fill.call_grammar import TaskValues
from gorilla_tui.fill.documented import docstring, documented_values, with_documented
from gorilla_tui.fill.filler import target_of
from gorilla_tui.pool.doc import ApiDoc
from gorilla_tui.pool.params import params_of

# shutil.make_archive's api_arguments as the python-env source reads them
ARCHIVE = ApiDoc(id="python-env:1", source="python-env", api_call="shutil.make_archive(base_name, format)",
                 api_name="shutil.make_archive",
                 api_arguments={"base_name": "required", "format": "required", "root_dir": "None",
                                "base_dir": "None", "verbose": "0", "dry_run": "0"})  # fmt: skip


def _offered(doc: ApiDoc, task: str) -> dict[str, list[str]]:
    target = target_of(doc, TaskValues.of(task))
    return {} if target is None else {s.param.name: list(s.values) for s in target.offered}


def test_the_values_a_docstring_lists_for_a_parameter() -> None:
    # read from Lib/shutil.py with ast: 'format' is ... one of "zip", "tar", "gztar", "bztar", or "xztar"
    assert documented_values(docstring("shutil.make_archive"), "format")[:2] == ("zip", "tar")
    assert "gztar" in documented_values(docstring("shutil.unpack_archive"), "format")
    # a parameter named at a line's start with a colon: zipfile.ZipFile's "mode: ... either read 'r', ..."
    assert documented_values(docstring("zipfile.ZipFile"), "mode") == ("r", "w", "x", "a")
    assert documented_values(docstring("shutil.make_archive"), "base_name") == ()
    # a module compiled in C (no source), or not the standard library: nothing to read
    assert docstring("math.sqrt") == "" and docstring("numpy.array") == ""


def test_a_value_the_task_names_is_offered_and_none_when_it_names_none() -> None:
    assert _offered(ARCHIVE, "make a zip archive of the folder photos")["format"] == ["'zip'"]
    assert _offered(ARCHIVE, "pack logs into a gztar archive")["format"] == ["'gztar'"]
    # a part of a file name is no word the task names (break-it round 29, F3: 'tar' of "tar.gz")
    assert "'tar'" not in _offered(ARCHIVE, "make a tar.gz archive of the folder photos").get("format", [])
    # the task names no format: no value is chosen for it (a placeholder stays for the model to leave)
    assert "'zip'" not in _offered(ARCHIVE, "make an archive of the folder photos").get("format", [])
    # a one-letter mode is never named: 'a' is the article of "make a zip", not append
    zipped = ApiDoc(id="python-env:2", source="python-env", api_call="zipfile.ZipFile(file)",
                    api_name="zipfile.ZipFile",
                    api_arguments={"file": "required", "mode": "'r'"})  # fmt: skip
    params = with_documented(zipped, params_of(zipped), "make a zip of notes.txt")
    # no listed value named: the mode's one value is its default, so no mode is offered
    assert [p.enum for p in params] == [(), ("r",)]
    assert "mode" not in _offered(zipped, "make a zip of notes.txt")
    # another source's parameters are never read from a docstring
    other = ApiDoc(id="mine:1", source="mine", api_call=ARCHIVE.api_call, api_name="shutil.make_archive",
                   api_arguments=ARCHIVE.api_arguments)  # fmt: skip
    assert with_documented(other, params_of(other), "make a zip") == params_of(other)


def test_a_file_named_without_its_extension_takes_the_stem_and_its_extension_names_the_format() -> None:
    # make_archive's docstring: "'base_name' is the name of the file to create, minus any format-specific
    # extension"; it appends '.zip' itself, so 'reports.zip' made reports.zip.zip
    assert _offered(ARCHIVE, "zip the folder reports into reports.zip") == {
        "base_name": ["'reports'"],
        "format": ["'zip'"],
        "root_dir": ["'reports'"],  # the folder archived (break-it round 32)
    }
    offered = _offered(ARCHIVE, "pack the logs into logs.tar.gz")
    assert offered["base_name"] == ["'logs'"] and offered["format"] == ["'gztar'"]
    # a docstring that says nothing of the kind keeps the file's name whole
    args = {"filename": "required", "extract_dir": "None", "format": "None"}
    unpack = ApiDoc(id="python-env:2", source="python-env", api_call="shutil.unpack_archive(filename)",
                    api_name="shutil.unpack_archive", api_arguments=args)  # fmt: skip
    assert _offered(unpack, "unpack reports.zip")["filename"] == ["'reports.zip'"]
