"""The input a task hands over, told apart from its request (issue 38, break-it rounds 25 to 27): the text
after a colon that hands it over ("summarize this paragraph: ...", "translate to Spanish: ...", "summarize
this: ...") and quoted text. Retrieval searches the request alone (`without_input`, inside
query/literals.py intent_text, and select mode's scoring in pipeline.py); the fit judgment reads it without
the quoted text too (`request_text`). Filling still sees the whole task: the input is a value.

The rules were chosen on the dev halves of bench/data/payload_tasks.toml and bench/everyday_tasks.toml
(bench/payload.py; docs/benchmarks.md "Tasks that carry their input").
"""

from __future__ import annotations

import functools
import re

from gorilla_tui.retrieve.tokenize import tokenize

#: Trailing characters that belong to the sentence, not to a URL, a path or a word before a colon ("see
#: https://x.org/a.", "summarize this:").
TRAILING = ".,;:!?)]}'\""

#: Text a task quotes or gives as input: the data it works on, not the request ("Translate this Swedish text
#: to English: \"Stockholm är ...\""; APIBench tasks put it after "###Input:"). Double quotes of every
#: script's style; single quotes are left alone (apostrophes).
_PAYLOAD = re.compile(r'###\s*Input:.*|"[^"]*"|“[^”]*”|„[^“”]*[“”]|«[^»]*»|「[^」]*」|『[^』]*』', re.S)
#: A colon that hands over the input ("translate to Spanish: I will be late", "is this review positive or
#: negative: I loved it", "the names of people and places in: Angela met Tom"): after at least
#: INPUT_COLON_WORDS words, when the word before it names what follows (INPUT_WORDS), is a capitalised name
#: after to / into / in / from (a language: "to Spanish:") or the second of a choice ("positive or
#: negative:"), and when the words before it say what to do (a word that is not an input word or one of
#: REQUEST_WORDS: "here is my request in plain text: delete the file old.log" brings the request after its
#: colon, break-it round 25, R25-4). Other colons ("do the following: zip the logs", "numpy: check if ...",
#: BFCL's "two groups of data points: ... Then run a t-test") introduce the request or carry it on, and stay.
#: "command" names input too: "run this shell command: ls -la /tmp" hands over the command line (break-it
#: round 30, F-H1: 'os.popen('/tmp')' took its last word).
_INPUT_COLON = re.compile(r"(?<=\S):\s+(?=\S)")
INPUT_COLON_WORDS = 3
INPUT_WORDS = frozenset(
    "text texts sentence sentences paragraph paragraphs passage review reviews message messages string "
    "strings article story prompt input tweet post comment comments email line lines word words phrase title "
    "note quote snippet document json html xml csv yaml markdown code query data command in of".split()
)
#: Words that point at a request without saying what it is ("here is my request in plain text:", "do this
#: with the data:", "run the following on this string:"): a colon after them alone hands over no input.
REQUEST_WORDS = frozenset(
    "here request requests task tasks question questions instruction instructions following follows below "
    "above plain please help want need like do does run perform execute apply handle process".split()
)


#: Pronouns that point at the input a colon hands over ("summarize this: ...", "what language is this: ...",
#: "classify these: ..."): after a word that says what to do they name it as INPUT_WORDS do, from
#: POINTER_COLON_WORDS words on; the request is then searched for its input as text ("summarize this" found
#: doctest's summarize, "summarize this text" the summarisers; break-it round 26, 05).
POINTER_WORDS = frozenset({"this", "these", "that", "those", "it"})
POINTER_COLON_WORDS = 2
#: The words a pointing pronoun must follow for its colon to hand over input: verbs whose object is a text
#: given to them, and the copulas of a question about it ("what language is this:"). After any other verb
#: the colon brings the request itself ("automate this: zip the folder photos", "please solve this: list the
#: files in /tmp": break-it round 27, R27-2), which stays.
POINTER_VERBS = frozenset(
    "summarize summarise translate classify categorize categorise paraphrase rewrite reword proofread "
    "analyze analyse tag label caption transcribe read say speak pronounce shorten simplify detect rate "
    "score tokenize embed encode decode parse explain spellcheck is are was".split()
    # verbs that act on a text they are given, as the standard library's string, hashing and escaping
    # functions do ("escape this for html:", "hash this with sha256:", "split this on colons:"; break-it
    # round 30, F-H1: their input was dropped or its quoted part taken)
    + "escape unescape hash split strip trim reverse sort lowercase uppercase capitalize count quote unquote "
    "compress decompress slugify wrap dedent indent normalize minify prettify validate evaluate".split()
)
#: Prepositions whose object, a pointing pronoun right before the colon, is the input handed over: "the
#: sha256 of this:", "the whitespace from this:", "the words in this:" (break-it round 30, F-H1).
POINTER_PREPOSITIONS = frozenset({"of", "from", "in", "inside", "within"})

