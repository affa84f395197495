"""The model's own signals of whether an API fits a task (the fit judgment, pipeline_fit.py):

- `yes_no`: the model asked "Can the function do the request?" after a few hand-written examples
  (FEW_SHOT: near misses among them, "area of a circle" asked of a triangle's area), scored as
  log p(" Yes") - log p(" No") at the answer's first token. One decode: the examples' KV cache is kept by
  the backend's chooser between asks (LlamaBackend.chooser's `prefix`, as fill/ keeps its own), so an ask
  evaluates only the function's line and the request (~60-120 tokens).
- `doc_free_likelihood`: log p(task | a context with no doc), the baseline the pointwise mutual information
  log p(task | doc) - log p(task) is measured against (select mode's log p(task | doc): likelihood.py).

The examples are written here by hand, about everyday functions, never from BFCL, APIBench or any task set
of bench/.
"""

from __future__ import annotations

import threading
from typing import Any

from gorilla_tui.errors import ContextOverflowError
from gorilla_tui.model.likelihood import HEADER, LEAD, can_score
from gorilla_tui.pool.apidoc import ApiDoc

#: Characters of a doc's description the question shows (the choice's scoring context keeps 200 as well).
DESCRIPTION_CHARS = 200
QUESTION = "Can the function do the request?"
YES, NO = " Yes", " No"
#: The few-shot examples the question follows; kept evaluated between asks (its KV cache, see the module
#: docstring). Four Yes, five No; three of the No are near misses in the function's own field.
FEW_SHOT = (
    "Decide whether a function can do what a request asks.\n\n"
    "Function: get_weather(city, unit='celsius'): Get the current weather for a city.\n"
    "Request: Is it raining in Lisbon at the moment?\n"
    f"{QUESTION} Yes\n\n"
    "Function: circle_area(radius): Calculate the area of a circle from its radius.\n"
    "Request: What is the area of a triangle with base 4 and height 3?\n"
    f"{QUESTION} No\n\n"
    "Function: shutil.copyfile(src, dst): Copy the contents of the file named src to a file named dst.\n"
    "Request: make a copy of budget.xlsx called budget_old.xlsx\n"
    f"{QUESTION} Yes\n\n"
    "Function: convert_currency(amount, from_currency, to_currency): Convert an amount of money between "
    "currencies.\n"
    "Request: book a hotel room in Madrid for two nights\n"
    f"{QUESTION} No\n\n"
    "Function: get_stock_price(ticker): Retrieve the latest stock price of a company.\n"
    "Request: Who founded the company Apple?\n"
    f"{QUESTION} No\n\n"
    "Function: translate_text(text, target_language): Translate text into another language.\n"
    "Request: how do you say 'good morning' in Japanese\n"
    f"{QUESTION} Yes\n\n"
    "Function: calculate_bmi(weight_kg, height_m): Calculate the body mass index from weight and height.\n"
    "Request: how many calories are in a banana\n"
    f"{QUESTION} No\n\n"
    "Function: sorted(iterable, key=None, reverse=False): Return a new sorted list from the items in "
    "iterable.\n"
    "Request: order these names alphabetically\n"
    f"{QUESTION} Yes\n\n"
    "Function: send_email(to, subject, body): Send an email message.\n"
    "Request: send a text message to my brother's phone\n"
    f"{QUESTION} No\n\n"
)


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit]


def function_line(doc: ApiDoc) -> str:
    """The doc as the question shows it: its call, then "domain: functionality. description" clipped
    (DESCRIPTION_CHARS), on one line."""
    head = ": ".join(x for x in (doc.domain.strip(), doc.functionality.strip()) if x)
    about = ". ".join(x for x in (_clip(head, 200), _clip(doc.description, DESCRIPTION_CHARS)) if x)
    call = _clip(doc.call.strip() or doc.api_name, 200)
    return f"{call}: {about}" if about else call


def question_prompt(doc: ApiDoc, task: str) -> str:
    """FEW_SHOT, then the doc's function line, the request and QUESTION (the answer's token comes next)."""
    return f"{FEW_SHOT}Function: {function_line(doc)}\nRequest: {' '.join(task.split())}\n{QUESTION}"


def yes_no(backend: Any, doc: ApiDoc, task: str, cancel: threading.Event | None = None) -> float | None:
    """log p(" Yes") - log p(" No") in nats for "can `doc` do `task`?" (question_prompt): above 0 the model
    says it can. With a backend's chooser (LlamaBackend) one decode, FEW_SHOT's KV cache kept; else two
    scorings by loglikelihoods (RemoteBackend where its server gives log-probabilities). None when the
    backend can do neither (ScriptedBackend) or the prompt does not fit n_ctx. Raises what the backend
    raises otherwise (GorillaError)."""
    prompt = question_prompt(doc, task)
    try:
        chooser = getattr(backend, "chooser", None)
        if callable(chooser):
            with chooser(prompt, cancel, prefix=FEW_SHOT) as c:
                yes, no = c.next_logprobs([YES, NO])
            return yes - no
        if can_score(backend):
            yes_l = backend.loglikelihoods([prompt], YES, cancel=cancel)
            no_l = backend.loglikelihoods([prompt], NO, cancel=cancel)
            return yes_l[0] - no_l[0] if yes_l and no_l else None
    except ContextOverflowError:
        return None
    return None


#: The doc-free context of doc_free_likelihood: the choice's scoring context with no doc in it.
DOC_FREE_CONTEXT = HEADER + LEAD.lstrip("\n")


def doc_free_likelihood(backend: Any, task: str, cancel: threading.Event | None = None) -> float | None:
    """log p(task | DOC_FREE_CONTEXT) in nats (the whitespace-normalised task, as query_likelihoods scores
    it), or None when the backend cannot score text or the task does not fit n_ctx."""
    if not can_score(backend):
        return None
    try:
        values = backend.loglikelihoods([DOC_FREE_CONTEXT], " ".join(task.split()), cancel=cancel)
    except ContextOverflowError:
        return None
    return values[0] if values else None
