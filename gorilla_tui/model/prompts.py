"""Prompt templates per model family; the fixed text comes first so the KV cache reuses it across tasks."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from gorilla_tui.errors import GorillaError
from gorilla_tui.jsontext import dumps as json_text
from gorilla_tui.pool.doc import ApiDoc

FAMILIES = ("gorilla", "openfunctions-v1", "openfunctions-v2", "fewshot")

# Gorilla (Patil et al. 2023, arXiv 2305.15334, Sec. 3.2 "retriever-aware training"): the user turn is the
# instruction followed by "Use this API documentation for reference: <retrieved_API_doc_JSON>"; the chat
# wrapper is the fastchat-style template of the gorilla repo's inference code (system, ###USER/###ASSISTANT).
GORILLA_SYSTEM = (
    "A chat between a curious user and an artificial intelligence assistant. "
    "The assistant gives helpful, detailed, and polite answers to the user's questions.\n"
)
# OpenFunctions v2 (gorilla-llm/gorilla-openfunctions-v2 model card, get_prompt()).
OPENFUNCTIONS_V2_SYSTEM = (
    "You are an AI programming assistant, utilizing the Gorilla LLM model, developed by Gorilla LLM, and you "
    "only answer questions related to computer science. For politically sensitive questions, security and "
    "privacy issues, and other non-computer science questions, you will refuse to answer\n"
)
# Few-shot completion prompt for base models (the embedded Gemma 3 270M). The examples use real APIs that are
# not APIBench eval answers; this whole block is the fixed prefix shared by every task.
FEWSHOT_PREFIX = """Choose the API call that does the task. Answer with one candidate call, copied exactly.

Task: Turn a paragraph of English text into spoken audio.
Candidates:
- Image Classification, MobileNet V2: tf.keras.applications.MobileNetV2(weights='imagenet')
- Text-to-Speech, VITS: pipeline('text-to-speech', model='espnet/kan-bayashi_ljspeech_vits')
- Translation, Marian: pipeline('translation_en_to_de', model='Helsinki-NLP/opus-mt-en-de')
Answer: pipeline('text-to-speech', model='espnet/kan-bayashi_ljspeech_vits')

Task: Find the objects in a street photo and draw boxes around them.
Candidates:
- Semantic Segmentation, DeepLabV3: torch.hub.load('pytorch/vision', 'deeplabv3_resnet50', pretrained=True)
- Object Detection, YOLOv5: torch.hub.load('ultralytics/yolov5', 'yolov5s', pretrained=True)
Answer: torch.hub.load('ultralytics/yolov5', 'yolov5s', pretrained=True)

