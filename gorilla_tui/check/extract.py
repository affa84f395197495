"""Model text -> api_call, code, explanation (Gorilla fields, dict strings, fences, JSON tool calls)."""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, field
from typing import Any

from gorilla_tui.check.callsite import MAX_CALLS
from gorilla_tui.jsontext import TOO_DEEP
from gorilla_tui.jsontext import loads as json_value
from gorilla_tui.parsing import close_bracket, parse, python_parses

#: Field markers of Gorilla's output format: ``<<<api_call>>>: ...`` (arXiv 2305.15334, appendix).
_GORILLA_FIELD = re.compile(r"<<<\s*(\w+)\s*>>>\s*:?")
#: Keys of the Python-dict responses of the Torch Hub model (``{'domain': ..., 'api_call': ...}``).
_DICT_KEYS = (
    r"api_\w+|domain|explanation|code|framework|functionality|python_environment_requirements|"
    "example_code|performance|description|Instruction|Output"
)
_DICT_FIELD = re.compile(r"(?:^|[{,])\s*\\*['\"](" + _DICT_KEYS + r")\\*['\"]\s*:\s*")
_HAS_DICT_API_CALL = re.compile(r"\\*['\"](?:api_call|code)\\*['\"]\s*:")
_FENCE = re.compile(r"```[ \t]*([\w+.-]*)[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)
_ESCAPE = re.compile(r"\\(.)", re.DOTALL)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\n", "'": "'", '"': '"', "\\": "\\"}
_LEAD_QUOTE = re.compile(r"^\s*\\*['\"]")
_TAIL_JUNK = re.compile(r"(?:\s|\\[nrt]|\\|[\"'}])+$")
_FIRST_QUOTE = re.compile(r"['\"]")
_FIELD_TAIL = re.compile(r"(?:\s|\\[nrt]|,)+$")
_CODE_LINE = re.compile(
    r"^\s*(?:import\s+\w|from\s+[\w.]+\s+import\s|[\w.\[\]'\", ]+\s*=\s*\S|[\w.]+\s*\(|@\w|def\s|class\s|"
    r"return\b|with\s|for\s|if\s|print\s*\()"
)
#: Lines no person writes as prose: a control character (ESC, BEL, NUL...; tab aside) or only brackets and
#: separators (``}}}``, ``)``). They count as code, so a text holding one is checked (and refused) whole
#: instead of having that line dropped as prose.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_NOT_PROSE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]|^\s*[()\[\]{},;:]+\s*$")
_REQUEST = re.compile(r"^\s*(?:curl\s.*)?\b(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\s+\S*/", re.IGNORECASE)
#: Texts longer than this (characters) skip the line-by-line prose scan, which parses every line.
_MAX_LINE_SCAN = 200_000
#: A call embedded in a sentence: an optional ``x = `` and a dotted name, then "(" (the balanced argument
#: list is found by parsing.close_bracket). A bare name needs the ``x = `` before it.
_EMBEDDED = re.compile(
    r"(?<![\w.])(?:([A-Za-z_]\w*)\s*=\s*)?([A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)*)\s*\(", re.ASCII
)


@dataclass
class Extraction:
    """What extract() found. api_call: the api_call field (or the JSON tool call rendered as Python), None
    when the text has none; code: the code to validate and show ("" when there is none); explanation: prose;
    calls: the api_call plus other candidate call snippets, in order; domain / provider: the Gorilla fields
    when present; format: "json", "gorilla", "dict", "fence", "code", "prose" or "empty"; left_out: JSON
    tool calls past callsite.MAX_CALLS, not rendered (tool_calls_counted)."""

    api_call: str | None = None
    code: str = ""
    explanation: str = ""
    calls: list[str] = field(default_factory=list)
    domain: str | None = None
    provider: str | None = None
    format: str = "empty"
    left_out: int = 0

    def candidates(self) -> list[str]:
        """Snippets to validate, best first: the api_call, the code, then the other call snippets
        (duplicates removed). JSON tool calls: the code alone, every call in it (a valid first call must not
        hide a hallucinated second one; the verdicts of several calls are made one)."""
        if self.format == "json" and self.code.strip():
            return [self.code]
        out: list[str] = []
        for s in (self.api_call, self.code, *self.calls):
            if s and s.strip() and s not in out:
                out.append(s)
        return out


def _parses(code: str) -> bool:
    return bool(code.strip()) and not parse(code).root_node.has_error


def unescape(text: str) -> str:
    """One level of backslash unescaping (``\\n`` -> newline, ``\\'`` -> ', ``\\\\`` -> \\); other escapes
    are kept as they are. Used on responses whose code was escaped once or twice when they were written."""
    return _ESCAPE.sub(lambda m: _ESCAPES.get(m.group(1), m.group(0)), text)


def _looks_escaped(text: str) -> bool:
    """True when text reads as escaped code: escaped newlines and no real ones, or its first quote
    character is preceded by a backslash (real code never starts a string with an escaped quote)."""
    if "\\" not in text:
        return False
    if "\n" not in text and "\\n" in text:
        return True
    m = _FIRST_QUOTE.search(text)
    return bool(m and m.start() > 0 and text[m.start() - 1] == "\\")


def clean_code(raw: str) -> str:
    """Code text with the escaping of the response format undone: unescaped (at most twice) while it
    reads as escaped (see _looks_escaped), unless it parses as it is and would not once unescaped: the
    ``\\n`` of ``sys.stdout.write('hello\\n')`` is the string literal's own escape (it was made a real
    newline, and a valid call "unparseable": break-it round 8). Text holding a backslash that Python parses as
    it is stays as it is (a Windows path, ``print('a\\nb')``: break-it round 25)."""
    text = raw.strip()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "invalid escape sequence" ('C:\\data'): still valid Python
        if "\\" in text and python_parses(text):
            return text  # R25-2: code Python reads as given is judged as given ('C:\\x\\notes.txt')
    for _ in range(2):
        if not _looks_escaped(text):
            break
        unescaped = unescape(text).strip()
        if _parses(text) and not _parses(unescaped):
            break
        text = unescaped
    return text


def _field_value(raw: str, last: bool) -> str:
    """A dict-string field value without its quotes (and without the closing brace of the last field)."""
    value = _FIELD_TAIL.sub("", raw)
    if _LEAD_QUOTE.match(value):
        value = _LEAD_QUOTE.sub("", value, count=1)
        value = _TAIL_JUNK.sub("", value) if last else re.sub(r"\\*['\"]\s*$", "", value)
        if last and value.count("(") > value.count(")"):
            value += ")"  # _TAIL_JUNK never removes ")", so this only restores balance lost to quotes
    return value.strip()


def _code_field(raw: str | None, last: bool = False, repair: bool = False) -> str:
    """A field's code. With repair (the api_call field, short), a value that does not parse is retried with
    a closing quote restored or cut after its last ")" (the rule of Gorilla's scripts)."""
    if raw is None:
        return ""
    value = clean_code(_field_value(raw, last))
    if value.endswith('"') and value.count('"') % 2:  # the closing quote of the JSON string around it
        value = value[:-1].rstrip()
    if not repair or not value or _parses(value):
        return value
    trials = [value + q for q in ("'", '"', "')", '")')]
    if ")" in value:
        trials.append(value[: value.rindex(")") + 1])
    for trial in trials:
        if _parses(trial):
            return trial
    return value


def _split(text: str, pattern: re.Pattern[str]) -> list[tuple[str, str]]:
    """(key, raw value) pairs in text order; the first occurrence of a key wins."""
    marks = list(pattern.finditer(text))
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        key = m.group(1)
        if key not in seen:
            seen.add(key)
            out.append((key, text[m.end() : end]))
    return out


def _from_fields(pairs: list[tuple[str, str]], fmt: str, last_key: str | None) -> Extraction:
    fields = dict(pairs)
    api_raw = fields.get("api_call")
    code_raw = fields.get("code") or fields.get("api_provider_code") or fields.get("api_provider_call")
    code_key = next((k for k in ("code", "api_provider_code", "api_provider_call") if fields.get(k)), None)
    api_call = _code_field(api_raw, last=last_key == "api_call", repair=True) if api_raw is not None else None
    code = _code_field(code_raw, last=last_key == code_key) if code_raw is not None else ""
    explanation = fields.get("explanation") or fields.get("api_provider_explanation") or ""
    result = Extraction(
        api_call=api_call or None,
        code=code,
        explanation=unescape(_field_value(explanation, last_key == "explanation")).strip(),
        domain=_field_value(fields["domain"], False) if "domain" in fields else None,
        provider=_field_value(fields["api_provider"], False) if "api_provider" in fields else None,
        format=fmt,
    )
    result.calls = result.candidates()
    return result


def _literal(value: Any) -> str:
    """A JSON value as Python literal source (our own rendering; nothing is evaluated). Walked without
    recursion, so any depth renders: JSON arguments nested 400 deep were "internal error: RecursionError"
    (break-it round 11). The rendered call then nests past callsite.MAX_NESTING and gets the
    ``unparseable:nesting_limit`` verdict, as the same code written in Python does."""
    out: list[str] = []
    stack: list[tuple[bool, Any]] = [(False, value)]  # (True, text to write) or (False, a value to render)
    while stack:
        is_text, item = stack.pop()
        if is_text:
            out.append(item)
        elif isinstance(item, list):
            parts: list[tuple[bool, Any]] = [(True, "[")]
            for i, v in enumerate(item):
                parts += [(True, ", ")] if i else []
                parts.append((False, v))
            stack.extend(reversed([*parts, (True, "]")]))
        elif isinstance(item, dict):
            parts = [(True, "{")]
            for i, (k, v) in enumerate(item.items()):
                parts.append((True, (", " if i else "") + repr(str(k)) + ": "))
                parts.append((False, v))
            stack.extend(reversed([*parts, (True, "}")]))
        elif isinstance(item, (str, bool, int, float)) or item is None:
            out.append(repr(item))
        else:
            out.append(repr(str(item)))
    return "".join(out)


#: Keys of the tool-call formats themselves (never a function name of BFCL's decoded form).
_TOOL_KEYS = frozenset({"name", "function", "arguments", "parameters", "type", "id"})


def tool_calls(text: str) -> list[str] | None:
    """Render the JSON tool-call format as Python calls, one string each; None if the text is not that
    format. Accepted (a list of them, or one object): ``{"name": ..., "arguments": {...}}`` (OpenAI,
    BFCL), ``arguments`` as a JSON string, OpenAI's ``{"type": "function", "function": {"name",
    "arguments"}}`` wrapper, and BFCL's decoded form ``{"shutil.copytree": {"src": "a"}}`` (one key, the
    function name, whose value is the arguments object). At most callsite.MAX_CALLS calls are rendered
    (tool_calls_counted counts the rest)."""
    found = tool_calls_counted(text)
    return found[0] if found is not None else None


#: Largest JSON text read as tool calls (characters): `check` reads files of at most 10 MiB (lint.py).
MAX_JSON = 16 * 1024 * 1024


def json_error(text: str) -> str | None:
    """Python's json error for a text that starts like JSON (``[`` or ``{``) and is neither JSON nor
    Python (``[{"name": "math.sqrt"``: a tool call cut short), e.g. "Expecting ',' delimiter: line 1
    column 21 (char 20)"; None for JSON, for Python (``[print(x) for x in y]``, ``{1: f()}``) and for
    other text."""
    stripped = text.strip()
    if not stripped or stripped[0] not in "[{" or len(stripped) > MAX_JSON:
        return None
    try:
        json_value(stripped)
    except ValueError as e:  # TOO_DEEP too: deeper than json's decoder follows, as Python it is nesting_limit
        return None if _parses(stripped) else "nested too deeply" if str(e) == TOO_DEEP else str(e)
    return None


def tool_calls_counted(text: str) -> tuple[list[str], int] | None:
    """(tool_calls' calls, how many calls past callsite.MAX_CALLS were left out), None as tool_calls.
    Linear in the text: one jsontext.loads (a 5 MB list of 34,000 calls took 40 s when it was read as Python,
    every call scanned several times; now the first MAX_CALLS are rendered and the rest counted)."""
    stripped = text.strip()
    if not stripped or stripped[0] not in "[{" or len(stripped) > MAX_JSON:
        return None
    try:
        data = json_value(stripped)
    except ValueError:
        return None
    items = data if isinstance(data, list) else [data]
    if not items or not all(isinstance(item, dict) for item in items):
        return None
    left_out = max(0, len(items) - MAX_CALLS)
    calls = _tool_calls(items[:MAX_CALLS])
    return (calls, left_out) if calls else None


def _tool_calls(items: list[dict]) -> list[str] | None:
    """The Python calls of JSON tool-call objects `items` (tool_calls), None when one is not a call."""
    calls: list[str] = []
    for item in items:
        if not isinstance(item, dict):
            return None
        fn = item.get("function") if isinstance(item.get("function"), dict) else item
        key = next(iter(item), "")
        if len(item) == 1 and key not in _TOOL_KEYS and isinstance(item[key], dict):
            fn = {"name": next(iter(item)), "arguments": next(iter(item.values()))}  # BFCL's decoded form
        name, args = fn.get("name"), fn.get("arguments", fn.get("parameters", {}))
        if isinstance(args, str):
            try:
                args = json_value(args) if args.strip() else {}
            except ValueError:
                return None
        if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z_][\w.]*", name):
            return None
        if isinstance(args, dict):
            rendered = ", ".join(
                f"{k}={_literal(v)}" if re.fullmatch(r"[A-Za-z_]\w*", str(k)) else _literal(v)
                for k, v in args.items()
            )
        elif isinstance(args, list):
            rendered = ", ".join(_literal(v) for v in args)
        else:
            return None
        calls.append(f"{name}({rendered})")
    return calls or None


