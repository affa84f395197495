"""Which arguments identify an API (per call family), how to bind call arguments, and pool-entry keys."""

from __future__ import annotations

import re
from dataclasses import dataclass

from gorilla_tui.check.callsite import CallSite, Value

#: Marker for "this identifying argument is absent" (pipeline('ner') has no model=).
ABSENT = "\x00absent"
#: Value that a signature-style pool argument (``id: str``, ``{ticker}``) is rewritten to: any value fits.
SLOT = "__slot__"

#: Module prefixes that name the same callee (``tensorflow_hub.load`` is ``hub.load``).
_ALIASES = (
    ("tensorflow_hub.", "hub."),
    ("transformers.", ""),
    ("sentence_transformers.", ""),
    ("diffusers.", ""),
)

#: Call families with a fixed signature: callee -> positional parameter names (all identifying).
#: Sources: torch.hub.load(repo_or_dir, model, ...) (pytorch.org/docs/stable/hub.html); transformers
#: pipeline(task, model, ...) and PreTrainedModel.from_pretrained(pretrained_model_name_or_path, ...)
#: (huggingface.co/docs/transformers); hub.KerasLayer(handle, ...) and hub.load(handle, ...)
#: (tensorflow.org/hub/api_docs/python/hub).
_FAMILIES = {
    "torch.hub.load": ("repo_or_dir", "model"),
    "pipeline": ("task", "model"),
    "hub.KerasLayer": ("handle",),
    "hub.load": ("handle",),
}
_FROM_PRETRAINED = ("pretrained_model_name_or_path",)
#: Families whose extra positional string arguments identify too: torch.hub.load passes them to the
#: entrypoint (``torch.hub.load('szq0214/MEAL-V2', 'meal_v2', 'mealv2_resnest50')`` picks a variant).
_ENTRYPOINT_ARGS = frozenset({"torch.hub.load"})
#: An unquoted repo id in a pool api_call (``source=speechbrain/sepformer-wham16k-enhancement``): Python
#: reads it as a division, so it identifies by its text, like the quoted id a call gives.
UNQUOTED_ID = re.compile(r"[A-Za-z][\w.-]*/[\w.-]*[A-Za-z0-9]")
_PLACEHOLDER = re.compile(r"\{[^{}]*\}|<[^<>]*>|\.\.\.|(?:YOUR|your)_\w*|")


def canonical(callee: str) -> str:
    """Callee with module aliases folded (see _ALIASES), so the pool and the code spell it the same way."""
    for prefix, repl in _ALIASES:
        if callee.startswith(prefix):
            return repl + callee[len(prefix) :]
    return callee


def family(callee: str) -> tuple[str, ...] | None:
    """Positional parameter names of a fixed-signature family (all of them identifying), else None."""
    if callee in _FAMILIES:
        return _FAMILIES[callee]
    if callee.endswith(".from_pretrained"):
        return _FROM_PRETRAINED
    return None


def norm(text: str) -> str:
    """Comparison form of an argument value: surrounding whitespace and trailing slashes removed."""
    return text.strip().rstrip("/") or text.strip()


#: Prefix of the comparison form of an unquoted repo id (UNQUOTED_ID): it matches only the same unquoted
#: text, never the quoted id (Python reads ``runwayml/stable-diffusion-v1-5`` as arithmetic on names).
UNQUOTED = "\x01unquoted:"


def key(value: Value) -> str:
    """Comparison form of an argument value: norm(text), with UNQUOTED before an unquoted repo id."""
    if not value.literal and UNQUOTED_ID.fullmatch(value.text):
        return UNQUOTED + norm(value.text)
    return norm(value.text)


def bind(call: CallSite, params: tuple[str, ...]) -> dict[str, str]:
    """Slot -> normalised value text. Keywords bind by name; positional i binds to params[i] unless that
    name was given as a keyword, else to slot "#i" (so f('a') and f(x='a') agree when params name x).
    Outside the fixed families (params == ()), slot "." holds the attribute read from the result."""
    bound = {name: key(v) for name, v in call.keywords.items()}
    if call.tail and params is not None and not params:
        bound["."] = call.tail
    for i, value in enumerate(call.positional):
        name = params[i] if i < len(params) else f"#{i}"
        bound.setdefault(name if name not in call.keywords else f"#{i}", key(value))
    return bound


def _placeholder(value: Value, slot: str) -> bool:
    text = value.text.strip()
    if value.text == SLOT or _PLACEHOLDER.fullmatch(text):
        return True
    squash = text.lower().replace("_", "").replace("-", "")
    return bool(squash) and squash == slot.lower().replace("_", "")


@dataclass(frozen=True)
class Requirement:
    """What a pool entry demands of a call: its canonical callee and, per identifying slot, the value
    (ABSENT: must not be given; None: must be given, any value)."""

    callee: str
    slots: tuple[tuple[str, str | None], ...]

    @property
    def exact(self) -> bool:
        """True when every slot has a fixed value (the entry can be found by a dict lookup)."""
        return all(v is not None for _, v in self.slots)

    def accepts(self, bound: dict[str, str]) -> bool:
        """True when the bound arguments of a call satisfy every slot."""
        for slot, want in self.slots:
            got = bound.get(slot)
            if want is None:
                if got is None:
                    return False
            elif (got if got is not None else ABSENT) != want:
                return False
        return True


def requirement(call: CallSite) -> Requirement:
    """The Requirement a pool entry's primary call sets (families: every family slot, plus torch.hub.load's
    extra positional strings; other APIs: every
    string-valued argument, placeholders as any-value slots; plain variables and flags do not identify)."""
    callee = canonical(call.callee)
    params = family(callee)
    if params is not None:
        bound = bind(call, params)
        slots = [(p, bound.get(p, ABSENT)) for p in params]
        if callee in _ENTRYPOINT_ARGS:  # MEAL V2: torch.hub.load(repo, 'meal_v2', 'mealv2_resnest50')
            extra = list(enumerate(call.positional))[len(params) :]
            slots += [(f"#{i}", norm(v.text)) for i, v in extra if v.literal]
        return Requirement(callee, tuple(slots))
    slots: list[tuple[str, str | None]] = []
    named = list(call.keywords.items())
    indexed = [(f"#{i}", v) for i, v in enumerate(call.positional)]
    for slot, value in indexed + named:
        if _placeholder(value, slot.lstrip("#")):
            slots.append((slot, None))
        elif value.has_literal or UNQUOTED_ID.fullmatch(value.text):
            slots.append((slot, key(value)))
    if call.tail:
        slots.append((".", call.tail))
    return Requirement(callee, tuple(slots))


def primary_call(calls: list[CallSite]) -> CallSite | None:
    """The call that is the API in a pool api_call (calls in pre-order): the first of a known family, else
    the outermost call with arguments, else the call with the most arguments, else the first."""
    if not calls:
        return None
    for call in calls:
        if family(canonical(call.callee)) is not None:
            return call
    if calls[0].positional or calls[0].keywords:
        return calls[0]
    best = max(calls, key=lambda c: len(c.positional) + len(c.keywords))
    return best if best.positional or best.keywords else calls[0]
