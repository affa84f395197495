"""A filled call in the proposal panel (issue 37): each value marked by where it came from (task, doc,
default, missing placeholder), the line under it, and copy / run taking the filled call (tui/arguments.py,
tui/widgets/proposal.py)."""

from __future__ import annotations

import io
from dataclasses import replace

from rich.console import Console
from rich.style import Style

from gorilla_tui.check.verdicts import incomplete
from gorilla_tui.config import Settings
from gorilla_tui.constraints.rank import search_with_constraints
from gorilla_tui.model.grammar import unique_options
from gorilla_tui.model.scripted import ScriptedBackend
from gorilla_tui.tui.answer_text import chosen_hit
from gorilla_tui.tui.app import create_app
from gorilla_tui.tui.arguments import value_spans
from gorilla_tui.tui.screens.confirm import ConfirmScreen
from gorilla_tui.tui.session import Session
from gorilla_tui.tui.widgets.hits import CHOSEN
from gorilla_tui.tui.widgets.proposal import ProposalPanel
from gorilla_tui.types import Argument, Proposal, Verdict
from tests.tui.conftest import ask, screen_text

COPY_TASK = "copy the file notes.txt"
FILLED = "shutil.copyfile('notes.txt', dst)"


def _styled(renderable, width: int = 100) -> tuple[str, list[Style]]:
    """The text `renderable` renders to and the style of each of its characters (rich Console)."""
    console = Console(width=width, file=io.StringIO(), force_terminal=True, color_system="truecolor")
    text, styles = [], []
    for segment in console.render(renderable):
        text.append(segment.text)
        styles += [segment.style or Style()] * len(segment.text)
    return "".join(text), styles


def _style_at(rendered: tuple[str, list[Style]], value: str) -> list[Style]:
    """The styles of the characters of the first `value` in the rendered text."""
    text, styles = rendered
    start = text.index(value)
    return styles[start : start + len(value)]


def _screen(app) -> tuple[str, list[Style]]:
    """What the terminal shows now, with the style of each character (as the compositor draws it)."""
    return _styled(app.screen._compositor.render_update(full=True), width=app.size[0])


def _copy_app(small_index):
    """Select mode by grammar over the small pool, where COPY_TASK's only candidate call is shutil.copyfile
    (nothing to choose: the model is asked only to fill it). The script writes src from the task and stops
    there, as a model cut short does: filling leaves dst as its named placeholder."""
    hits = search_with_constraints(small_index, COPY_TASK, k=5).hits
    options = unique_options(h.doc.call for h in hits if not h.doc.flagged or h.doc.repaired)
    assert options == ["shutil.copyfile(src, dst)"]
    settings = Settings(mode="select", select_by="grammar", k=5)
    backend = ScriptedBackend(["src='notes.txt')"])
    return create_app(settings, backend=backend, index=small_index, show_timings=False)


async def test_the_filled_call_marks_each_value_and_copy_and_run_take_it(small_index, monkeypatch):
    for name in ("TMUX", "DISPLAY", "WAYLAND_DISPLAY"):  # no clipboard tool: the copy stays in the app
        monkeypatch.delenv(name, raising=False)
    app = _copy_app(small_index)
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot, COPY_TASK)
        proposal = app.main.proposal
        # the real pipeline filled the chosen call: src from the task, dst a placeholder
        assert proposal.api_call == FILLED and proposal.code_source == "filled"
        assert [(a.name, a.origin) for a in proposal.arguments] == [("src", "task"), ("dst", "missing")]
        assert proposal.verdict.kind == "incomplete"
        # the hits panel marks the chosen hit, though no hit's call is the filled one as written
        hits = app.main.query_one("#hits")
        chosen = [i for i, h in enumerate(proposal.hits) if h.doc.call.strip() == "shutil.copyfile(src, dst)"]
        assert chosen and hits.chosen == chosen[0] == chosen_hit(proposal)
        assert CHOSEN + "shutil.copyfile" in screen_text(app)
        panel = app.main.query_one(ProposalPanel)
        call = panel.query_one("#call")
        line = panel.query_one("#arguments")
        assert call.display and line.display
        assert str(line.render()) == "needs: dst · from your task: src='notes.txt'"
        assert "│ needs: dst · from your task: src='notes.txt'" in screen_text(app)
        # the code area still shows the whole code (the import), the filled call in it
        assert (
            panel.query_one("#code").display and panel.query_one("#code").text == f"import shutil\n{FILLED}"
        )

        # marks as the terminal draws them: the task's value underlined, the placeholder on a warning colour
        styles = _style_at(_screen(app), FILLED)  # the first on screen: the marked call above the code
        callee, value, placeholder = (
            styles[:16],
            styles[16:27],
            styles[29:32],
        )  # shutil.copyfile( 'notes.txt' dst
        assert not any(s.underline or s.bold for s in callee)
        assert all(s.underline and s.bold for s in value)
        assert all(s.bgcolor != callee[0].bgcolor for s in placeholder)

        # copy (asked first: the verdict is incomplete) and run take the filled call and code
        await pilot.press("ctrl+y")
        assert isinstance(app.screen, ConfirmScreen) and "needs: dst" in app.screen.question
        await pilot.press("y")
        assert app.clipboard == FILLED
        await pilot.press("f5")
        assert isinstance(app.screen, ConfirmScreen) and app.screen.code == f"import shutil\n{FILLED}"
        assert "Uses values still to fill in: dst." in app.screen.detail  # break-it 32: "nothing listed"
        await pilot.press("n")


