"""A task about a folder gets the folder API of the chosen one's family (model/folders.py), on the standard
library's own docs (tests/stdlib_fixtures.py `docs`): the hits are those the default index gave the lead's
try "copy the folder src to backup/src" (shutil.copy chosen, shutil.copytree at hit 3). And the lead's
"convert the string "42" to an integer", which the choice by values already answers with int."""

from __future__ import annotations

import dataclasses

import pytest

from gorilla_tui.model.folders import about_folder, by_folder, empty_only, siblings, works_on_folders

COPY_HITS = ["shutil.copy", "shutil.copyfile", "shutil.copytree", "shutil.make_archive", "pathlib.Path.mkdir"]


@pytest.fixture(scope="module")
def hits(docs):
    return [docs[name] for name in COPY_HITS]


def test_a_folder_copy_gets_copytree_over_the_file_copy(hits) -> None:
    assert COPY_HITS[by_folder(hits, 0, "copy the folder src to backup/src")] == "shutil.copytree"
    assert (
        COPY_HITS[by_folder(hits, 1, "back up my whole photos directory to the usb stick")]
        == "shutil.copytree"
    )


@pytest.mark.parametrize(
    "task",
    [
        "copy report.txt into the folder backup",  # a file named: a file copy
        "copy the file notes to the backup folder",
        "copy data.csv to data_old.csv",  # no folder at all
        "duplicate this list",
    ],
)
def test_a_task_naming_a_file_or_no_folder_keeps_the_choice(hits, task: str) -> None:
    assert by_folder(hits, 0, task) == 0


def test_only_siblings_that_work_on_folders_take_the_place(docs) -> None:
    # make_archive is not of copy's family; pathlib's mkdir is of another class
    assert not siblings(docs["shutil.copy"], docs["shutil.make_archive"])
    assert siblings(docs["shutil.copy"], docs["shutil.copytree"])
    assert not siblings(docs["os.rmdir"], docs["shutil.rmtree"])
    # a chosen API that already works on folders stays (os.mkdir: "Create a directory.")
    mk = [docs["os.mkdir"], docs["os.makedirs"]]
    assert works_on_folders(docs["os.mkdir"]) and works_on_folders(docs["os.makedirs"])
    assert by_folder(mk, 0, "make a folder called out") == 0
    assert not works_on_folders(docs["shutil.copy"]) and not works_on_folders(docs["os.remove"])
    # no sibling among the hits: nothing moves
    assert by_folder([docs["shutil.copy"], docs["shutil.make_archive"]], 0, "copy the folder src") == 0


def test_what_reads_as_a_folder_task() -> None:
    assert about_folder("copy the folder src to backup/src")
    assert about_folder("remove the directory build and its subdirectories")
    assert not about_folder("copy notes.txt into the folder backup")
    assert not about_folder("list the files in a folder")
    assert not about_folder("copy a file")


def test_a_quoted_number_to_convert_goes_to_int_not_bin(docs) -> None:
    """The lead's try "convert the string "42" to an integer" (session 8: bin('42'), unsure) on the hits and
    log p(task | doc) the default index gives it now: bin at hit 1 (the prior), int at hit 2. int takes the
    quoted value as its argument and bin (an integer only) does not, with the model reading both alike, so
    the choice by values (fill/placing.py by_values) proposes int."""
    from gorilla_tui.fill.placing import by_values

    names = ["bin", "int", "chr", "int.from_bytes", "int.to_bytes"]
    scores = [-40.02, -39.86, -40.27, -41.60, -40.07]
    hits = [docs[n] for n in names]
    assert names[by_values(hits, scores, 0, 'convert the string "42" to an integer')] == "int"


def test_a_folder_that_may_hold_files_is_removed_with_them(docs) -> None:
    """The lead's try "delete the folder build" (sessions 8, 9): os.rmdir at hit 1, shutil.rmtree at hit 2 in
    the default index; os.rmdir removes only an empty folder (its questions in the index say so, as
    pathlib.Path.rmdir's description does), so a folder the task does not call empty goes to rmtree."""
    rmdir = dataclasses.replace(docs["os.rmdir"], questions=["delete an empty folder"])  # as the index has it
    names = ["os.rmdir", "shutil.rmtree", "mailbox.MH.remove_folder", "os.remove"]
    hits = [rmdir, *(docs[n] for n in names[1:])]
    assert empty_only(rmdir) and empty_only(docs["pathlib.Path.rmdir"])
    assert empty_only(docs["mailbox.MH.remove_folder"]) and not empty_only(docs["shutil.rmtree"])
    assert not empty_only(docs["os.mkdir"])
    assert names[by_folder(hits, 0, "delete the folder build")] == "shutil.rmtree"
    assert names[by_folder([docs["pathlib.Path.rmdir"], *hits[1:]], 0, "remove the directory logs")] == (
        "shutil.rmtree"
    )
    # the task says the folder is empty, or names no folder: the choice stays
    assert by_folder(hits, 0, "delete the empty folder build") == 0
    assert by_folder(hits, 0, "delete temp.log") == 0
    # no hit that removes a folder with its files: nothing moves
    assert by_folder([rmdir, docs["os.remove"]], 0, "delete the folder build") == 0
