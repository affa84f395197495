"""Query translation: a task written in another language, put into English by the loaded model.

Every API pool here is in English. A task in German, Chinese or Spanish shares few BM25 terms with any doc,
and the multilingual dense side alone often lands on the wrong source (a short German or Chinese task is
about as close to thousands of standard-library docs as to the right model). Translating the query before
retrieval is the classic remedy of cross-language retrieval (query translation; Nie, "Cross-Language
Information Retrieval", 2010); the translator here is the model the person already runs, prompted with two
examples (PROMPT), greedy, one line. The pipeline (pipeline.py) asks for it only when the task is not
English and most of its words are unknown to the index (retrieve/fit.py needs_translation), searches the
task followed by its translation (BM25 gets the English words, the multilingual dense side reads both) and
lets the model score the hits against the task as typed.

Chosen on the dev half of bench/data/everyday_translated_tasks.toml (48 tasks in German, Spanish, French,
Chinese and Japanese; right answers in the default setting): as typed 23; the translation alone 25; task +
translation searched and scored 29; searched, scored against the translation 27; searched, scored against
the task as typed 30 (shipped). A five-language prompt translated worse than this two-example one (the
translation alone 17, task + translation 26). docs/benchmarks.md, "Tasks in other languages".
"""

from __future__ import annotations

import re
import threading
from typing import Any

from gorilla_tui.textsafe import strip_controls

#: The prompt's examples (task, English): two, German and Chinese; on the dev split a five-language prompt
#: translated worse (bench/translated.py).
EXAMPLES = (("Datei öffnen", "open a file"), ("计算两个日期之间的天数", "count the days between two dates"))
#: The few-shot prompt (a completion prompt: it works with base and chat models alike). {task} is replaced
#: by the task, whitespace-normalised.
PROMPT = (
    "Translate each task into English.\n"
    + "".join(f"Task: {task}\nEnglish: {english}\n" for task, english in EXAMPLES)
    + "Task: {task}\nEnglish:"
)
#: A translation shorter than this share of the task (characters) is not used: on a task of several
#: sentences the model gives back an example's line ("open a file" for a German paragraph about sorting
#: holiday photos, found by a break-it pass). The 63 translations of bench/translated.py are 0.36 of their
#: task's length and more (Chinese and Japanese tasks translate to longer English).
MIN_LENGTH_SHARE = 0.25
#: Generation budget of one translation, tokens (a task of a few lines translates within it; longer output
#: is cut, which only shortens the query).
MAX_TOKENS = 64


def to_english(backend: Any, task: str, cancel: threading.Event | None = None) -> str:
    """The English translation of `task` by `backend` (a model.backend.Backend), one line, or "" when the
    model gives nothing usable (empty output, the task itself or an example's English back, a translation
    shorter than MIN_LENGTH_SHARE of the task, one made only of the task's own words (reworded_only), or a
    prompt that does not fit n_ctx with MAX_TOKENS to spare).

    Escape sequences and control characters are removed (textsafe.strip_controls): the text is shown to the
    person and searched. Raises what backend.complete raises (GorillaError when the model fails)."""
    task = " ".join(task.split())
    if not task:
        return ""
    prompt = PROMPT.replace("{task}", task)
    if backend.count_tokens(prompt) + MAX_TOKENS > backend.n_ctx:
        return ""
    text = "".join(backend.complete(prompt, max_tokens=MAX_TOKENS, stop=["\n"], cancel=cancel))
    english = " ".join(strip_controls(text).split())
    copied = {task.casefold()} | {e.casefold() for t, e in EXAMPLES if t != task}
    if english.casefold() in copied or len(english) < MIN_LENGTH_SHARE * len(task):
        return ""
    return "" if reworded_only(task, english) else english


def reworded_only(task: str, english: str) -> bool:
    """Whether every word of `english` is a word of `task` (casefolded \\w+ runs): the model put no language
    of its own in, so `task` was English already and the "translation" can only reorder it. "convert 100
    fahrenheit to celsius", which py3langid gives English 0.009 (short tasks are its guesses), came back as
    "convert 100 celsius to fahrenheit" and was searched and shown that way (break-it round 30, F-M4). Of
    the 63 translations of bench/translated.py (tasks in German, Spanish, French, Chinese and Japanese),
    none is made of its task's words alone."""
    words = set(re.findall(r"\w+", english.casefold()))
    return bool(words) and words <= set(re.findall(r"\w+", task.casefold()))