async def test_every_origin_has_its_mark_and_doc_text_is_escaped(small_index):
    # a value from the doc with a terminal escape sequence in it; non-ASCII before it (byte offsets in ast)
    call = "tool.fetch('café/ü.txt', model='\x1b[2J\x1b]0;PWNED\x07net', retries=3, out=out)"
    arguments = [
        Argument("path", "'café/ü.txt'", "task"),
        Argument("model", "'\x1b[2J\x1b]0;PWNED\x07net'", "doc"),
        Argument("retries", "3", "default"),
        Argument("out", "out", "missing"),
    ]
    verdict = incomplete(Verdict("valid", api_call=call), ["out"])
    proposal = Proposal(task="fetch café/ü.txt", api_call=call, code=call, verdict=verdict,
                        arguments=arguments, code_source="filled")  # fmt: skip
    app = create_app(Settings(), backend=ScriptedBackend([" x"]), index=small_index, show_timings=False)
    async with app.run_test(size=(240, 36)) as pilot:  # wide: the line up to the doc's value
        app.main.show_proposal(proposal)
        await pilot.pause()
        panel = app.main.query_one(ProposalPanel)
        rendered = _styled(panel.query_one("#call").content)
        shown = "'\\x1b[2J\\x1b]0;PWNED\\x07net'"  # the escapes visible, never sent
        assert "\x1b" not in rendered[0] and "\x07" not in rendered[0] and shown in rendered[0]
        assert all(s.bold and s.underline for s in _style_at(rendered, "'café/ü.txt'"))
        assert all(s.italic and not s.underline for s in _style_at(rendered, shown))
        assert all(s.dim for s in _style_at(rendered, "3"))
        assert all(s.bgcolor is not None and s.bold for s in _style_at(rendered, "out)")[:3])
        assert not any(s.bold or s.italic or s.dim for s in _style_at(rendered, "tool.fetch("))
        line = panel.query_one("#arguments").render()
        assert str(line) == (
            f"needs: out · from your task: path='café/ü.txt' · from the doc: model={shown}"
            " · default: retries=3"
        )
        text = screen_text(app)
        assert "\x1b" not in text and f"│ {str(line).split(' · default')[0]}" in text
        # the code is the call alone: the marked call shows it, the code area is not shown twice
        assert panel.query_one("#call").display and not panel.query_one("#code").display

        # a proposal with nothing filled is shown as before: no line, the code area holds the call
        app.main.show_proposal(Proposal(task="t", api_call="json.loads(s)", code="json.loads(s)",
                                        verdict=Verdict("valid")))  # fmt: skip
        await pilot.pause()
        assert not panel.query_one("#arguments").display and not panel.query_one("#call").display
        assert panel.query_one("#code").display and panel.query_one("#code").text == "json.loads(s)"


