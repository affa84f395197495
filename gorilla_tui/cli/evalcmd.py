"""`gorilla-tui eval score`: score model responses on APIBench (strict or the paper's gorilla metric)."""

from __future__ import annotations

import argparse
import importlib
import json
import sys


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `eval` subcommand and its `score` action (`eval run` registers itself beside it)."""
    p = sub.add_parser("eval", help="APIBench evaluation", description="Evaluate on APIBench.")
    actions = p.add_subparsers(dest="eval_command", metavar="ACTION", parser_class=type(p))
    p.set_defaults(func=lambda args: _usage(p))
    register_score(actions)
    try:  # `eval run` (generation) lives in its own module gorilla_tui/cli/evalrun.py when present
        evalrun = importlib.import_module("gorilla_tui.cli.evalrun")
    except ModuleNotFoundError as e:
        if e.name != "gorilla_tui.cli.evalrun":
            raise
    else:
        evalrun.register(actions)


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def add_data_options(p: argparse.ArgumentParser) -> None:
    """--hub, --eval, --pool, --from: where the eval set and the API pool come from (shared with eval run)."""
    p.add_argument("--hub", required=True, metavar="NAME", help="torchhub, tensorflowhub or huggingface")
    p.add_argument("--eval", dest="eval_file", metavar="FILE", help="the eval set file (default: the hub's)")
    p.add_argument("--pool", dest="pool_file", metavar="FILE", help="the API pool file (default: the hub's)")
    p.add_argument(
        "--from",
        dest="from_dir",
        metavar="DIR",
        help="local APIBench mirror holding *_api.jsonl and *_eval.json (also in api/ and eval/ subfolders); "
        "default: download from the Hugging Face dataset gorilla-llm/APIBench",
    )


def register_score(actions: argparse._SubParsersAction) -> None:
    """Add `eval score`."""
    p = actions.add_parser(
        "score",
        help="score a response file",
        description="Score Gorilla-format responses (JSON Lines of {question_id, text}) against a hub's "
        "eval set: accuracy, hallucination and error (they sum to 1), overall and per domain.",
    )
    add_data_options(p)
    p.add_argument("--responses", required=True, metavar="FILE", help="JSON Lines of {question_id, text}")
    p.add_argument(
        "--metric",
        choices=("strict", "gorilla"),
        default="strict",
        help="strict: the exact ground-truth API (default); gorilla: the paper's AST metric",
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of tables")
    p.set_defaults(func=run_score)


def run_score(args: argparse.Namespace) -> int:
    """Score args.responses and print the result (warnings also go to stderr, one line each)."""
    from gorilla_tui.evaluate.score import score_file

    score = score_file(
        args.hub,
        args.responses,
        metric=args.metric,
        eval_path=args.eval_file,
        pool_path=args.pool_file,
        from_dir=args.from_dir,
    )
    for warning in score.warnings:  # stderr in both modes, so --json keeps stdout pure JSON
        print(f"gorilla-tui: warning: {warning}", file=sys.stderr)
    if args.json:
        print(json.dumps(score.to_dict(), ensure_ascii=False))
        return 0
    from rich.console import Console
    from rich.table import Table

    console = Console()
    head = Table(title=f"{score.hub} · metric {score.metric} · n={score.n}")
    for col in ("accuracy", "hallucination", "error"):
        head.add_column(col, justify="right")
    head.add_row(*(f"{100 * v:.2f} %" for v in (score.accuracy, score.hallucination, score.error)))
    console.print(head)
    table = Table(title="per domain")
    table.add_column("domain")
    for col in ("n", "accuracy", "hallucination", "error"):
        table.add_column(col, justify="right")
    for domain, row in score.per_domain.items():
        table.add_row(
            domain,
            str(int(row["n"])),
            *(f"{100 * row[k]:.1f} %" for k in ("accuracy", "hallucination", "error")),
        )
    console.print(table)
    if score.verdicts:
        console.print("verdicts: " + ", ".join(f"{k} {v}" for k, v in sorted(score.verdicts.items())))
    if score.reasons:
        reasons = Table(title="per reason (non-valid verdicts)")
        for col, just in (("reason", "left"), ("n", "right"), ("share", "right")):
            reasons.add_column(col, justify=just)
        for reason, count in score.reasons.items():
            reasons.add_row(reason, str(count), f"{100 * count / max(score.n, 1):.1f} %")
        console.print(reasons)
    for note in score.notes:
        console.print(f"[dim]{note}[/]")
    return 0
