"""Files, folders, programs, environment variables and command lines a task names by a bare word
(fill/values.py _atoms reads each as one value): "the folder old_build", "a file called notes", the folder a
named file goes into ("unpack data.bin into out"), "the ffmpeg program", "the environment variable HOME",
"the command ls -la"."""

from __future__ import annotations

import re

#: The folder a task puts a file it names into, by a bare word last after "into" ("unpack the zip archive
#: data.bin into out": out; group 2; break-it round 29, F14: it was dropped, and not listed as unused).
INTO_FOLDER = re.compile(
    r"\b(?:unpack|extract|unzip|untar|decompress|copy|move|save|download|put)\b[^.;!?]*?"
    r"((?<![\w@/.])[\w.-]*(?:[/\\][\w.-]*|\.[A-Za-z]\w{0,7}\b))[^.;!?]*?\binto\s+(?!(?:the|a|an|it|them)\b)"
    r"([A-Za-z_][\w-]*)(?=\s*(?:$|[,;!?]|\.(?:\s|$)|\s(?:and|then)\b))",
    re.IGNORECASE,
)
#: Words after "the folder" that say what of a folder is meant, not its name ("the folder contents").
_FOLDER_PARTS = (
    "contents? itself tree structure path name size listing list there here above below instead again "
    "first too now"
).split()
#: Words after "files in" that say how or which, not the folder's name ("the .txt files in order").
_HOW = (
    "the this that these those it them there here my your our his her their its a an all each every any some "
    "order turn total parallel bulk place reverse sequence memory full detail batches chunks current"
).split()
# a file or folder the task names by a bare word: "the folder old_build", "a file called notes", "a symlink
# called latest" (a word with "_" or a digit, or one the task says is a name; "the file contents" names no
# file), or the folder it goes into, named last ("into the folder out")
NAMED_PATH = re.compile(
    r"\b(?:(?:files?|folders?|dir(?:ectory|ectories)?|dirs|(?:sym)?links?|archives?|databases?)\s+(?:named|called)"
    r"\s+([\w.-]*\w)|(?:files?|folders?|dir(?:ectory|ectories)?|dirs)\s+(\w*[_\d]\w*))\b"
    # the folder a task moves or writes into, named last: "unzip archive.zip into the folder out"
    r"|\b(?:into|to|in|inside|under)\s+(?:the\s+|a\s+)?(?:folder|directory|dir)\s+([A-Za-z][\w.-]*\w)"
    r"(?=\s*(?:$|[,;!?]|\.(?:\s|$)|\s(?:and|then)\b))"
    # the folder a task acts on, named last after "the folder": "delete the folder build" (a word that
    # says what of the folder is meant, "the folder contents", is no name: _FOLDER_PARTS)
    r"|\bthe\s+(?:[a-z]+\s+)?(?:folder|directory|dir)\s+(?!(?:"
    + "|".join(_FOLDER_PARTS)
    + r")\b)([A-Za-z][\w.-]*\w)"
    # ... or before where it goes: "zip the folder photos into holiday.zip" (break-it round 32: the lookahead
    # stopped at " into", photos was dropped and make_archive archived the current folder)
    r"(?=\s*(?:$|[,;!?]|\.(?:\s|$)|\s(?:and|then|into|to|as)\b))"
    # the folder the files of an extension are in, by a bare word: "list all .py files under src recursively"
    # (break-it round 32: src was dropped, not listed as unused; a word that says how, "in order", is none)
    r"|(?<![\w.])\.[A-Za-z]\w{0,7}\s+files\s+(?:in|under|inside|within|from)\s+(?!(?:"
    + "|".join(_HOW)
    + r")\b)([A-Za-z_][\w.-]*\w)"
    r"(?=\s*(?:$|[,;!?]|\.(?:\s|$)|\s(?:and|then|recursively|including|with)\b))",
    re.IGNORECASE,
)
#: a program the task names by a bare word: "the ffmpeg program", "the git command"
NAMED_PROGRAM = re.compile(r"\bthe\s+([A-Za-z][\w.+-]*)\s+(?:program|command|executable|binary)\b")
#: an environment variable the task names in capitals: "the environment variable HOME", "env var PATH",
#: "$HOME" (its name without the "$"), "the HOME env variable"; a capital name with "_" is one anywhere
#: (fill/values.py _CONSTANT)
ENV_NAME = re.compile(
    r"\b(?:environment|env)\s+(?:variables?|vars?)\s+\$?([A-Z][A-Z0-9_]*)\b|(?<![\w$])\$([A-Z][A-Z0-9_]*)\b"
    r"|(?<![\w$`'\"])([A-Z][A-Z0-9_]*)\s+(?:environment|env)\s+(?:variables?|vars?)\b"
)
#: a command line the task writes after "the command": "run the command ls -la and capture its output" is
#: "ls -la" (to the first word that joins the sentence on: and, then, in, ...; "the command line" is none)
NAMED_COMMAND = re.compile(
    r"\bcommand\s+(?!line\b|prompt\b|that\b|which\b|to\b|and\b|for\b|of\b)([A-Za-z.][\w.+/-]*"
    r"(?:\s+(?!(?:and|then|in|inside|within|from|to|with|on|for|as|so|but|or)\b)[^\s,;'\"`]+)*)"
)
#: Words that join a sentence on and so end a name written with blanks ("called draft to final.txt" names
#: draft, not "draft to final.txt").
_JOINING = (
    "to into as from in inside under with and or then than of for on at by the a an this that its it called "
    "named file files folder directory"
).split()
_BLANK_WORD = r"(?!(?:" + "|".join(_JOINING) + r")\b)[\w-]+"
#: A file name with blanks before its extension, after "the file called/named" ("rename the file called old
#: name.txt to new name.txt": 'old name.txt'; break-it round 32: it was the files 'old' and 'name.txt').
BLANK_NAME = re.compile(
    r"\b(?:files?|documents?|archives?|images?|pictures?|photos?|scripts?)\s+(?:named|called)\s+"
    rf"((?:{_BLANK_WORD}[ \t]+){{1,3}}{_BLANK_WORD}\.[A-Za-z]\w{{0,7}})\b",
    re.IGNORECASE,
)
#: Where a task names a file with blanks (BLANK_NAME), the other name it gives in the same style after "to",
#: "as" or "into" ("... to new name.txt": 'new name.txt'); "copy a.txt to b.txt" has blanks in neither.
BLANK_TARGET = re.compile(
    rf"\b(?:to|as|into)\s+((?:{_BLANK_WORD}[ \t]+){{1,3}}{_BLANK_WORD}\.[A-Za-z]\w{{0,7}})\b", re.IGNORECASE
)


def blank_names(task: str) -> list[tuple[int, int]]:
    """Spans of the file names with blanks `task` gives: after "the file called" (BLANK_NAME), and, where
    it gives one, after "to", "as" or "into" (BLANK_TARGET)."""
    named = [m.span(1) for m in BLANK_NAME.finditer(task)]
    if not named:
        return []
    targets = [m.span(1) for m in BLANK_TARGET.finditer(task)]
    return named + [t for t in targets if not any(s < t[1] and t[0] < e for s, e in named)]
