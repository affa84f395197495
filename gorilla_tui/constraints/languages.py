"""Translation direction, a constraint of an ask: the languages a task translates from and into ("translate
this english sentence to french" -> en > fr: translation_asked) and the pair a doc's model translates, read
from its model id or pipeline task ("Helsinki-NLP/opus-mt-en-fr", "translation_fr_to_en": translation_of).

Why: a translation model of the other direction is the typical wrong fit of the Hugging Face pool. Its
translation docs are mostly one model per direction (opus-mt-en-fr beside opus-mt-fr-en, en-de beside
de-en), the two share every word a task uses, and the choice took "translation_fr_to_en" for "translate
this english sentence to french" (lead's try, session 8) with the fit line saying it fits. As a
constraint (metric "language", constraints/parse.py), a doc of another direction is "violated" and ranks
below the docs of the asked direction; a doc with no direction in its id (t5, m2m100, nllb: many to many)
is "unknown", never violated.

Languages are the ISO 639-1 codes the Helsinki-NLP (OPUS-MT) and Facebook model ids use, and the language
groups OPUS-MT names (ROMANCE: Tiedemann and Thottingal 2020, "OPUS-MT", EAMT; "mul"/"all": any language).
"""

from __future__ import annotations

import re
from typing import Any

#: Language name (lower case) -> ISO 639-1 code (Hokkien "hk" as facebook/xm_transformer_unity_en-hk has it).
NAMES = {
    "english": "en", "french": "fr", "german": "de", "spanish": "es", "italian": "it", "portuguese": "pt",
    "russian": "ru", "chinese": "zh", "mandarin": "zh", "arabic": "ar", "dutch": "nl", "swedish": "sv",
    "finnish": "fi", "catalan": "ca", "japanese": "ja", "korean": "ko", "hindi": "hi", "turkish": "tr",
    "polish": "pl", "greek": "el", "czech": "cs", "romanian": "ro", "hungarian": "hu", "ukrainian": "uk",
    "vietnamese": "vi", "indonesian": "id", "hebrew": "he", "thai": "th", "danish": "da", "norwegian": "no",
    "bulgarian": "bg", "slovenian": "sl", "hokkien": "hk",
}  # fmt: skip
#: Group codes of model ids -> the languages they cover (OPUS-MT's ROMANCE models; "mul" and "all" any).
GROUPS = {
    "romance": frozenset({"fr", "es", "it", "pt", "ro", "ca", "gl", "oc", "wa", "la", "an", "rm", "sc"}),
    "mul": None,
    "all": None,
}
_CODES = frozenset(NAMES.values()) | {"gl"}
#: ASCII case folding only: with Unicode's, "ſpanish" and "englısh" matched but are no key of NAMES
#: ("internal error: KeyError", break-it round 19, R19-1).
_NAME_RE = re.compile(
    r"\b(" + "|".join(sorted(NAMES, key=len, reverse=True)) + r")\b", re.IGNORECASE | re.ASCII
)
_TRANSLATING = re.compile(r"\btranslat\w*", re.IGNORECASE)
_TO_BEFORE = re.compile(r"\b(?:to|into)\s+(?:the\s+)?$", re.IGNORECASE)
_IN_BEFORE = re.compile(r"\bin\s+$", re.IGNORECASE)
_FROM_BEFORE = re.compile(r"\bfrom\s+(?:the\s+)?$", re.IGNORECASE)
#: A pair in a model id or pipeline task: "translation_en_to_fr", "opus-mt-en-fr", "opus-mt-tc-big-en-pt",
#: "textless_sm_en_fr", "xm_transformer_unity_en-hk", "opus-mt-en-ROMANCE". Only whole segments; matches
#: overlap (a lookahead), so "sm_en" does not hide "en_fr".
_PAIR_RE = re.compile(r"(?=(?<![a-z0-9])([a-z]{2,7})[_-](?:to[_-])?([a-z]{2,7})(?![a-z0-9]))", re.IGNORECASE)
_TRANSLATOR = re.compile(r"translat|opus-mt|textless|xm_transformer", re.IGNORECASE)


