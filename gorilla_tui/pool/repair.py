"""Repair of pool api_calls that Python refuses, from the entry itself or from its example_code.

APIBench has entries whose api_call is not valid Python although the API is clear (issue 15): a trailing
``.`` (``CLIPModel.from_pretrained('openai/clip-vit-large-patch14').``), a positional argument after a
keyword one (all of MEAL V2: ``torch.hub.load(repo_or_dir='szq0214/MEAL-V2', 'meal_v2', model=...)``),
an unquoted model id (``pipeline('text-to-image', model=SG161222/Realistic_Vision_V1.4)``). Their
example_code often holds a call of the same API that parses. Python's own parser (``ast``) is the judge of
"parses"; nothing is executed.
"""

from __future__ import annotations

import ast
import re

from gorilla_tui.parsing import QUOTED, close_bracket, python_parses

__all__ = ["placeholder_names", "python_parses", "quote_ids", "repair_call", "unquoted_ids"]

_HEAD = re.compile(r"^\s*(?:[A-Za-z_]\w*\s*=\s*)?([A-Za-z_][\w.]*)\s*\(")
_KEYWORD = re.compile(r"^\s*[A-Za-z_]\w*\s*=(?!=)")
#: Longest example_code scanned for a template call (characters); longer text is cut.
MAX_EXAMPLE = 20_000


def _squeeze(text: str) -> str:
    return "".join(text.split()).replace('"', "'")


def _broken_call(api_call: str) -> tuple[str, list[str]] | None:
    """(callee, argument value texts) of the call an api_call starts with (``x = `` allowed before it),
    read without a parser (Python refuses it): the argument list up to its closing ")" split at top-level
    commas, ``name=`` dropped; string literals by content, anything else whitespace-free
    (``SG161222/Realistic_Vision_V1.4``)."""
    m = _HEAD.match(api_call)
    if m is None:
        return None
    end = close_bracket(api_call, m.end() - 1)
    inner = api_call[m.end() : end - 1 if end else len(api_call)]
    values, depth, start, i = [], 0, 0, 0
    while i <= len(inner):
        c = inner[i] if i < len(inner) else ","
        if c in "'\"":
            q = QUOTED.match(inner, i)
            i = q.end() if q else len(inner)
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            part = _KEYWORD.sub("", inner[start:i], count=1).strip()
            if part and not part.startswith("*"):
                values.append(_value_text(part))
            start = i + 1
        i += 1
    return _squeeze(m.group(1)), values


def _value_text(source: str) -> str:
    text = source.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return _squeeze(text)


def _arg_nodes(call: ast.Call) -> list[ast.expr]:
    return [*call.args, *(k.value for k in call.keywords)]


def _node_value(node: ast.expr) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return _squeeze(ast.unparse(node))


def _from_template(template: ast.Call, broken: list[str]) -> str | None:
    """The template call with its string arguments that the broken call does not have replaced, in order,
    by the broken call's values that the template does not have (one for one); None when they differ in
    number or a non-string argument of the broken call is missing from the template."""
    nodes = _arg_nodes(template)
    have = [_node_value(n) for n in nodes]
    extra = [v for v in broken if v not in have]
    unmatched = [
        n for n in nodes if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value not in broken
    ]
    if len(extra) != len(unmatched):
        return None
    for node, value in zip(unmatched, extra, strict=True):
        node.value = value
    return ast.unparse(template)


#: An unquoted repo id (``runwayml/stable-diffusion-v1-5``): Python reads it as division and subtraction.
UNQUOTED_ID = re.compile(r"[A-Za-z][\w.-]*/[\w.-]*[A-Za-z0-9]")


def unquoted_ids(api_call: str) -> list[tuple[int, int, str]]:
    """(start, end, text) of the call arguments of `api_call` that are repo ids written without quotes
    (an expression of names, numbers, "/" and "-" whose source reads ``owner/name``), in source order; []
    when Python does not parse it or there is none. Offsets are character offsets in api_call."""
    try:
        tree = ast.parse(api_call)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    starts = [0]
    for line in api_call.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        for arg in [*node.args, *(k.value for k in node.keywords)]:
            if not isinstance(arg, ast.BinOp) or not isinstance(arg.op, (ast.Div, ast.Sub)):
                continue
            if arg.end_lineno is None or arg.end_col_offset is None:
                continue
            text = ast.get_source_segment(api_call, arg) or ""
            if UNQUOTED_ID.fullmatch(text):
                start = starts[arg.lineno - 1] + arg.col_offset
                out.append((start, starts[arg.end_lineno - 1] + arg.end_col_offset, text))
    return sorted(out)


