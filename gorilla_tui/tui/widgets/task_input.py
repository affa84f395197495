"""The task input: Enter asks, up/down recall earlier tasks, a multi-line paste is joined with a notice."""

from __future__ import annotations

from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.widgets import Input


class TaskInput(Input):
    """One-line task input.

    Posts TaskInput.Asked(task) on Enter (stripped, never empty) and TaskInput.Joined(lines, blank) after a
    paste of several lines was joined into one (lines: how many lines the paste had, blank: how many of
    them were blank and dropped). Up/down walk the recall
    list (newest first) set with :meth:`set_recall`; the text typed before recalling comes back at the end.
    """

    BINDINGS = [
        Binding("up", "recall(1)", "Older task", show=False),
        Binding("down", "recall(-1)", "Newer task", show=False),
    ]

    class Asked(Message):
        """The person asked `task`."""

        def __init__(self, task: str) -> None:
            super().__init__()
            self.task = task

    class Joined(Message):
        """A paste of `lines` lines (`blank` of them blank, dropped) was joined with spaces (Input holds
        one line)."""

        def __init__(self, lines: int, blank: int = 0) -> None:
            super().__init__()
            self.lines = lines
            self.blank = blank

        @property
        def notice(self) -> str:
            """What to tell the person, e.g. "pasted 4 lines (1 blank): joined into one line with spaces"."""
            blank = f" ({self.blank} blank)" if self.blank else ""
            return f"pasted {self.lines} lines{blank}: joined into one line with spaces"

    def __init__(self, **kwargs) -> None:
        kwargs.setdefault("placeholder", "Describe a task, e.g. 'classify objects in an image' — Enter asks")
        super().__init__(**kwargs)
        self._recall: list[str] = []
        self._pos = -1  # -1: the draft; 0: newest task
        self._draft = ""

    def set_recall(self, tasks: list[str]) -> None:
        """Tasks for up/down recall, newest first; resets the recall position."""
        self._recall = list(tasks)
        self._pos = -1

    def remember(self, task: str) -> None:
        """Put `task` at the front of the recall list (moving it if present)."""
        self._recall = [task] + [t for t in self._recall if t != task]
        self._pos = -1

    def action_recall(self, step: int) -> None:
        """Move `step` entries back in time (1: older, -1: newer)."""
        new = max(-1, min(len(self._recall) - 1, self._pos + step))
        if new == self._pos:
            return
        if self._pos == -1:
            self._draft = self.value
        self._pos = new
        self.value = self._draft if new == -1 else self._recall[new]
        self.cursor_position = len(self.value)

    async def action_submit(self) -> None:
        task = self.value.strip()
        if task:
            self._pos = -1
            self.post_message(self.Asked(task))

    def _on_paste(self, event: events.Paste) -> None:
        # Input keeps only the first line of a paste; join them instead, and say so (never cut silently).
        if "\n" not in event.text and "\r" not in event.text:
            return  # one line: Input's own handler inserts it
        pasted = event.text.splitlines()  # a final newline ends the last line, it adds none
        lines = [line.strip() for line in pasted if line.strip()]
        event.prevent_default()
        event.stop()
        joined = " ".join(lines)
        if self.selection.is_empty:
            self.insert_text_at_cursor(joined)
        else:
            self.replace(joined, *self.selection)
        if len(lines) > 1:
            self.post_message(self.Joined(len(pasted), len(pasted) - len(lines)))
