"""GBNF grammars for select mode: the model may emit exactly one of the hits' api_calls, nothing else."""

from __future__ import annotations

from collections.abc import Sequence

# GBNF string literals (llama.cpp grammars/README.md): "..." with escapes \\ \" \n \r \t, \xXX, \uXXXX.
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def gbnf_literal(text: str) -> str:
    """`text` as a GBNF string literal, quotes included. Control characters become \\xXX escapes.

    Rules from llama.cpp grammars/README.md (terminal strings support C-like escapes).
    """
    out = []
    for ch in text:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\x{ord(ch):02X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def unique_options(options: Sequence[str]) -> list[str]:
    """Non-empty options, stripped, first occurrence kept, order kept."""
    seen: dict[str, None] = {}
    for o in options:
        o = o.strip()
        if o and o not in seen:
            seen[o] = None
    return list(seen)


def choice_grammar(options: Sequence[str], lead: str = "") -> str:
    """GBNF whose language is exactly {lead + o for o in options} (after unique_options).

    lead: fixed text before the choice (e.g. a space after "API call:"). Raises ValueError for no options.
    """
    opts = unique_options(options)
    if not opts:
        raise ValueError("choice_grammar needs at least one non-empty option")
    # newlines inside parentheses continue a rule (llama.cpp grammars/README.md); one option per line
    alts = "\n  | ".join(gbnf_literal(o) for o in opts)
    head = f"{gbnf_literal(lead)} " if lead else ""
    return f"root ::= {head}call\ncall ::= (\n    {alts}\n)\n"