def quote_ids(api_call: str) -> str | None:
    """api_call with its unquoted repo ids (unquoted_ids) quoted, or None when it has none."""
    found = unquoted_ids(api_call)
    if not found:
        return None
    for start, end, text in reversed(found):
        api_call = api_call[:start] + repr(text) + api_call[end:]
    return api_call


#: One parameter of a call written as a typed signature: "part: str", "maxResults: int = 5" (APIZoo's
#: Google client entries: ``youtube.search().list(part: str).execute()``).
_TYPED_PARAM = re.compile(
    r"(?P<lead>[(,]\s*)(?P<name>[A-Za-z_]\w*)\s*:\s*(?P<type>[A-Za-z_][\w.]*(?:\[[^()]*?\])?)"
    r"(?:\s*=\s*(?P<default>[^,()]+?))?(?=\s*[,)])"
)


def keyword_call(api_call: str) -> str | None:
    """A call written as a typed signature made a call: each ``name: type`` parameter becomes
    ``name=name`` (``name: type = default`` becomes ``name=default``), so
    ``service.events().insert(calendarId: str).execute()`` -> ``service.events().insert(calendarId=calendarId)
    .execute()``: the keyword names the API's parameter, the value is a placeholder the person fills in.
    None when there is no typed parameter or the result does not parse."""
    if not _TYPED_PARAM.search(api_call):
        return None

    def one(m: re.Match[str]) -> str:
        return f"{m.group('lead')}{m.group('name')}={(m.group('default') or m.group('name')).strip()}"

    fixed = _TYPED_PARAM.sub(one, api_call)
    return fixed if python_parses(fixed) else None


#: A placeholder written as words in braces, ``{API key}`` (APIZoo's OpenWeatherMap entries:
#: ``openweathermap.one_call(lat={lat}, appid={API key})``); ``{lat}`` alone is already Python (a set).
_WORDS_PLACEHOLDER = re.compile(r"\{\s*([A-Za-z_]\w*(?:[ \t]+\w+)+)\s*\}")


def placeholder_names(api_call: str) -> str | None:
    """``api_call`` with each placeholder written as words in braces made one name (``{API key}`` ->
    ``{API_key}``, the style of the entry's other placeholders), or None when there is none or the result
    does not parse."""
    if not _WORDS_PLACEHOLDER.search(api_call):
        return None
    fixed = _WORDS_PLACEHOLDER.sub(lambda m: "{" + "_".join(m.group(1).split()) + "}", api_call)
    return fixed if python_parses(fixed) else None


def repair_call(api_call: str, example_code: str = "") -> tuple[str, str] | None:
    """A Python-valid call for an api_call that Python refuses, or None.

    An api_call that parses is repaired only when a repo id in it is not quoted (quote_ids). Else, tried
    in order: the api_call without a trailing ``.``/``;``; a typed signature made a call with keyword
    placeholders (keyword_call); else the first call of the same callee in example_code that Python parses
    on its own, with string arguments the entry does not have replaced by the entry's own values, one for
    one (MEAL V2's examples all load ``mealv2_resnest50_cutmix``; each entry keeps its own variant).
    Returns (repaired call, how: "model id quoted", "trailing '.' removed", "typed signature as keywords",
    "placeholder named" or "from example_code"); None when the api_call needs none or no repair is found
    (shell lines, unclosed strings, an example without the call)."""
    if python_parses(api_call):
        quoted = quote_ids(api_call)
        return (quoted, "model id quoted") if quoted else None
    light = api_call.strip().rstrip(".;").strip()
    if light != api_call.strip() and python_parses(light):
        return light, "trailing '.' removed"
    keywords = keyword_call(api_call)
    if keywords is not None:
        return keywords, "typed signature as keywords"
    named = placeholder_names(api_call)
    if named is not None:
        return named, "placeholder named"
    found = _broken_call(api_call)
    if found is None or not example_code:
        return None
    callee, broken = found
    if not callee or not re.fullmatch(r"[A-Za-z_][\w.]*", callee):
        return None
    example = example_code[:MAX_EXAMPLE]
    pattern = re.compile(r"(?<![\w.])" + re.escape(callee).replace(r"\.", r"\s*\.\s*") + r"\s*\(")
    for m in pattern.finditer(example):
        end = close_bracket(example, m.end() - 1)
        if end is None:
            continue
        try:
            node = ast.parse(example[m.start() : end], mode="eval").body
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        if isinstance(node, ast.Call):
            repaired = _from_template(node, broken)
            if repaired is not None and python_parses(repaired):
                return repaired, "from example_code"
    return None
