"""Select mode by query likelihood: the model scores each hit by log p(task | doc) and the best one is chosen.

This is UPR, "Improving Passage Retrieval with Zero-Shot Question Generation" (Sachan et al. 2022, arXiv
2204.07496): a language model reranks retrieved passages by the likelihood of the question given each
passage. For a small base model it is a far better chooser than asking it to copy one candidate out of a
list under a grammar: on 150 questions of APIBench's Torch Hub *training* split (k=5, the embedded Gemma 3
270M) the chosen doc's domain was right for 84.0 % against 68.7 % for BM25's top hit (bench/rerank_dev.py).
The eval splits were not used to choose the template, k or the scoring rule.
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


def best(scores: Sequence[float]) -> int:
    """Index of the highest score; ties go to the earlier index (the better BM25 rank). Raises ValueError
    for an empty sequence."""
    if not scores:
        raise ValueError("no scores")
    return max(range(len(scores)), key=lambda i: (scores[i], -i))