_POINTING_TERMS = frozenset(tokenize(" ".join(INPUT_WORDS | REQUEST_WORDS)))


def _input_colon(task: str) -> int | None:
    """Where the colon that hands over the input of `task` is (_INPUT_COLON), or None."""
    for m in _INPUT_COLON.finditer(task):
        words = task[: m.start()].split()
        pointer = _points(words) or _names_input(words)
        # "which kind of vehicle is this: a truck, a bus, a sports car?": the colon gives choices, and
        # "this" is a photo the task does not hold, not text it hands over
        pointer = pointer and not _choices(task[m.end() :])
        if len(words) < (POINTER_COLON_WORDS if pointer else INPUT_COLON_WORDS):
            continue
        last = words[-1].strip(TRAILING)
        named = last[:1].isupper() and words[-2].lower() in ("to", "into", "in", "from")
        choice = words[-2].lower() == "or"  # "is it positive or negative: ...", "spam or not: ..."
        if not (last.lower() in INPUT_WORDS or named or choice or pointer):
            continue
        said = set(tokenize(task[: m.start()])) - _POINTING_TERMS
        if said:  # the words before the colon say what to do: what follows is its input
            return m.start()
    return None


#: The copulas of POINTER_VERBS: they point at the input only right before the colon ("what language is
#: this:"); "there is this thing I need: zip the folder" brings the request after its colon.
COPULAS = frozenset({"is", "are", "was"})


def _points(words: list[str]) -> bool:
    """Whether `words` (the words before a colon) point at the input the colon hands over: they end with a
    POINTER_VERBS word and a pronoun (POINTER_WORDS: "summarize this", "what language is this"), or hold such
    a pair of a verb that is no copula (COPULAS) further back ("read this out loud for me:", "translate it
    into French for me:"): the words after the pronoun then say how, not what the input is
    (bench/data/payload_tasks.toml, pl-speak-this: its input was searched as the request); or they end with
    a preposition and a pronoun (POINTER_PREPOSITIONS: "the sha256 of this:"). A hyphenated verb counts by
    its last part ("url-encode this:")."""
    low = [w.strip(TRAILING).lower() for w in words]
    if len(low) >= 2 and low[-2] in POINTER_PREPOSITIONS and low[-1] in POINTER_WORDS:
        return True  # "compute the sha256 of this:": the pronoun is what the request acts on
    verbs = [w.rsplit("-", 1)[-1] for w in low]  # "url-encode this:": the verb's last part
    pairs = [i for i in range(len(low) - 1) if verbs[i] in POINTER_VERBS and low[i + 1] in POINTER_WORDS]
    return any(i == len(low) - 2 or low[i] not in COPULAS for i in pairs)


def _names_input(words: list[str]) -> bool:
    """Whether `words` (the words before a colon) name the input with a pointing pronoun and a word for
    text: "split this line on commas:", "join these words with dashes:", "count the words in this
    sentence:" (POINTER_WORDS then INPUT_WORDS, the prepositions of INPUT_WORDS aside): what follows the
    colon is that text, whatever the verb (session 13: these colons brought their input as the request)."""
    low = [w.strip(TRAILING).lower() for w in words]
    nouns = INPUT_WORDS - {"in", "of"}
    return any(a in POINTER_WORDS and b in nouns for a, b in zip(low, low[1:], strict=False))


#: Most words of one item of a list of choices after a colon (_choices).
CHOICE_WORDS = 3


def _choices(text: str) -> bool:
    """Whether `text` (what follows a colon) is a list of choices: a question or an "or" ("a truck, a bus, a
    sports car?", "spam or not"; "bonjour, merci" is input: break-it R27-9) of at least two items, split at
    commas and "or", of at most CHOICE_WORDS words each."""
    text = text.strip()
    if not (text.endswith("?") or re.search(r"\bor\b", text)):
        return False
    items = [i for i in re.split(r",|\bor\b", text.rstrip("?.!")) if i.strip()]
    return len(items) >= 2 and all(len(i.split()) <= CHOICE_WORDS for i in items)


def without_input(task: str) -> str:
    """`task` cut before the colon that hands over its input (_input_colon), or `task` as it is: what
    retrieval searches (intent_text) and select mode's model scores the hits against (pipeline.py). "tell me
    if this movie review is positive or negative: I loved it" searched with its input found a tokenizer, and
    scored with it a sentence-embedding model beat the summarisers for "summarize this paragraph: ..."
    (bench/payload.py). Quoted text stays: its words can name the task's type ("the sentence \"The cat sat
    on the [MASK].\"" is a fill-mask task; masked whole, Hugging Face dev tasks lost their API). A request
    that points at its input with a pronoun (POINTER_WORDS) is searched for it as text: "summarize this:
    ..." -> "summarize this text"."""
    cut = _input_colon(task)
    if cut is None:
        return task
    pointer = task[:cut].split()[-1].strip(TRAILING).lower()
    if pointer in POINTER_WORDS:  # "summarize this" -> "summarize this text", "classify these" -> "... texts"
        return f"{task[:cut]} {'texts' if pointer in ('these', 'those') else 'text'}"
    return task[:cut]


