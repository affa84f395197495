"""`gorilla-tui ask "TASK"`: one task through pipeline.ask, printed as a rich panel or JSON."""

from __future__ import annotations

import argparse
import json
import sys
import threading
from typing import Any


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `ask` subcommand."""
    p = sub.add_parser(
        "ask",
        help="turn a task in plain English into a checked API call",
        description="Retrieve API docs for TASK, ask the model for the call, check it against the API pool.",
    )
    p.add_argument("task", help="what you want to do, in plain English")
    p.add_argument("--json", action="store_true", help="print the proposal as JSON")
    p.add_argument("-k", type=int, default=None, metavar="N", help="hits retrieved (1..50)")
    p.add_argument("--hub", default=None, metavar="NAME", help="search only this source (e.g. torchhub)")
    p.add_argument("--mode", choices=("select", "generate"), default=None, help="select (GBNF) or generate")
    p.add_argument(
        "--model", default=None, metavar="M", help="a .gguf path, hf:OWNER/REPO/FILE.gguf or a name"
    )
    p.add_argument("--endpoint", default=None, metavar="URL", help="OpenAI-compatible completion server")
    p.add_argument("--kernel", default=None, metavar="NAME", help="kernel profile (cpu, metal, cuda, vulkan)")
    p.add_argument("--max-tokens", type=int, default=None, metavar="N", help="generation budget (tokens)")
    p.add_argument(
        "--run", action="store_true", help="then run the proposed code in the sandbox (asks to confirm)"
    )
    p.add_argument("--yes", "-y", action="store_true", help="with --run: answer every confirmation")
    p.add_argument("--timeout", type=float, default=None, metavar="S", help="with --run: wall-clock limit")
    p.add_argument("--keep", action="store_true", help="with --run: keep the sandbox folder")
    p.set_defaults(func=run)


def settings_from_args(args: argparse.Namespace) -> Any:
    """config.toml settings with the command-line flags that were given applied on top."""
    from gorilla_tui.config import load_settings

    return load_settings().replace(
        k=getattr(args, "k", None),
        hub=getattr(args, "hub", None),
        mode=getattr(args, "mode", None),
        model=getattr(args, "model", None),
        endpoint=getattr(args, "endpoint", None),
        kernel=getattr(args, "kernel", None),
        max_tokens=getattr(args, "max_tokens", None),
    )


def run(args: argparse.Namespace) -> int:
    """Answer the task; exit 0 for a valid verdict, 1 for any other verdict, 2 for bad input/setup.
    With --run: then confirm and run the code in the sandbox; the exit status is the run's (cli/run.py)."""
    from gorilla_tui.core.backend import open_backend
    from gorilla_tui.core.pipeline import Pipeline, clean_task
    from gorilla_tui.core.retrieval import ApiIndex

    settings = settings_from_args(args)
    clean_task(args.task)  # an empty task fails before the model is loaded
    if args.run:
        from gorilla_tui.cli.run import check_run_args

        check_run_args(args)  # no TTY and no --yes: refuse before the model is loaded
    index = ApiIndex.load()
    if settings.hub:
        index.pool(settings.hub)  # unknown hub: UsageError now
    backend = open_backend(settings)
    pipeline = Pipeline(settings, index, backend)
    cancel = threading.Event()
    try:
        proposal = pipeline.ask(args.task, cancel=cancel)
    except KeyboardInterrupt:
        cancel.set()
        raise
    data = proposal.to_dict()
    from gorilla_tui.core.history import History

    task_id = History().add(args.task, data)  # the TUI's history screen lists CLI asks too
    if args.json and args.run:
        pass  # one JSON document: the proposal goes into the run report below
    elif args.json:
        print(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        for w in proposal.warnings:
            print(f"gorilla-tui: warning: {w}", file=sys.stderr)
        _print_panel(data)
    if args.run:
        if not proposal.code.strip():
            print("gorilla-tui: nothing to run: the proposal has no code", file=sys.stderr)
            return 1
        from gorilla_tui.cli.run import confirm_and_run

        return confirm_and_run(
            proposal.code, proposal.verdict, args, extra={"proposal": data}, task_id=task_id
        )
    return 0 if proposal.verdict.ok else 1


_BADGE = {
    "valid": "green",
    "wrong_args": "yellow",
    "hallucination": "red",
    "unparseable": "red",
    "no_call": "red",
}


def _print_panel(d: dict[str, Any]) -> None:
    from rich.console import Console, Group
    from rich.panel import Panel
    from rich.syntax import Syntax
    from rich.table import Table
    from rich.text import Text

    v = d["verdict"]
    colour = _BADGE.get(v["verdict"], "white")
    parts: list[Any] = [Text.assemble(("call     ", "bold"), d["api_call"] or "(none)")]
    parts.append(Text.assemble(("verdict  ", "bold"), (v["verdict"], f"bold {colour}")))
    for line in v["diagnostics"]:
        parts.append(Text(f"         {line}", style="dim"))
    if v["suggestions"]:
        parts.append(Text("         did you mean: " + "; ".join(v["suggestions"][:3]), style="yellow"))
    if v["matched"]:
        m = v["matched"]
        parts.append(Text.assemble(("matched  ", "bold"), f"{m['api_name']} ({m['source']}, {m['domain']})"))
    if d["explanation"]:
        parts.append(Text.assemble(("why      ", "bold"), d["explanation"][:300]))
    if d["code"]:
        src = "from the doc's example_code" if d["code_source"] == "example_code" else "written by the model"
        parts.append(Text(f"code ({src}):", style="bold"))
        parts.append(Syntax(d["code"], "python", word_wrap=True))
    hits = Table("#", "score", "api_call", "source", box=None, pad_edge=False)
    for h in d["hits"]:
        hits.add_row(str(h["rank"]), f"{h['score']:.2f}", h["doc"]["api_call"][:90], h["doc"]["source"])
    parts += [Text("hits:", style="bold"), hits]
    t = d["timings"]
    parts.append(Text(" ".join(f"{k} {v:.3f}s" for k, v in t.items()), style="dim"))
    title = f"{d['task'][:70]}  [{d['mode']}, {d['model']}]"
    Console().print(Panel(Group(*parts), title=title, border_style=colour))
