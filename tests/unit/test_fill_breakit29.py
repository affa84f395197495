"""Break-it round 29's value findings (/work/notes/breakit29-report.md F2, F3, F4, F11, F12, F14) and the dev
task s12-sorted: the proposed call carries the task's values where they belong, on the running Python's
standard-library pool, its typeshed stubs and docstrings; the model writes them in test_fill_kinds.py
(test_the_model_fills_the_values_of_their_kind)."""

from __future__ import annotations

from gorilla_tui.fill.backticks import backticked
from gorilla_tui.fill.call_grammar import TaskValues
from gorilla_tui.fill.documented import docstring, extension_values, named_rows, table_values
from gorilla_tui.fill.filler import target_of
from gorilla_tui.fill.kinds import VARIABLE, variables
from gorilla_tui.fill.unused import left_out
from gorilla_tui.fill.values import strings
from gorilla_tui.pool.stub_cache import takes_bytes
from gorilla_tui.pool.stub_literals import literal_values


def _offered(docs, name: str, task: str) -> dict[str, dict[str, str]]:
    """Parameter name -> {value source: candidate kind} of the slots filling offers for `task`."""
    target = target_of(docs[name], TaskValues.of(task), docs.get, {})
    assert target is not None
    return {s.param.name: {k: c.kind for k, c in s.values.items()} for s in target.offered}


def test_a_typeshed_buffer_protocol_is_bytes_and_a_named_file_is_read(docs):
    """F4: gzip.compress's data is typeshed's SizedBuffer (a Protocol of Sized and Buffer), read as any value,
    so 'data.csv' went in as text; it is bytes now, as hashlib's ReadableBuffer was."""
    assert takes_bytes("gzip.compress", "data") and takes_bytes("bz2.compress", "data")
    assert not takes_bytes("hmac.compare_digest", "a")  # str | ReadableBuffer: not bytes only
    assert _offered(docs, "gzip.compress", "compress data.csv with gzip") == {
        "data": {"open('data.csv', 'rb').read()": "string"}
    }


def test_join_gives_the_items_to_the_iterable_and_the_separator_to_the_receiver(docs):
    """F2: both values were offered to both slots and the model wrote ``str(parts).join(',')``."""
    offered = _offered(docs, "str.join", "join `parts` with commas")
    assert offered == {"object": {"','": "string"}, "iterable": {"parts": VARIABLE}}


def test_code_in_backticks_is_the_persons_and_constants_are_no_variables():
    """F11: `None` and `class` were "your variable"; `names[0]` gave the list [0]; `df.names` a string."""
    assert variables("pick 5 from `None`") == [] and variables("pick 5 from `class`") == []
    assert [c.text for c in variables("pick 5 from `names[0]`")] == ["names[0]"]
    assert [c.text for c in variables("pick 5 from `df.names`")] == ["df.names"]
    assert [c.text for c in variables("pick 5 from `名前`")] == ["名前"]
    # text the parser does not read, capitals and file names stay text
    assert variables("run `git status` here") == [] and variables("read `$HOME`") == []
    assert variables("load `data.json`") == [] and variables("read the file `notes.cfg`") == []
    assert [b.constant for b in backticked("use `True` or `x`")] == [True, False]


def test_no_piece_of_code_in_backticks_is_a_value(docs):
    offered = _offered(docs, "random.sample", "pick 5 from `names[0]`")
    values = {k for v in offered.values() for k in v}
    assert "[0]" not in values and "names[0]" in values
    offered = _offered(docs, "random.sample", "pick 5 from `None`")
    assert all("None" not in k for v in offered.values() for k in v)  # left out, never text or variable


def test_each_backticked_name_is_a_variable_in_every_slot_of_one_call(docs):
    """F12: ``os.path.join(q1_sales, 'q2_sales')``: the *args slot kept the names as strings."""
    offered = _offered(docs, "os.path.join", "combine `q1_sales` `q2_sales` `q3_sales` `q4_sales`")
    assert offered["p"] == {f"q{i}_sales": VARIABLE for i in range(1, 5)}
    assert all(kind == VARIABLE for v in offered.values() for kind in v.values())


def test_open_takes_the_mode_its_docstring_table_names(docs):
    """F14: "in append mode" was dropped: open's docstring says "'a'  open for writing, appending to the end
    of the file if it exists"; 'b' ("binary mode") is in the table but no overload of the stub takes it."""
    rows = table_values(docstring("open"), "mode")
    assert {"r", "w", "a", "b"} <= set(rows)
    assert named_rows(rows, "open the file notes.txt in append mode") == ("a",)
    assert named_rows(rows, "truncate log.txt") == ("w",)
    # a word of a row's meaning that is no action names nothing ("truncating the file first", "if it exists")
    assert named_rows(rows, "read the first line of notes.txt if it exists") == ()
    assert named_rows(rows, "write hello to notes.txt") == ()  # writing: 'w', 'x' and 'a'
    assert "a" in literal_values("open", "mode") and "b" not in literal_values("open", "mode")
    offered = _offered(docs, "open", "open the file notes.txt in append mode")
    assert offered["mode"] == {"'a'": "declared"}
    offered = _offered(docs, "open", "open notes.txt for writing in binary mode")
    assert "'b'" not in offered.get("mode", {})


def test_the_folder_a_named_file_goes_into_is_a_value_and_listed_when_left_out(docs):
    """F14: "unpack the zip archive data.bin into out" dropped out, and did not list it as unused."""
    task = "unpack the zip archive data.bin into out"
    assert [c.value for c in strings(task) if c.atomic] == ["data.bin", "out"]
    assert "'out'" in _offered(docs, "zipfile.ZipFile.extractall", task)["path"]
    assert left_out(task, "zipfile.ZipFile('data.bin').extractall()") == ["out"]
    assert [c.value for c in strings("convert the text into uppercase") if c.atomic] == []


def test_an_archive_format_named_by_its_extension(docs):
    """F3: "a tar.gz archive" is the format shutil's own registry binds '.tar.gz' to, 'gztar', and no file
    'tar.gz' for another parameter (it made a phantom second call ``make_archive('tar.gz', 'tar')``)."""
    assert extension_values("shutil")["tar.gz"] == "gztar" and extension_values("shutil")["tbz2"] == "bztar"
    offered = _offered(docs, "shutil.make_archive", "make a tar.gz archive of the folder photos")
    assert offered == {  # and the folder archived is root_dir (break-it round 32)
        "base_name": {"'photos'": "string"},
        "format": {"'gztar'": "declared"},
        "root_dir": {"'photos'": "string"},
    }
    # the extension is in the call as the format it names: not "unused"
    assert (
        left_out("make a tar.gz archive of the folder photos", "shutil.make_archive('photos', 'gztar')") == []
    )
    assert left_out("make a tar.gz archive of the folder photos", "shutil.make_archive('photos')") == [
        "tar.gz"
    ]
    offered = _offered(docs, "shutil.make_archive", "make a rar archive of the folder photos")
    assert "declared" not in offered["format"].values()  # no format is made up for 'rar'


def test_a_collections_receiver_takes_the_list_the_task_writes(docs):
    """Dev task s12-sorted: ``list().sort()`` lost the list."""
    offered = _offered(docs, "list.sort", "sort ['pear', 'apple', 'fig'] alphabeticaly")
    assert offered == {"iterable": {"['pear', 'apple', 'fig']": "list"}}
