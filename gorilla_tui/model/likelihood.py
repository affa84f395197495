"""Select mode by query likelihood: the model scores each hit by log p(task | doc); model/choice.py decides.

This is UPR, "Improving Passage Retrieval with Zero-Shot Question Generation" (Sachan et al. 2022, arXiv
2204.07496): a language model reranks retrieved passages by the likelihood of the question given each
passage. For a small base model it is a far better chooser than asking it to copy one candidate out of a
list under a grammar: on 150 questions of APIBench's Torch Hub *training* split (k=5, the embedded Gemma 3
270M) the chosen doc's domain was right for 84.0 % against 68.7 % for BM25's top hit (bench/rerank_dev.py).
The eval splits were not used to choose the template, k or the scoring rule.

This module scores (the scoring context, log p(task | doc), the content-free score); the rules that choose
a hit from those scores live in model/choice.py.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from gorilla_tui.pool.doc import ApiDoc

#: Characters of the description kept in a doc's scoring context (fixed with the template on the dev split).
DESCRIPTION_CHARS = 200
HEADER = "Here is an API.\n"
LEAD = "\nA user asks for this API: "


def can_score(backend: Any) -> bool:
    """True when `backend` can return log-probabilities: a callable loglikelihoods (see model/backend.py) and,
    where the backend has one, a supports_loglikelihoods() that says yes (RemoteBackend probes its server
    once; it raises remote.EndpointDownError when the server cannot be reached)."""
    if not callable(getattr(backend, "loglikelihoods", None)):
        return False
    probe = getattr(backend, "supports_loglikelihoods", None)
    return bool(probe()) if callable(probe) else True


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit]


def scoring_context(doc: ApiDoc) -> str:
    """The text the task is scored after: HEADER, "domain: functionality. description[:200]" (empty parts
    left out; api_name stands in when there is neither domain nor functionality), then LEAD."""
    head = ": ".join(x for x in (doc.domain.strip(), doc.functionality.strip()) if x) or doc.api_name.strip()
    body = ". ".join(x for x in (_clip(head, 200), _clip(doc.description, DESCRIPTION_CHARS)) if x)
    return HEADER + (body or doc.call.strip()) + LEAD


def query_likelihoods(
    backend: Any, task: str, docs: Sequence[ApiDoc], cancel: threading.Event | None = None
) -> list[float]:
    """log p(task | scoring_context(doc)) in nats, one per doc (docs with the same context are scored once).
    Shorter than `docs` only when `cancel` was set. Raises what backend.loglikelihoods raises
    (GorillaError when the model fails or the text does not fit n_ctx)."""
    contexts = [scoring_context(d) for d in docs]
    unique = list(dict.fromkeys(contexts))
    values = backend.loglikelihoods(unique, " ".join(task.split()), cancel=cancel)
    scored = dict(zip(unique, values, strict=False))  # shorter when cancelled
    out = []
    for c in contexts:
        if c not in scored:
            break
        out.append(scored[c])
    return out


#: A task with no content: log p(CONTENT_FREE_TASK | doc) measures how much a doc's style and length favour
#: any task at all (contextual calibration, Zhao et al. 2021, arXiv 2102.09690, with "N/A" as their
#: content-free input).
CONTENT_FREE_TASK = "N/A"
#: Content-free scores kept per (model name, scoring context): they depend on the doc only, not the task.
_FREE_CACHE: dict[tuple[str, str], float] = {}
_FREE_CACHE_MAX = 20_000


def content_free_scores(
    backend: Any, docs: Sequence[ApiDoc], cancel: threading.Event | None = None
) -> list[float]:
    """log p(CONTENT_FREE_TASK | scoring_context(doc)) per doc, in nats, each context scored once per model
    and process (kept in a bounded cache). Shorter than `docs` only when `cancel` was set. Raises what
    backend.loglikelihoods raises."""
    name = str(getattr(backend, "name", ""))
    contexts = [scoring_context(d) for d in docs]
    missing = [c for c in dict.fromkeys(contexts) if (name, c) not in _FREE_CACHE]
    if missing:
        values = backend.loglikelihoods(missing, CONTENT_FREE_TASK, cancel=cancel)
        if len(_FREE_CACHE) + len(values) > _FREE_CACHE_MAX:
            _FREE_CACHE.clear()
        for c, v in zip(missing, values, strict=False):
            _FREE_CACHE[(name, c)] = v
    out = []
    for c in contexts:
        if (name, c) not in _FREE_CACHE:
            break
        out.append(_FREE_CACHE[(name, c)])
    return out


def cached_free_score(backend: Any, doc: ApiDoc) -> float | None:
    """log p(CONTENT_FREE_TASK | scoring_context(doc)) when content_free_scores has computed it for
    `backend`'s model in this process, else None (never calls the model): bench/filling.py records it so the
    choice can be replayed offline (bench/choice_replay.py)."""
    return _FREE_CACHE.get((str(getattr(backend, "name", "")), scoring_context(doc)))
