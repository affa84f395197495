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
    r"(?=\s*(?:$|[,;!?]|\.(?:\s|$)|\s(?:and|then)\b))",
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