def _language(name: str, text: str, start: int) -> str:
    """The code of a language name found at `start` of `text`; "" for "polish" in lower case, the verb
    ("polish the wording") far more often than the language."""
    if name.lower() == "polish" and not text[start].isupper():
        return ""
    return NAMES.get(name.lower(), "")


def translation_asked(task: str) -> tuple[str, str] | None:
    """The (source, target) codes of a translation the task asks for, "" for a side it does not say, or
    None when it asks for none.

    A language after "to" or "into" is the target ("... to french", "into German"), one after "from" the
    source. Without such a target, a language after "in" that comes after "translate" is ("translate the
    menu in italian"); one before it is where the text is ("a document written in French, translated
    ..."). With a target and one other language named, that one is the source ("translate this english
    sentence to french" -> ("en", "fr"); "a manual in English to be translated into Spanish" -> ("en",
    "es")). A task asks for a translation when it says "translate"/"translation" with a language, or names
    a source and a target ("English to French subtitles"); a language alone ("summarise this German
    article") is no translation.

    Args:
        task: the task as typed.

    Returns:
        ("en", "fr"), ("", "de") (only the target said), ("fr", "") (only the source), or None.
    """
    task = task or ""
    translating = _TRANSLATING.search(task)
    after = translating.start() if translating else len(task)
    marked: dict[str, list[str]] = {"to": [], "from": [], "in": [], "": []}
    for m in _NAME_RE.finditer(task):
        code = _language(m.group(1), task, m.start())
        if not code:
            continue
        before = task[max(0, m.start() - 12) : m.start()]
        kind = "to" if _TO_BEFORE.search(before) else "from" if _FROM_BEFORE.search(before) else ""
        if not kind and _IN_BEFORE.search(before):
            kind = "in" if m.start() > after else ""
        marked[kind].append(code)
    tgt = (marked["to"] or marked["in"] or [""])[0]
    others = list(dict.fromkeys(c for c in marked[""] + marked["to"] + marked["in"] if c != tgt))
    src = marked["from"][0] if marked["from"] else others[0] if len(others) == 1 else ""
    if not (src or tgt) or (not (src and tgt) and not translating):
        return None
    return (src, tgt) if src != tgt else ("", tgt)


def translation_of(doc: Any) -> tuple[str, str] | None:
    """The (source, target) a translation doc's model translates, as lower-case codes or group names
    ("romance", "mul", "all"), from its call or api_name ('translation_en_to_fr', 'opus-mt-fr-en'); None
    when the doc is no translator (its name, call, domain and functionality never say translat/opus-mt)
    or its id names no pair of known codes (t5-base, m2m100, nllb-200: many to many)."""
    call = f"{getattr(doc, 'api_call', '')} {getattr(doc, 'api_name', '')}"
    about = f"{call} {getattr(doc, 'domain', '')} {getattr(doc, 'functionality', '')}"
    if not _TRANSLATOR.search(about):
        return None
    pairs = [(a.lower(), b.lower()) for a, b in _PAIR_RE.findall(call)]
    known = [(a, b) for a, b in pairs if _known(a) and _known(b) and a != b]
    return known[0] if known else None


def _known(code: str) -> bool:
    return code in _CODES or code in GROUPS


def _covers(side: str, wanted: str) -> bool:
    """Whether a model's side (a code or group) covers the wanted code ("" wanted: anything)."""
    if not wanted or side == wanted:
        return True
    if side in GROUPS:
        group = GROUPS[side]
        return group is None or wanted in group
    return False


def translation_holds(wanted: str, actual: str) -> bool:
    """Whether a doc translating `actual` ("en>fr") does what the task asks (`wanted`, "en>fr", ">fr" or
    "fr>"): each side the task names is covered (a group such as "romance" covers its languages)."""
    want_src, _, want_tgt = wanted.partition(">")
    src, _, tgt = actual.partition(">")
    return _covers(src, want_src) and _covers(tgt, want_tgt)
