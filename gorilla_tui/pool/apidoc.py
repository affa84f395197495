"""ApiDoc, the unit of the API pool, and what loading a pool reports: Diagnostic, LoadResult and the
SourceRejected error. pool/doc.py holds the loaders and re-exports these names."""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field, fields
from typing import Any

#: The model hubs of APIBench (Gorilla paper, section 3.1): their docs load a model (``torch.hub.load(...)``);
#: the task's values (an image, a text) are for the code that uses it, not for the call.
MODEL_HUBS = frozenset({"torchhub", "tensorflowhub", "huggingface"})
#: A REST doc's api_call: an HTTP method and a path template (``GET /v1/users/{id}``).
REST_LINE = re.compile(r"^\s*(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\s+(/\S*)", re.IGNORECASE)


@dataclass
class ApiDoc:
    """One API of the pool.

    Fields follow APIBench (Patil et al. 2023, arXiv 2305.15334, dataset gorilla-llm/APIBench), normalised:
    api_arguments is always a dict name -> description/default (a list of names maps each name to ""),
    env_requirements a list of strings, example_code one string. performance keeps the source's raw JSON
    value (numbers, strings or nested dicts; issue "constraints" normalises it). `id` is "<source>:<line>"
    (line = 1-based line of a JSONL file, or 1-based entry index of a JSON list) and is unique in a pool.
    kind: "python" (a Python call), "rest" (an HTTP method and path template, e.g. ``GET /v1/users/{id}``).
    flagged: None, or why the api_call is not valid Python (the doc stays searchable).
    repaired: for a flagged doc, a Python-valid call of the same API (pool/repair.py: the api_call without a
    trailing ".", or the call of its example_code with the entry's own values), else None. The validator
    matches it, select mode proposes it, the doc view shows api_call (the original) beside it.
    parameters: the call's arguments as a JSON Schema object (``{"type": "object", "properties": {name:
    {"type", "description", "enum"?, "default"?, "items"?}}, "required": [...]}``) where the source gives
    one (function-calling sources: OpenAI tools, MCP tools/list, BFCL function lists, pool/tools.py;
    OpenAPI operations, pool/openapi.py, whose properties also say where each goes: ``"x-in"`` path, query,
    header or body), else None; pool/params.py params_of reads it, or api_arguments where it is None.
    """

    id: str
    source: str
    api_call: str
    api_name: str = ""
    domain: str = ""
    framework: str = ""
    functionality: str = ""
    api_arguments: dict[str, str] = field(default_factory=dict)
    env_requirements: list[str] = field(default_factory=list)
    example_code: str = ""
    performance: Any = None
    description: str = ""
    questions: list[str] = field(default_factory=list)
    api_version: str = ""
    kind: str = "python"
    flagged: str | None = None
    repaired: str | None = None
    parameters: dict[str, Any] | None = None

    @property
    def call(self) -> str:
        """The call to match and propose: the repaired call of a flagged doc, else api_call."""
        return self.repaired or self.api_call

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (the inverse of :meth:`from_dict`): the fields in declaration order, as
        dataclasses.asdict gives them, but built directly (asdict's recursive deep copy was a fifth of a
        refresh's time: writing docs.json and the validator lookup call this twice per doc)."""
        out = {name: getattr(self, name) for name in _FIELDS}
        out["api_arguments"] = dict(self.api_arguments)
        out["env_requirements"] = list(self.env_requirements)
        out["questions"] = list(self.questions)
        if isinstance(self.performance, (dict, list)):
            out["performance"] = copy.deepcopy(self.performance)
        if self.parameters is not None:
            out["parameters"] = copy.deepcopy(self.parameters)
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ApiDoc:
        """Rebuild an ApiDoc from :meth:`to_dict` output (unknown keys are ignored)."""
        names = cls.__dataclass_fields__.keys()
        return cls(**{k: v for k, v in d.items() if k in names})

    @property
    def rest(self) -> tuple[str, str] | None:
        """(METHOD, path template) for a REST doc, else None."""
        m = REST_LINE.match(self.api_call)
        return (m.group(1).upper(), m.group(2)) if m else None


#: ApiDoc's field names in declaration order (ApiDoc.to_dict).
_FIELDS = tuple(f.name for f in fields(ApiDoc))


@dataclass(frozen=True)
class Diagnostic:
    """A problem found while loading. severity: "skipped" (entry or file not loaded), "flagged" (loaded, but
    its api_call is not valid Python), "repaired" (loaded after fixing non-strict JSON) or "note" (for
    information, e.g. a source's training questions were not found). line is 1-based,
    0 for the whole file."""

    file: str
    line: int
    severity: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.severity}: {self.message}"


@dataclass
class LoadResult:
    """What a loader returns: the docs it kept and every diagnostic, in file order."""

    docs: list[ApiDoc] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: lines (JSONL) or entries (APIZoo) that did not become a doc, counted even past doc.MAX_DIAGNOSTICS
    not_docs: int = 0
    #: "file:line" of the first of them ("" when none)
    first_not_doc: str = ""

    @property
    def flagged(self) -> int:
        return sum(1 for d in self.docs if d.flagged)

    @property
    def repaired(self) -> int:
        """Flagged docs that have a repaired call (ApiDoc.repaired)."""
        return sum(1 for d in self.docs if d.flagged and d.repaired)

    @property
    def skipped(self) -> int:
        """Lines or entries not loaded plus whole files not loaded (empty, binary, unreadable)."""
        return self.not_docs + sum(1 for d in self.diagnostics if d.severity == "skipped" and not d.line)

    def extend(self, other: LoadResult) -> None:
        self.docs.extend(other.docs)
        self.diagnostics.extend(other.diagnostics)
        self.not_docs += other.not_docs
        self.first_not_doc = self.first_not_doc or other.first_not_doc


class SourceRejected(ValueError):
    """A source refused whole before it reaches the index: a path that is not a regular file or a folder
    of them (a FIFO, /dev/zero), a source over its size limit, or one whose lines are mostly not docs. The
    message is one line naming the path and why."""
