"""The model flags shared by `ask`, `tui` and `eval run`, and the Settings they give (config.toml + flags)."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from gorilla_tui.config import MODES, SELECT_BY, Settings, load_settings

#: argparse dests of the flags add_model_options can declare; each is the name of a Settings field.
MODEL_OPTIONS = ("model", "mode", "select_by", "kernel", "endpoint", "k", "hub", "max_tokens")


def add_model_options(
    parser: argparse.ArgumentParser, *, hub: bool = True, endpoint: bool = True, max_tokens: bool = True
) -> None:
    """Declare the model flags on `parser`: --model, --mode, --select-by, --kernel, -k, and (unless switched
    off) --endpoint, --hub, --max-tokens.

    Every flag defaults to None, meaning "the value in config.toml" (settings_from_args applies only the
    flags that were given). Choices of --mode and --select-by come from config.MODES / config.SELECT_BY;
    ranges (k 1..50, max_tokens >= 1) are checked by Settings.validate, so a bad value is one line, exit 2.
    Switch a flag off where the command differs: `eval run` declares its own required --hub (the eval set's
    hub) and no --max-tokens; `tui` takes neither --endpoint nor --max-tokens (config.toml still applies).
    """
    parser.add_argument(
        "--model", default=None, metavar="M", help="a .gguf path, hf:OWNER/REPO/FILE.gguf or a registry name"
    )
    parser.add_argument(
        "--mode",
        choices=MODES,
        default=None,
        help="select (the model chooses one of the hits' api_calls) or generate (free text, validated)",
    )
    parser.add_argument(
        "--select-by",
        choices=SELECT_BY,
        default=None,
        help="how select mode chooses: likelihood (model scores each hit) or grammar (GBNF)",
    )
    parser.add_argument(
        "--kernel", default=None, metavar="NAME", help="kernel profile (cpu, metal, cuda, vulkan)"
    )
    if endpoint:
        parser.add_argument(
            "--endpoint", default=None, metavar="URL", help="OpenAI-compatible completion server"
        )
    parser.add_argument("-k", type=int, default=None, metavar="N", help="hits retrieved per task (1..50)")
    if hub:
        parser.add_argument(
            "--hub", default=None, metavar="NAME", help="search only this source (e.g. torchhub)"
        )
    if max_tokens:
        parser.add_argument(
            "--max-tokens", type=int, default=None, metavar="N", help="generation budget (tokens)"
        )


def add_model_command(
    subparsers: argparse._SubParsersAction,
    name: str,
    *,
    help: str,
    description: str,
    run: Callable[[argparse.Namespace], int],
    **flags: bool,
) -> argparse.ArgumentParser:
    """Add the subcommand `name` that takes the model flags (add_model_options with `flags`, e.g.
    endpoint=False) and runs `run(args)` (its exit status). Returns its parser, for more arguments."""
    p = subparsers.add_parser(name, help=help, description=description)
    add_model_options(p, **flags)
    p.set_defaults(func=run)
    return p


def settings_from_args(args: argparse.Namespace) -> Settings:
    """config.toml settings (load_settings) with the model flags that were given (not None) applied on top.

    Flags a command does not declare are simply absent from `args` and leave config.toml's value. Raises
    UsageError (one line, exit 2) for a broken config.toml (naming the file) or an out-of-range flag.
    """
    return load_settings().replace(**{name: getattr(args, name, None) for name in MODEL_OPTIONS})