def test_value_spans_find_each_value_where_the_call_holds_it():
    call = "shutil.copyfile('né.txt', dst, follow_symlinks=False)"
    args = [Argument("src", "'né.txt'", "task"), Argument("dst", "dst", "missing"),
            Argument("follow_symlinks", "False", "default")]  # fmt: skip
    spans = value_spans(call, args)
    assert [(call[a:b], origin) for a, b, origin in spans] == [
        ("'né.txt'", "task"), ("dst", "missing"), ("False", "default")]  # fmt: skip
    # over several lines, and the second call of a text (Argument.call 1)
    two = "f(x=1)\nshutil.copyfile(\n    'é', dst)"
    spans = value_spans(two, [Argument("src", "'é'", "task", call=1), Argument("dst", "dst", "missing", 1)])
    assert [two[a:b] for a, b, _ in spans] == ["'é'", "dst"]
    # a value the call no longer holds (the call was edited) marks nothing; nor does text Python refuses
    assert value_spans(call, [Argument("src", "'other.txt'", "task")]) == []
    assert value_spans("shutil.copyfile('a'", args) == []
    assert value_spans(call, []) == []


def test_a_did_you_mean_keeps_the_filled_values_only_for_the_same_call(small_index):
    session = Session(Settings(), backend=ScriptedBackend([" x"]), index=small_index)
    arguments = [Argument("src", "'notes.txt'", "task"), Argument("dst", "'b.txt'", "task")]
    calls = [{"shutil.copyfil": {"src": "notes.txt", "dst": "b.txt"}}]
    call = "shutil.copyfil('notes.txt', 'b.txt')"
    proposal = Proposal(task=COPY_TASK, api_call=call, code=call, verdict=Verdict("hallucination"),
                        arguments=arguments, calls=calls)  # fmt: skip
    renamed = session.accept_suggestion(proposal, "shutil.copyfile")  # a callee: the values stay
    assert renamed.api_call == "shutil.copyfile('notes.txt', 'b.txt')" and renamed.verdict.kind == "valid"
    assert renamed.arguments == arguments
    assert renamed.calls == [{"shutil.copyfile": {"src": "notes.txt", "dst": "b.txt"}}]
    replaced = session.accept_suggestion(proposal, "json.loads(s)")  # a whole call of the pool
    assert replaced.arguments == [] and replaced.calls == []  # none of its values came from the task


async def test_a_value_of_the_task_no_argument_holds_is_said_under_the_call(small_index):
    # the real pipeline over the small pool: the script fills src and stops, so the task's second file is in
    # no argument; the line under the call says so (fill/unused.py), beside the placeholder it was meant for
    task = "copy the file notes.txt to the file backup.txt"
    hits = search_with_constraints(small_index, task, k=5).hits
    assert unique_options(h.doc.call for h in hits if not h.doc.flagged or h.doc.repaired) == [
        "shutil.copyfile(src, dst)"
    ]
    settings = Settings(mode="select", select_by="grammar", k=5)
    backend = ScriptedBackend(["src='notes.txt')"])
    app = create_app(settings, backend=backend, index=small_index, show_timings=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot, task)
        proposal = app.main.proposal
        assert proposal.api_call == FILLED and proposal.unused == ["backup.txt"]
        line = app.main.query_one(ProposalPanel).query_one("#arguments")
        assert line.display
        said = "needs: dst · from your task: src='notes.txt' · not in the call: backup.txt"
        assert str(line.render()) == said
        assert proposal.to_dict()["unused"] == ["backup.txt"]


def test_the_run_dialog_names_the_persons_variables_the_code_uses():
    """Break-it round 32: the Run dialog said "Needs: nothing listed" for ``text.count('the')``, and the
    sandbox then reported `text` undefined. The dialog's detail names the person's variables the call takes
    (origin "variable") and the placeholders still missing; nothing when there are none."""
    from gorilla_tui.tui.run import values_note

    call = "text.count(sub)"
    arguments = [Argument("self", "text", "variable"), Argument("sub", "sub", "missing")]
    verdict = incomplete(Verdict("valid", api_call=call), ["sub"])
    proposal = Proposal(
        task="count x in `text`", api_call=call, code=call, verdict=verdict, arguments=arguments
    )
    assert values_note(proposal) == (
        "Uses your variables, defined nowhere in the code: text; values still to fill in: sub.\n"
    )
    filled = Proposal(task="t", api_call="f(1)", code="f(1)", verdict=Verdict("valid", api_call="f(1)"))
    assert values_note(replace(filled, arguments=[Argument("x", "1", "task")])) == ""
