"""Run a proposal in the sandbox: confirm with the exact code and env requirements, confirm again when the
verdict is not valid or the code does not parse, then stream the output in RunScreen and record the run."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gorilla_tui.history import History
from gorilla_tui.pool.doc import ApiDoc
from gorilla_tui.sandbox.runner import probe_isolation
from gorilla_tui.tui.answer_text import NOTHING_FITS_CONCERN, code_note, verdict_concern
from gorilla_tui.tui.screens.confirm import ConfirmScreen
from gorilla_tui.tui.screens.run import RunScreen
from gorilla_tui.types import Proposal

if TYPE_CHECKING:
    from textual.screen import Screen


def doc_of(proposal: Proposal) -> ApiDoc | None:
    """The matched doc (else the hit whose api_call is the proposal's call), or None."""
    doc = proposal.verdict.matched
    if doc is None:
        doc = next(
            (h.doc for h in proposal.hits if h.doc.api_call.strip() == proposal.api_call.strip()), None
        )
    return doc


def requirements_of(proposal: Proposal) -> list[str]:
    """Env requirements of the matched doc (else of the hit whose api_call is the proposal's call)."""
    doc = doc_of(proposal)
    return list(doc.env_requirements) if doc else []


#: The question asked before a run where the machine refuses namespaces (issue 16: these exact words).
UNISOLATED_QUESTION = "No isolation here: network open, files writable. Run it anyway?"


def isolation_note() -> str:
    """One line on what the sandbox contains here (sandbox.runner.probe_isolation): with namespaces the
    network is off, so code that downloads weights fails; without them, say plainly that it is open."""
    iso = probe_isolation()
    if iso.mode == "namespaces":
        return (
            "Runs isolated: no network (downloads of model weights will fail), only the system and the"
            " Python environment visible, private size-limited /tmp and home, time, memory and output limits."
        )
    return f"NOT isolated here ({iso.reason}): network open, files writable."


def values_note(proposal: Proposal) -> str:
    """A line naming what the code uses but does not define: the person's own variables the call takes
    (origin "variable": ``text`` in ``text.count('the')``) and placeholders left for missing values; "" when
    there are none. Break-it round 32: the Run dialog said "Needs: nothing listed" for a call on `text`."""
    variables = list(dict.fromkeys(a.value for a in proposal.arguments if a.origin == "variable"))
    parts = []
    if variables:
        parts.append("your variables, defined nowhere in the code: " + ", ".join(variables))
    if proposal.needs:
        parts.append("values still to fill in: " + ", ".join(proposal.needs))
    return "Uses " + "; ".join(parts) + ".\n" if parts else ""


def start_run(screen: Screen, proposal: Proposal | None, task_id: int | None, history: History) -> None:
    """Ask, then run `proposal.code` (see module docstring) and record the run under `task_id` in `history`.
    Does nothing but notify when there is no code."""
    app = screen.app
    if proposal is None or not (proposal.code or proposal.api_call):
        screen.notify("nothing to run yet", severity="warning")
        return
    code = proposal.code or proposal.api_call
    reqs = requirements_of(proposal)
    detail = "Needs: " + (", ".join(reqs) if reqs else "nothing listed") + "\n" + values_note(proposal)
    detail += isolation_note()

    def finished(result) -> None:
        if result is not None:
            exit_code = None if result.stopped or result.limits_hit else result.exit_status
            history.add_run(
                task_id,
                code,
                exit_code,
                result.output,
                duration_s=result.duration_s,
                truncated=result.truncated,
            )

    isolated = probe_isolation().mode == "namespaces"

    def start() -> None:
        screen = RunScreen(code, on_finished=finished, allow_unisolated=not isolated, doc=doc_of(proposal))
        app.push_screen(screen)

    def unisolated(yes: bool | None) -> None:
        if yes:
            start()

    def launch() -> None:
        if isolated:
            start()
        else:  # no isolation, no run: unless the person says yes to exactly this
            reason = probe_isolation().reason
            app.push_screen(
                ConfirmScreen(UNISOLATED_QUESTION, f"Missing: {reason}.", yes="Run unisolated"), unisolated
            )

    def second(yes: bool | None) -> None:
        if yes:
            launch()

    note = code_note(proposal)
    concerns = []
    if proposal.fit == "nothing":
        concerns.append(NOTHING_FITS_CONCERN)
    if proposal.verdict.kind != "valid":
        concerns.append(verdict_concern(proposal.verdict, "code"))
    if note:
        concerns.append(note[0].upper() + note[1:] + " (it will most likely fail).")

    def first(yes: bool | None) -> None:
        if not yes:
            return
        if not concerns:
            launch()
        else:
            app.push_screen(ConfirmScreen("\n".join(concerns), "Run it anyway?", yes="Run anyway"), second)

    app.push_screen(ConfirmScreen("Run this code in the sandbox?", detail, code=code, yes="Run"), first)