@functools.lru_cache(maxsize=256)
def handed_input(task: str) -> tuple[int, int] | None:
    """The span (start, end; character offsets of `task`) of the input its colon hands over (_input_colon:
    "make this uppercase: please read the manual" -> "please read the manual"), without the blanks around
    it and a closing full stop, or None when no colon hands one over. Filling reads it as one string
    value (fill/values.py strings): its words are the data, not runs of words to choose from. Cached: filling
    asks it once per parameter and stage of the same task."""
    cut = _input_colon(task)
    if cut is None:
        return None
    start = cut + 1
    while start < len(task) and task[start].isspace():
        start += 1
    end = len(task.rstrip())
    if end > start and task[end - 1] == "." and not task[start : end - 1].rstrip().endswith("."):
        end -= 1  # the sentence's full stop, not an ellipsis
    return (start, end) if end > start else None


#: Single-quoted text: a quote mark after no word character, the closing one before none, so an apostrophe
#: ("today's", "the users' files") opens or closes nothing (as _VALUE_RE reads it); one between two letters
#: inside the quote is part of it ('I can't believe it').
SINGLE_QUOTED = re.compile(r"(?<![\w'`])'(?:[^'\n]|(?<=\w)'(?=\w))+'(?![\w'])")


#: Words (letters only, two or more) from which a single-quoted text is a sentence given as input (a review,
#: a text to translate), not a value the request names ('disk almost full', 'done', a date, a regex).
QUOTED_SENTENCE_WORDS = 4


def _sentence_out(m: re.Match[str]) -> str:
    """A blank for a quoted sentence (QUOTED_SENTENCE_WORDS words or more), else the quote as it is."""
    return " " if len(re.findall(r"[^\W\d_]{2,}", m.group())) >= QUOTED_SENTENCE_WORDS else m.group()


def request_text(task: str) -> str:
    """`task` without the input it hands over (without_input) or quotes (_PAYLOAD: double-quoted text, the
    text after "###Input:"; SINGLE_QUOTED: single-quoted text of QUOTED_SENTENCE_WORDS words or more), or
    `task` itself when nothing else is left: the words that say what the person wants, which the fit
    judgment reads (pipeline.py judge_fit; retrieve/fit.py names_missed and needs_translation: an English
    request about a quoted French text is English). A single-quoted review was read as request: "find the
    sentiment of the review 'great value, would buy again' with the smallest model" was "nothing fits" with
    `pipeline('sentiment-analysis')` the nearest call (break-it round 31, finding 9). A short quoted value
    stays: left out too, it moved 5 right answers of bench/data/literal_tasks.toml's dev half from "fits"
    (or "unsure") down ('disk almost full', 'done', a date, a JSON text), none with 4 words or more."""
    request = SINGLE_QUOTED.sub(_sentence_out, _PAYLOAD.sub(" ", without_input(task)))
    return " ".join(request.split()) or task


#: A task's values as it writes them: code in backticks, double-quoted text (every script's style), text in
#: single quotes that follow no word character (an apostrophe is no quote: "today's").
_VALUE_RE = re.compile(
    r"###\s*Input:.*|`[^`\n]*`|\"[^\"\n]*\"|“[^”\n]*”|«[^»\n]*»|(?<![\w'`])'[^'\n]+'(?![\w'])", re.S
)


def values_blanked(text: str) -> str:
    """`text` with its values (_VALUE_RE) and the input its colon hands over (handed_input) turned
    into blanks of the same length, so that spans found in it are spans of `text` (APIBench's "###Input:" text
    too); `text` itself when nothing else is left. A constraint is stated
    in the request, never in the data: the variable `phone` ("search for the pattern ... in `phone`") gave a
    phone's compute and size budgets (break-it round 30, F-L2), as "translate 'I lost my phone' to German"
    did: constraints/parse.py reads the constraints of a task in what this leaves."""
    out = _VALUE_RE.sub(lambda m: " " * len(m.group()), text)
    span = handed_input(text)
    if span is not None:
        a, b = span
        out = out[:a] + " " * (b - a) + out[b:]
    return out if re.search(r"\w", out) else text  # a task that is one quote is its own request


__all__ = [
    "CHOICE_WORDS",
    "COPULAS",
    "INPUT_COLON_WORDS",
    "INPUT_WORDS",
    "POINTER_COLON_WORDS",
    "POINTER_PREPOSITIONS",
    "POINTER_VERBS",
    "POINTER_WORDS",
    "REQUEST_WORDS",
    "SINGLE_QUOTED",
    "TRAILING",
    "request_text",
    "values_blanked",
    "without_input",
]
