"""The model flags shared by `ask`, `tui` and `eval run`, and the Settings they give (config.toml + flags)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from gorilla_tui.cli.source_text import code_text
from gorilla_tui.config import MODES, SELECT_BY, Settings, load_settings
from gorilla_tui.errors import UsageError
from gorilla_tui.textsafe import MAX_TASK_INPUT_CHARS, check_task_length

#: The help of the TASK argument of `ask` and `search`.
TASK_HELP = f"'-' reads it from standard input; at most {MAX_TASK_INPUT_CHARS:,} characters"


def task_text(value: str) -> str:
    """The TASK of `ask` and `search`: `value` itself, or standard input when it is "-" (as `check -` and
    `run -` read theirs), read as UTF-8 text (a BOM dropped, the line end it finishes with too) up to what
    MAX_TASK_INPUT_CHARS characters can take (4 bytes each, a BOM and a line end), so a huge input is
    never read whole.

    Raises UsageError (one line, exit 2): a task of more than MAX_TASK_INPUT_CHARS characters (10,000, the
    MCP server's bound too: a 120,000-character task took `ask` 15 s and 1.5 GB), standard input that is
    not UTF-8 text or holds a NUL byte. An empty task is left to clean_task to refuse."""
    if value != "-":
        return check_task_length(value)
    limit = MAX_TASK_INPUT_CHARS * 4 + 8  # 4 bytes a character at most, a BOM and a CRLF: more is too long
    buf = getattr(sys.stdin, "buffer", None)
    try:
        data = (
            buf.read(limit) if buf is not None else sys.stdin.read(limit).encode("utf-8", "surrogateescape")
        )
    except UnicodeEncodeError as e:
        raise UsageError(f"cannot read stdin: not UTF-8 text (bad byte at offset {e.start})") from None
    if len(data) >= limit:
        raise UsageError(f"the task on stdin is over {MAX_TASK_INPUT_CHARS} characters; at most "
                         f"{MAX_TASK_INPUT_CHARS} are accepted")  # fmt: skip
    # the newline that ends what `echo` or a file gives is no part of the task
    return check_task_length(code_text(data, "stdin").rstrip("\r\n"), "the task on stdin")


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