def _prose_code(text: str) -> tuple[str, str, str]:
    """(code, prose, parsed lines) from free text: the lines that look like code (or request lines such
    as ``GET /v1/x``) and parse on their own are the code, the rest prose. When most lines look like code
    but some do not parse, the whole text is the code (the validator then reports where it breaks) and
    the lines that parse come third."""
    if len(text) > _MAX_LINE_SCAN:
        return "", text, ""
    lines = text.splitlines()
    looks = [bool(_CODE_LINE.match(ln) or _REQUEST.match(ln) or _NOT_PROSE.search(ln)) for ln in lines]
    non_blank = [flag for flag, ln in zip(looks, lines, strict=True) if ln.strip()]
    mostly_code = bool(non_blank) and sum(non_blank) * 2 >= len(non_blank)
    code_lines: list[str] = []
    prose: list[str] = []
    broken = False
    for line, flag in zip(lines, looks, strict=True):
        if flag and (_REQUEST.match(line) or _parses(line.strip())):
            code_lines.append(line.strip())
        else:
            broken = broken or flag
            prose.append(line)
    if mostly_code and broken:
        return text.strip(), "", "\n".join(code_lines)
    return "\n".join(code_lines), "\n".join(prose).strip(), ""


def embedded_calls(text: str, limit: int = 20) -> list[str]:
    """Calls written inside sentences ("Load it with model = torch.hub.load('a/b', 'c') and then call
    model.eval()."): a dotted name followed by a balanced argument list, with an optional ``x = `` before
    it (then a bare name is enough), kept when Python parses it on its own. In text order, at most
    `limit`; calls nested in a found call are not listed again."""
    out: list[str] = []
    pos = 0
    for m in _EMBEDDED.finditer(text[:_MAX_LINE_SCAN]):
        if m.start() < pos:
            continue
        if m.group(1) is None and "." not in m.group(2):
            continue
        end = close_bracket(text, m.end() - 1, max_chars=4000)
        if end is None or text[end - 1] != ")":  # unclosed, or closed by "]" / "}": not a call
            continue
        snippet = text[m.start() : end].strip()
        if not python_parses(snippet):
            continue
        out.append(snippet)
        pos = end
        if len(out) >= limit:
            break
    return out


