"""A function the filled calls may call (fill/filler.py target_of makes them, fill/writer.py writes them)."""

from __future__ import annotations

from dataclasses import dataclass

from gorilla_tui.fill.call_grammar import Slot
from gorilla_tui.pool.apidoc import ApiDoc
from gorilla_tui.pool.params import Param


@dataclass
class Target:
    """A function the filled calls may call: its doc, callee, parameters and the slots offered for this
    task (fill/call_grammar.py slots)."""

    doc: ApiDoc
    callee: str
    params: list[Param]
    offered: list[Slot]
