"""tui/explain.py on the real Torch Hub pool: constraints in words and the hits set aside, with reasons."""

from __future__ import annotations

from gorilla_tui.constraints.parse import parse_constraints
from gorilla_tui.constraints.rank import proposal_constraints, search_with_constraints
from gorilla_tui.tui.explain import set_aside
from gorilla_tui.types import Proposal, Verdict


def _proposal(index, task: str, select_by: str = "grammar") -> Proposal:
    """A select-mode proposal for `task` whose call is the first offered hit (as pipeline.ask builds it)."""
    hits = search_with_constraints(index, task, k=5).hits
    chosen = next(h.doc for h in hits if not h.doc.flagged)
    constraints = proposal_constraints(parse_constraints(task), chosen)
    return Proposal(task, chosen.api_call, chosen.api_call, Verdict("valid", chosen.api_call, chosen),
                    hits=hits, constraints=constraints, select_by=select_by)  # fmt: skip


def test_generate_mode_sets_nothing_aside(torchhub_index):
    proposal = _proposal(torchhub_index, "classify images, must run on a Raspberry Pi", select_by="")
    assert set_aside(proposal) == []