def extract(text: str) -> Extraction:
    """Take the api_call, code and explanation out of any model text. Never raises.

    Understands, in this order: the JSON tool-call format; Gorilla's ``<<<field>>>:`` format (one field per
    line or several on a line, separated by ", "); the Python-dict string of Gorilla's Torch Hub model
    (often not a valid literal: fields are split by key, not parsed); markdown fences (any language tag);
    plain code; prose with code lines. Escaped code (``\\n``, ``\\'``) is unescaped when that makes it parse.
    """
    if not isinstance(text, str) or not text.strip():
        return Extraction()
    found = tool_calls_counted(text)
    if found:
        tool, left_out = found
        code = "\n".join(tool)
        return Extraction(api_call=tool[0], code=code, calls=tool, format="json", left_out=left_out)
    if "<<<" in text and _GORILLA_FIELD.search(text):
        pairs = _split(text, _GORILLA_FIELD)
        if any(k in ("api_call", "code") for k, _ in pairs):
            result = _from_fields(pairs, "gorilla", None)
            head = text[: _GORILLA_FIELD.search(text).start()].strip()  # type: ignore[union-attr]
            if head and not result.explanation:
                result.explanation = unescape(head)
            return result
    if _HAS_DICT_API_CALL.search(text):
        pairs = _split(text, _DICT_FIELD)
        if any(k in ("api_call", "code") for k, _ in pairs):
            return _from_fields(pairs, "dict", pairs[-1][0])
    fences = _FENCE.findall(text)
    if fences:
        code = "\n".join(clean_code(body) for _, body in fences if body.strip())
        prose = _FENCE.sub("", text).strip()
        return Extraction(code=code, explanation=prose, calls=[code] if code else [], format="fence")
    cleaned = clean_code(text)
    if _parses(cleaned):
        return Extraction(code=cleaned, calls=[cleaned], format="code")
    code, prose, parsed = _prose_code(unescape(text) if "\n" not in text and "\\n" in text else text)
    one_broken_line = bool(code) and "\n" not in code and not python_parses(code)
    # no code (or a sentence): calls inside sentences; never from a text holding a control character,
    # which no sentence has (the call beside it would be checked without it, and pass)
    if ((not code and not parsed) or one_broken_line) and not _CONTROL.search(text):
        found = embedded_calls(text)
        if found:
            return Extraction(code="\n".join(found), explanation=text.strip(), calls=found, format="prose")
    calls = [c for c in (code, parsed) if c]
    return Extraction(code=code, explanation=prose, calls=calls, format="prose")
