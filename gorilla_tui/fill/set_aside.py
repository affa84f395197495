"""A long input a colon hands over, kept whole for the call while the search and the model read its start.

A task is searched and read by the model up to textsafe.MAX_TASK_CHARS characters and MODEL_TASK_WORDS
words (their cost grows with it), but `ask` accepts MAX_TASK_INPUT_CHARS (10,000). "parse this JSON:
<3,200 characters>" was cut at 2,000 (``json.loads`` of half a document), and "base64 encode this: <3,000
x>" at 19 characters, the input dropped whole (break-it round 30, F-M3). The input is data, never searched
(retrieve/query/handover.py without_input): `set_aside` puts a stand-in for it in the task, its first
STAND_IN_CHARS characters, which filling offers as the handed input; `AsideInput.restored` writes the whole
input back into the filled call wherever the stand-in's literal is (as text or as its UTF-8 bytes).
A long value the request itself writes (a list literal, quoted text, a number: fill/long_values.py) is set
aside first, the same way; `Aside` holds what one task set aside.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from gorilla_tui.fill.long_values import STAND_IN_CHARS, LongValue, stand_ins
from gorilla_tui.retrieve.query.handover import handed_input
from gorilla_tui.textsafe import MAX_TASK_CHARS, MODEL_TASK_WORDS


@dataclass(frozen=True)
class AsideInput:
    """The input set aside: `whole` as the task wrote it, `stand_in`, the start of it the task holds, and
    `task`, the whole task (Proposal.task: what was asked)."""

    whole: str
    stand_in: str
    task: str = ""

    def _forms(self) -> list[tuple[str, str]]:
        """(stand-in literal, whole literal) as text and as UTF-8 bytes."""
        return [
            (repr(self.stand_in), repr(self.whole)),
            (repr(self.stand_in.encode("utf-8")), repr(self.whole.encode("utf-8"))),
        ]

    def restored(self, source: str) -> str:
        """`source` (a call, an argument's value) with each literal of the stand-in replaced by the whole
        input's literal of the same type."""
        for short, whole in self._forms():
            source = source.replace(short, whole)
        return source

    def value(self, value: Any) -> Any:
        """A decoded value (render.decoded_calls) with the stand-in, as text or bytes, made the whole input,
        inside lists and dicts too."""
        if value == self.stand_in:
            return self.whole
        if value == self.stand_in.encode("utf-8"):
            return self.whole.encode("utf-8")
        if isinstance(value, list):
            return [self.value(v) for v in value]
        if isinstance(value, dict):
            return {k: self.value(v) for k, v in value.items()}
        return value

    def shortened(self, source: str) -> str:
        """`source` (a restored call) with the whole input's literals made the stand-in's again."""
        for short, whole in self._forms():
            source = source.replace(whole, short)
        return source

    def taken(self, source: str) -> bool:
        """Whether the call `source` (restored) holds the whole input."""
        return any(whole in source for _short, whole in self._forms())

    def note(self, taken: bool) -> str:
        """The warning the answer gives: the input read whole into the call, or left out of it."""
        n = f"{len(self.whole):,}"
        if taken:
            return (
                f"the input after the colon ({n} characters) is in the call whole; the search and the model "
                f"read its first {len(self.stand_in):,}"
            )
        return f"the input after the colon ({n} characters) is in no argument of the call: it was not taken"


@dataclass(frozen=True)
class Aside:
    """What one task set aside: `parts`, its long values (fill/long_values.py) and the input a colon hands
    over, in that order, and `task`, the whole task (Proposal.task: what was asked)."""

    parts: tuple[LongValue | AsideInput, ...]
    task: str

    def restored(self, source: str) -> str:
        """`source` with each part's stand-in made the whole value (AsideInput.restored)."""
        for part in self.parts:
            source = part.restored(source)
        return source

    def value(self, value: Any) -> Any:
        """A decoded value with each part's stand-in made the whole value (AsideInput.value)."""
        for part in self.parts:
            value = part.value(value)
        return value

    def shortened(self, source: str) -> str:
        """`source` (a restored call) as the task with the stand-ins writes it (each part's shortened)."""
        for part in self.parts:
            source = part.shortened(source)
        return source

    def notes(self, call: str) -> list[str]:
        """The warnings of the answer whose call is `call`: one a part, taken whole or not taken."""
        return [part.note(part.taken(call)) for part in self.parts]


def set_aside(task: str) -> tuple[str, Aside | None]:
    """(`task` with its long values and its long handed input replaced by stand-ins, what was set aside), or
    (`task`, None) when nothing was. `task` is a cleaned one (textsafe.clean_task with the
    MAX_TASK_INPUT_CHARS limit): words split by single spaces. Each value longer than
    long_values.STAND_IN_CHARS goes first (long_values.stand_ins; raises UsageError for a number longer than
    Python reads); then the input a colon hands over (handed_input), when the task is still too long.
    Restore the whole values in a filled call with `restore`."""
    short, values = stand_ins(task)
    short, handed = handed_aside(short)
    parts = (*values, handed) if handed is not None else tuple(values)
    return (short, Aside(parts, task)) if parts else (task, None)


def handed_aside(task: str) -> tuple[str, AsideInput | None]:
    """(`task` with its handed input replaced by a stand-in, the input set aside), or (`task`, None) when
    no colon hands over input or the task is short enough to be read whole (at most MAX_TASK_CHARS
    characters and MODEL_TASK_WORDS words). `task` is a cleaned one (textsafe.clean_task with the
    MAX_TASK_INPUT_CHARS limit): words split by single spaces. The stand-in is the input's first
    STAND_IN_CHARS characters, cut at a blank, without the marks a sentence ends with; when the task with it
    hands over no such input (handover.handed_input), nothing is set aside."""
    if len(task) <= MAX_TASK_CHARS and task.count(" ") < MODEL_TASK_WORDS:
        return task, None
    span = handed_input(task[:MAX_TASK_CHARS]) if ":" in task[:MAX_TASK_CHARS] else None
    if span is None:
        return task, None
    start = span[0]
    end = handed_input(task)
    if end is None or end[0] != start:
        return task, None
    whole = task[start : end[1]]
    cut = whole[:STAND_IN_CHARS]
    if len(whole) > STAND_IN_CHARS and " " in cut:
        cut = cut.rsplit(" ", 1)[0]
    cut = cut.rstrip(".,;:!? ")  # a full stop at its end would be the sentence's (handed_input)
    short = task[:start] + cut + task[end[1] :]
    span = handed_input(short)
    if not cut or len(cut) >= len(whole) or span is None or short[span[0] : span[1]] != cut:
        return task, None  # no stand-in filling reads as the input: the task is cut as any other
    return short, AsideInput(whole, cut, task)


def restore(filled: Any, aside: Aside | AsideInput | None) -> Any:
    """`filled` (fill/filler.py Filled) with the whole input written back where the stand-in is: its call,
    its arguments' values and its decoded calls; `filled` itself when nothing was set aside."""
    if aside is None or filled is None:
        return filled
    return dataclasses.replace(
        filled,
        call=aside.restored(filled.call),
        arguments=[dataclasses.replace(a, value=aside.restored(a.value)) for a in filled.arguments],
        calls=[{f: aside.value(args) for f, args in c.items()} for c in filled.calls],
    )


def shortened(source: str, aside: Aside | None) -> str:
    """`source` (a restored call) as the task with the stand-ins writes it (Aside.shortened); `source`
    itself when nothing was set aside."""
    return source if aside is None else aside.shortened(source)