"""

#: Doc detail levels, most detailed first; fit_prompt steps down them before dropping docs.
DETAIL_LEVELS = ("full", "compact", "minimal")


@dataclass(frozen=True)
class Prompt:
    """A built prompt. prefix: fixed text, identical for every task of the family (KV-cache reuse);
    body: task and docs; lead: the text the answer follows (a grammar in select mode starts right after it);
    stop: stop sequences for generation. text = prefix + body + lead."""

    prefix: str
    body: str
    lead: str
    stop: tuple[str, ...]

    @property
    def text(self) -> str:
        return self.prefix + self.body + self.lead


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: max(0, limit - 3)].rstrip() + "..."


def doc_json(doc: ApiDoc, detail: str = "full") -> str:
    """The doc as the JSON object the Gorilla paper appends (APIBench field names), at a detail level:
    full (every field), compact (no example_code/performance, description <= 200 chars), minimal."""
    d: dict[str, object] = {
        "domain": doc.domain,
        "framework": doc.framework,
        "functionality": doc.functionality,
        "api_name": doc.api_name,
        "api_call": doc.api_call,
    }
    if detail != "minimal":
        d["api_arguments"] = doc.api_arguments
        d["python_environment_requirements"] = doc.env_requirements
    if detail == "full":
        d["example_code"] = doc.example_code
        d["performance"] = doc.performance
        d["description"] = doc.description
    elif detail == "compact":
        d["description"] = _clip(doc.description, 200)
    return json_text(d)


def doc_line(doc: ApiDoc, detail: str = "full") -> str:
    """One candidate line for the few-shot prompt: "- Domain, functionality: api_call [— description]"."""
    head = ", ".join(x for x in (doc.domain, doc.functionality) if x) or doc.api_name
    line = f"- {_clip(head, 80)}: {doc.call.strip()}"
    if detail == "full" and doc.description:
        line += f" -- {_clip(doc.description, 160)}"
    return line


def _function(doc: ApiDoc, detail: str) -> dict[str, object]:
    f: dict[str, object] = {"name": doc.api_name or doc.api_call.split("(")[0], "api_call": doc.api_call}
    if detail != "minimal":
        f["description"] = _clip(doc.description or doc.functionality, 300 if detail == "full" else 120)
        f["parameters"] = doc.api_arguments
    return f


def build_prompt(family: str, task: str, docs: Sequence[ApiDoc], mode: str, detail: str = "full") -> Prompt:
    """The prompt for `family` (FAMILIES), with `docs` (best first) at `detail` (DETAIL_LEVELS).

    select mode ends at the point where the api_call starts (the GBNF grammar takes over); generate mode
    lets the model write its own answer format. Raises GorillaError for an unknown family."""
    task = " ".join(task.split())
    if family == "fewshot":
        cands = "\n".join(doc_line(d, detail) for d in docs)
        body = f"Task: {task}\nCandidates:\n{cands}\n"
        return Prompt(FEWSHOT_PREFIX, body, "Answer:", ("\n", "Task:"))
    if family == "gorilla":
        ref = "\n".join(doc_json(d, detail) for d in docs)
        body = f"###USER: {task}\nUse this API documentation for reference: {ref}\n"
        lead = "###ASSISTANT: <<<api_call>>>:" if mode == "select" else "###ASSISTANT: "
        return Prompt(GORILLA_SYSTEM, body, lead, ("###", "</s>"))
    if family == "openfunctions-v2":
        funcs = json_text([_function(d, detail) for d in docs])
        body = f"### Instruction: <<function>>{funcs}\n<<question>>{task}\n"
        return Prompt(OPENFUNCTIONS_V2_SYSTEM, body, "### Response: ", ("<|EOT|>", "###"))
    if family == "openfunctions-v1":
        funcs = json_text([_function(d, detail) for d in docs])
        body = f"USER: <<question>> {task} <<function>> {funcs}\n"
        return Prompt("", body, "ASSISTANT: ", ("</s>", "USER:"))
    raise GorillaError(f"unknown prompt family {family!r} (known: {', '.join(FAMILIES)})")


def fit_prompt(
    family: str, task: str, docs: Sequence[ApiDoc], mode: str, budget: int, count: Callable[[str], int]
) -> tuple[Prompt, list[ApiDoc], list[str]]:
    """The most detailed prompt whose token count (by `count`) is <= `budget` (= n_ctx - max_tokens).

    Order of trimming: step the doc detail down (full, compact, minimal), then drop the lowest-ranked docs
    (keeping one), then cut the task text. Returns (prompt, docs used, notes on what was trimmed).
    Raises GorillaError when even the task's first words with one minimal doc do not fit."""
    docs = list(docs)
    notes: list[str] = []
    for detail in DETAIL_LEVELS:
        p = build_prompt(family, task, docs, mode, detail)
        if count(p.text) <= budget:
            if detail != "full":
                notes.append(f"docs shortened to {detail} detail to fit n_ctx")
            return p, docs, notes
    notes.append("docs shortened to minimal detail to fit n_ctx")
    kept = docs
    while len(kept) > 1:
        kept = kept[:-1]
        p = build_prompt(family, task, kept, mode, "minimal")
        if count(p.text) <= budget:
            notes.append(f"kept {len(kept)} of {len(docs)} docs to fit n_ctx")
            return p, kept, notes
    words = task.split()
    lo, hi, best = 1, len(words), None
    while lo <= hi:  # longest task prefix (in words) that fits
        mid = (lo + hi) // 2
        p = build_prompt(family, " ".join(words[:mid]), kept, mode, "minimal")
        if count(p.text) <= budget:
            best, lo = p, mid + 1
        else:
            hi = mid - 1
    if best is None:
        raise GorillaError(f"n_ctx is too small for any prompt (budget {budget} tokens after max_tokens)",
                           hint="raise n_ctx or lower max_tokens in the config")  # fmt: skip
    notes.append("task cut to fit n_ctx")
    return best, kept, notes
