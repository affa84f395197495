"""The task input: Enter asks, up/down recall earlier tasks, a multi-line paste is joined with a notice, and
the value holds at most MAX_TASK_CHARS characters (what every path that asks keeps, textsafe.clean_task);
a paste that would make a task of more than MAX_TASK_INPUT_CHARS is not taken, with a notice, as `ask` and
the MCP server refuse such a task (break-it round 26: the TUI took a 12,800-character paste).

The cut is Input's own `max_length`, so a key press past it is refused in O(limit): a 1 MB paste that
arrives as key presses (tmux `paste-buffer` without `-p`: no bracketed paste) otherwise grew the value one
character at a time, each key a new string as long as the value and an Input.Changed message holding it,
and the TUI passed 4 GB of memory (measured in tmux; docs/benchmarks.md has the numbers).
"""

from __future__ import annotations

from textual import events
from textual.binding import Binding
from textual.message import Message

from gorilla_tui.textsafe import MAX_TASK_CHARS, MAX_TASK_INPUT_CHARS, strip_controls
from gorilla_tui.tui.widgets.text_input import SafeInput


class TaskInput(SafeInput):
    """One-line task input.

    Posts TaskInput.Asked(task) on Enter (stripped, never empty) and TaskInput.Joined(lines, blank) after a
    paste of several lines was joined into one (lines: how many lines the paste had, blank: how many of
    them were blank and dropped). The value holds at most `max_length` characters (MAX_TASK_CHARS, 2,000):
    a paste is cut to the room left and keys past it are refused; TaskInput.Cut(limit) is posted once per
    overflow (again only after the value went below the limit). A paste that would make the task longer
    than MAX_TASK_INPUT_CHARS (10,000, what `ask` and the MCP server accept) is not taken at all:
    TaskInput.Refused(length) is posted. Up/down walk the recall list (newest first) set with
    :meth:`set_recall`; the text typed before recalling comes back at the end.
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
        """A paste of `lines` lines (`blank` of them blank, dropped) was joined with spaces (an Input holds
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

    class Cut(Message):
        """Text past `limit` characters was not taken (a paste cut, or keys refused)."""

        def __init__(self, limit: int) -> None:
            super().__init__()
            self.limit = limit

        @property
        def notice(self) -> str:
            """What to tell the person, e.g. "task cut at 2,000 characters (the longest task kept)"."""
            return f"task cut at {self.limit:,} characters (the longest task kept)"

    class Refused(Message):
        """A paste was not taken: the task would have been `length` characters, more than any path that
        asks accepts (textsafe.MAX_TASK_INPUT_CHARS: `ask` and the MCP server refuse it, exit 2)."""

        def __init__(self, length: int) -> None:
            super().__init__()
            self.length = length

        @property
        def notice(self) -> str:
            """What to tell the person, e.g. "paste not taken: the task would be 12,800 characters; ..."."""
            return (
                f"paste not taken: the task would be {self.length:,} characters; at most "
                f"{MAX_TASK_INPUT_CHARS:,} are accepted (as by ask and the MCP server)"
            )

    def __init__(self, **kwargs) -> None:
        kwargs.setdefault("placeholder", "Describe a task, e.g. 'classify objects in an image' — Enter asks")
        kwargs.setdefault("max_length", MAX_TASK_CHARS)
        super().__init__(**kwargs)
        self._recall: list[str] = []
        self._pos = -1  # -1: the draft; 0: newest task
        self._draft = ""
        self._cut_said = False  # a Cut was posted and the value has not gone below the limit since

    def watch_value(self, value: str) -> None:
        # Per key: one length comparison (Input's own watcher does the rest).
        if self._cut_said and len(value) < (self.max_length or 0):
            self._cut_said = False

    def restricted(self) -> None:
        """A key or paste was refused (only max_length restricts this input): say so once per overflow,
        not once per key (Input rings the bell per refused key: a million times for a 1 MB paste)."""
        self._said_cut()

    def _said_cut(self) -> None:
        if not self._cut_said:
            self._cut_said = True
            self.app.bell()
            self.post_message(self.Cut(self.max_length or 0))

    def set_recall(self, tasks: list[str]) -> None:
        """Tasks of the history for up/down recall, newest first. They go after the tasks asked since the app
        started (remember), which are newer: the history is read after the first paint (App._start_loading),
        and a task asked before that (typed during the start, or on a busy machine) was dropped from the
        recall when this replaced the list. The recall position is kept (the list only grows at its end)."""
        self._recall = self._recall + [t for t in tasks if t not in self._recall]

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
        # Input keeps only the first line of a paste, and refuses a paste past max_length whole; instead the
        # lines are joined and the text is cut to the room left, and both are said (never cut silently).
        event.prevent_default()
        event.stop()
        # a paste is shown as typed: its escape sequences, C1 controls (U+009B, the 8-bit CSI) and bidi
        # overrides (U+202E) reached the terminal raw in the input's own line (break-it round 8); newlines
        # and tabs are kept for the joining below
        text = strip_controls(event.text.replace("\r\n", "\n").replace("\t", " "))
        pasted: list[str] = []
        lines: list[str] = []
        if "\n" in text or "\r" in text:
            pasted = text.splitlines()  # a final newline ends the last line, it adds none
            lines = [line.strip() for line in pasted if line.strip()]
            text = " ".join(lines)
        start, end = sorted(self.selection)
        total = len(self.value) - (end - start) + len(text)
        if total > MAX_TASK_INPUT_CHARS:  # refused whole, as `ask` refuses it (R26): not cut to a part
            self.app.bell()
            self.post_message(self.Refused(total))
            return
        room = (self.max_length or len(self.value) + len(text)) - (len(self.value) - (end - start))
        if len(text) > room:
            text = text[: max(0, room)]
            self._said_cut()
        if text or end > start:
            self.replace(text, start, end)
        if len(lines) > 1:
            self.post_message(self.Joined(len(pasted), len(pasted) - len(lines)))
