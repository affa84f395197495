"""The wrong_args verdict of a pool call that matches no entry of its callee (rule 2 of check/validator.py's
verdict rule): its reason code, cheap (unmatched_reason, for every such call), and the full verdict with
did-you-mean suggestions and notes (did_you_mean, built only for the call that decides the verdict)."""

from __future__ import annotations

from collections.abc import Callable

from gorilla_tui.check.callsite import CallSite
from gorilla_tui.check.pool_index import PoolEntry, PoolIndex, helper_loaded
from gorilla_tui.check.signature import ABSENT, UNQUOTED, UNQUOTED_ID, bind, canonical, family
from gorilla_tui.check.suggest import dice, similarity
from gorilla_tui.types import Verdict

#: Reason code of a wrong_args verdict by the identifying slot that differs (signature.py families).
WRONG_SLOT = {
    "repo_or_dir": "wrong_args:unknown_repo",
    "model": "wrong_args:unknown_model",
    "pretrained_model_name_or_path": "wrong_args:unknown_model",
    "handle": "wrong_args:unknown_model",
}
WRONG_DEFAULT = "wrong_args:unknown_value"


def unmatched_reason(index: PoolIndex, call: CallSite) -> str:
    """The reason code (types.REASONS) of `call`, whose callee is a pool callee of `index` but which
    matches none of its entries: unquoted_id (an argument Python reads as arithmetic), unknown_repo
    (torch.hub.load with a repo the pool does not have), unknown_model (other fixed families, or a known
    repo) or unknown_value."""
    callee = canonical(call.callee)
    bound = bind(call, family(callee) or ())
    if any(v.startswith(UNQUOTED) for v in bound.values()):
        return "wrong_args:unquoted_id"
    if callee == "torch.hub.load":
        repo = bound.get("repo_or_dir", "")
        known = repo in index.repos or repo.split(":", 1)[0] in index.repos
        return "wrong_args:unknown_model" if known else "wrong_args:unknown_repo"
    if family(callee) is not None:
        return "wrong_args:unknown_model"
    return WRONG_DEFAULT


def did_you_mean(index: PoolIndex, call: CallSite) -> Verdict:
    """The full wrong_args verdict of `call` (a pool callee of `index`, no entry matched): the entries of
    its callee ranked by how many identifying slots agree (bigram dice on the first pass, then difflib
    similarity on the best 12), up to 3 suggested calls, and up to 3 notes naming the first slot that
    differs, a required argument left out, an unquoted model id, or a pre-processing helper loaded
    instead of the model (Gorilla's error, arXiv 2305.15334); matched is the best entry's doc."""
    callee = canonical(call.callee)
    bound = bind(call, family(callee) or ())

    def score(entry: PoolEntry, sim: Callable[[str, str], float]) -> float:
        parts = []
        for slot, want in entry.req.slots:
            got = bound.get(slot)
            if want is None:
                parts.append(1.0 if got is not None else 0.0)
            elif want == ABSENT or got is None:
                parts.append(1.0 if (got is None) == (want == ABSENT) else 0.3)
            else:
                parts.append(sim(got, want))
        return sum(parts) / len(parts) if parts else 0.0

    entries = index.tables[callee].entries
    rough = sorted(range(len(entries)), key=lambda i: (-score(entries[i], dice), i))[:12]
    scored = sorted(
        ((score(entries[i], similarity), i, entries[i]) for i in rough), key=lambda s: (-s[0], s[1])
    )
    ranked = [e for _, _, e in scored]
    notes = []
    helper = helper_loaded(callee, bound, entries)
    if helper is not None:  # Gorilla's "helper returned instead of the model" error
        value, users = helper
        notes.append(f"{value!r} is a pre-processing helper used with {users[0].doc.api_call}, not a model")
        ranked = users + ranked
    suggestions = list(dict.fromkeys(e.doc.call for e in ranked))[:3]
    best = ranked[0]
    reason = "wrong_args:helper_as_model" if helper is not None else ""
    for value in (*call.positional, *call.keywords.values()):
        if not value.literal and UNQUOTED_ID.fullmatch(value.text):  # runwayml/stable-diffusion-v1-5
            notes.insert(0, f"{value.text} is not quoted: Python reads it as arithmetic, not a model id")
            reason = reason or "wrong_args:unquoted_id"
            break
    for slot, want in best.req.slots:
        got = bound.get(slot)
        if want is None and got is None:
            notes.append(f"argument {slot.lstrip('#')!r} is required by {callee}")
            reason = reason or "wrong_args:missing_argument"
        elif want is not None and (got if got is not None else ABSENT) != want:
            shown = "missing" if got is None else repr(got)
            notes.append(f"{slot.lstrip('#')}={shown} is not in the API pool for {callee}")
            reason = reason or WRONG_SLOT.get(slot, "wrong_args:unknown_value")
            break
    return Verdict("wrong_args", call.text, best.doc, suggestions, notes[:3], reason or WRONG_DEFAULT)
