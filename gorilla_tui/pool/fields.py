"""Field normalisation of API pool records: any APIBench / APIZoo shape of a record's fields made the one
ApiDoc holds (dict of arguments, list of requirements, one string of example code), the api_call
classified (Python, REST, or why it is not valid Python, with a repaired call), and the record made a doc."""

from __future__ import annotations

import ast
import re
from typing import Any

from gorilla_tui.parsing import parse, syntax_problem
from gorilla_tui.pool.apidoc import REST_LINE, ApiDoc
from gorilla_tui.pool.repair import repair_call, unquoted_ids

_EMPTY_MARKERS = {"", "n/a", "na", "none", "null", "not provided", "-"}


def text_of(value: Any) -> str:
    """Any JSON value as display text: strings as they are, lists joined by newlines, dicts as k: v lines."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(text_of(v) for v in value)
    if isinstance(value, dict):
        return "\n".join(f"{k}: {text_of(v)}" for k, v in value.items())
    return str(value)


def is_empty(value: Any) -> bool:
    """True for a missing value and for the placeholders APIBench and APIZoo write for one ("", "N/A",
    "None", "null", "not provided", "-"; any case)."""
    return value is None or (isinstance(value, str) and value.strip().lower() in _EMPTY_MARKERS)


def normalise_arguments(value: Any) -> dict[str, str]:
    """api_arguments of any APIBench shape -> {name: description or default}.

    dict: keys kept, values as text; list: each string is a name, each dict with "name" gives name ->
    the rest; a string: one name (or comma-separated names); null / "N/A" / "": {}.
    """
    if is_empty(value):
        return {}
    if isinstance(value, dict):
        return {str(k): text_of(v) for k, v in value.items()}
    if isinstance(value, list):
        out: dict[str, str] = {}
        for item in value:
            if isinstance(item, dict) and "name" in item:
                rest = {k: v for k, v in item.items() if k != "name"}
                out[str(item["name"])] = text_of(rest)
            elif isinstance(item, dict):
                out.update({str(k): text_of(v) for k, v in item.items()})
            elif not is_empty(item):
                out[text_of(item)] = ""
        return out
    text = text_of(value).strip()
    if "(" not in text and "," in text:
        return {part.strip(): "" for part in text.split(",") if part.strip()}
    return {text: ""}


def normalise_requirements(value: Any) -> list[str]:
    """python_environment_requirements / env_requirements -> list of requirement strings.

    A string is split on commas; a dict {name: version} becomes "name version" items.
    """
    if is_empty(value):
        return []
    if isinstance(value, list):
        return [t for t in (text_of(v).strip() for v in value) if t]
    if isinstance(value, dict):
        return [f"{k} {text_of(v)}".strip() if not is_empty(v) else str(k) for k, v in value.items()]
    return [p.strip() for p in text_of(value).split(",") if p.strip()]


def normalise_code(value: Any) -> str:
    """example_code (string, list of lines, dict of snippets, null, "N/A") -> one string."""
    if is_empty(value):
        return ""
    if isinstance(value, dict):
        return "\n".join(text_of(v) for v in value.values())
    return text_of(value)


def check_python(api_call: str) -> tuple[str, str | None]:
    """Classify an api_call: returns (kind, flag) where kind is "python" or "rest" and flag is None or the
    reason it is not valid Python (tree-sitter-python: an ERROR or MISSING node; then ``ast.parse``, the
    running Python's parser) or holds a repo id without quotes (pool/repair.py unquoted_ids)."""
    if REST_LINE.match(api_call):
        return "rest", None
    if not api_call.strip():
        return "python", "empty api_call"

    problem = syntax_problem(parse(api_call).root_node)
    if problem is None:
        try:  # Python's own parser is the last word (tree-sitter recovers from some errors silently)
            ast.parse(api_call)
        except SyntaxError as e:
            return "python", f"not valid Python ({e.lineno}:{e.offset}: {e.msg})"
        except (ValueError, RecursionError, MemoryError) as e:
            return "python", f"not valid Python ({e})"
        unquoted = unquoted_ids(api_call)
        if unquoted:
            return "python", f"model id not quoted: {unquoted[0][2]} (Python reads it as arithmetic)"
        return "python", None
    if re.match(r"^\s*(\./|[\w.-]+\s+--)", api_call):
        return "python", "not valid Python (a shell command)"
    return "python", f"not valid Python ({problem})"


def make_doc(rec: dict[str, Any], source: str, line: int, apizoo: bool) -> ApiDoc:
    """The ApiDoc of one record with the required fields (id "<source>:<line>"): APIBench field names, or
    with `apizoo` the APIZoo ones (meta_data / metadata, user_name, env_requirements); the api_call
    classified by check_python and repaired where it is flagged."""
    api_call = text_of(rec.get("api_call")).strip()
    kind, flag = check_python(api_call)
    if apizoo:
        meta = rec.get("meta_data") or rec.get("metadata") or {}
        meta = meta if isinstance(meta, dict) else {"description": meta}
        description = text_of(meta.get("description") or rec.get("description"))
        domain = text_of(meta.get("category") or rec.get("domain"))
        framework = text_of(rec.get("framework") or rec.get("user_name"))
        requirements = rec.get("env_requirements")
        performance = meta.get("performance") if "performance" in meta else rec.get("performance")
        questions = rec.get("questions") or []
    else:
        description = text_of(rec.get("description"))
        domain = text_of(rec.get("domain"))
        framework = text_of(rec.get("framework") or rec.get("provider"))
        requirements = rec.get("python_environment_requirements", rec.get("env_requirements"))
        performance = rec.get("performance")
        questions = rec.get("questions") or []
    return ApiDoc(
        id=f"{source}:{line}",
        source=source,
        api_call=api_call,
        api_name=text_of(rec.get("api_name")).strip(),
        domain=domain.strip(),
        framework=framework.strip(),
        functionality=text_of(rec.get("functionality")).strip(),
        api_arguments=normalise_arguments(rec.get("api_arguments")),
        env_requirements=normalise_requirements(requirements),
        example_code=normalise_code(rec.get("example_code")),
        performance=performance,
        description=description.strip(),
        questions=[text_of(q).strip() for q in questions if not is_empty(q)]
        if isinstance(questions, list)
        else [text_of(questions)],
        api_version=text_of(rec.get("api_version")).strip(),
        kind=kind,
        flagged=flag,
        repaired=_repaired(api_call, rec.get("example_code")) if flag else None,
    )


def _repaired(api_call: str, example_code: Any) -> str | None:
    fixed = repair_call(api_call, normalise_code(example_code))
    return fixed[0] if fixed else None


def doc_from_record(rec: dict[str, Any], source: str, line: int = 0) -> ApiDoc:
    """One APIBench-shaped record (e.g. an eval line's api_data) -> ApiDoc, normalised as load_jsonl does
    (id "<source>:<line>"). Raises ValueError when rec is not a dict or has no api_call."""
    if not isinstance(rec, dict) or not text_of(rec.get("api_call")).strip():
        raise ValueError("an API record needs a non-empty api_call")
    return make_doc(rec, source, line, apizoo=False)
