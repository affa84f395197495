"""A model answer's code fed the task's input (issue 37, items 1 and 6).

A model hub's call loads a model (``pipeline('translation_en_to_de', model=...)``, ``torch.hub.load(...)``);
the task's input (an image, audio or video file, an image's URL, quoted text, the text a colon hands over)
is for the code that uses it. The doc's example code feeds the model its own placeholder: a file name
(``Image.open('image.jpg')``, ``load_img('path/to/image.jpg')``), a name it never defines
(``Image.open(filename)``, ``classifier(audio_input)``), an example sentence (``translator('Hello, my dog is
cute')``, ``embed(['Hello world'])``, ``prompt = 'a photo of an astronaut'``). `feed` puts the task's value
in that slot, read with ast (never evaluated), and names it as an argument of origin "task"; an input the
code has no slot for is left unused, never forced in. A pipeline call shown alone (no example, or one that
fails the check) gets the two lines that apply it (``pipe = pipeline(...)``, ``pipe('meeting.wav')``)
when its task reads one input of that kind; so do diffusers' text-to-image pipelines and TensorFlow Hub's
text embeddings (APPLIED).

Kinds: "image", "audio", "video" (by a file's extension, a URL's path too) and "text" (quoted text, the
input a colon hands over, a .txt file read whole).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import PurePosixPath
from urllib.parse import urlsplit

from gorilla_tui.fill.candidate import literal
from gorilla_tui.fill.example_slots import find_slots, place
from gorilla_tui.fill.values import strings
from gorilla_tui.pool.apidoc import ApiDoc
from gorilla_tui.pool.examples import shape_of
from gorilla_tui.retrieve.query.handover import handed_input
from gorilla_tui.types import Argument

#: File extensions of each kind of input (the formats PIL, torchaudio/ffmpeg and torchvision's video
#: readers open).
EXTENSIONS = {
    "image": frozenset("jpg jpeg png bmp gif webp tif tiff".split()),
    "audio": frozenset("wav mp3 flac ogg m4a opus".split()),
    "video": frozenset("mp4 avi mov mkv webm".split()),
    "text": frozenset({"txt"}),
}
#: Words of a doc's domain that name its input's kind (APIBench's domains: "Computer Vision Image
#: Classification", "Audio Automatic Speech Recognition", "Text embedding", "Multimodal Image-to-Text").
_DOMAIN = (  # the first that matches: "Image-to-Text" reads an image, "Text-to-Speech" a text
    ("video", re.compile(r"\bvideo classification\b", re.IGNORECASE)),
    ("image", re.compile(r"image-to-text|visual question|document question", re.IGNORECASE)),
    ("text", re.compile(r"natural language|text-to-|^text", re.IGNORECASE)),
    (
        "image",
        re.compile(r"\bimage\b|vision|object detection|segmentation|depth|pose|^classification$", re.I),
    ),
    ("audio", re.compile(r"\baudio\b|speech", re.IGNORECASE)),
)
#: Hugging Face pipeline tasks (transformers' SUPPORTED_TASKS) whose one input is of a kind; tasks that
#: need a second input (question answering, zero-shot labels, a conversation) are not applied to one.
PIPELINE_KINDS = {
    **dict.fromkeys(
        (
            "image-classification",
            "object-detection",
            "image-segmentation",
            "image-to-text",
            "depth-estimation",
            "image-to-image",
            "mask-generation",
        ),
        "image",
    ),  # fmt: skip
    **dict.fromkeys(("automatic-speech-recognition", "audio-classification"), "audio"),
    "video-classification": "video",
    **dict.fromkeys(
        (
            "text-classification",
            "sentiment-analysis",
            "summarization",
            "text-generation",
            "text2text-generation",
            "fill-mask",
            "ner",
            "token-classification",
            "feature-extraction",
            "text-to-speech",
            "text-to-audio",
            "translation",
        ),
        "text",
    ),  # fmt: skip
}


@dataclass(frozen=True)
class TaskInput:
    """One input the task states. kind: "image", "audio", "video" or "text"; text: the value as the task
    writes it; form: "path", "url" or "text"."""

    kind: str
    text: str
    form: str

    @property
    def source(self) -> str:
        """The Python source that gives the value: its literal, ``open('notes.txt').read()`` for a text
        file."""
        if self.kind == "text" and self.form == "path":
            return f"open({literal(self.text)}).read()"
        return literal(self.text)


def _file_kind(text: str) -> str:
    """The kind of a file name, path or URL by its extension (EXTENSIONS), or ""."""
    path = urlsplit(text).path if shape_of(text) == "url" else text
    ext = PurePosixPath(path).suffix.lower().lstrip(".")
    return next((kind for kind, exts in EXTENSIONS.items() if ext in exts), "")


def task_inputs(task: str) -> list[TaskInput]:
    """The inputs `task` states, in its order: each file name, path or URL whose extension names a kind,
    and each quoted text or text a colon hands over (retrieve/query/handover.py handed_input) that is no
    file, path or URL (kind "text"). The values are fill/values.py strings' atomic ones: never invented."""
    handed = handed_input(task)
    out: list[TaskInput] = []
    for c in strings(task):
        if not c.atomic or not isinstance(c.value, str) or not c.value.strip():
            continue
        shape = shape_of(c.value)
        written = task[c.start : c.end]  # quoted text's span holds its quotes
        quoted = len(written) > 1 and written[0] in "'\"\u201c\u2018" and written[-1] in "'\"\u201d\u2019"
        kind = _file_kind(c.value) if shape in ("url", "path") else ""
        if kind:
            out.append(TaskInput(kind, c.value, "url" if shape == "url" else "path"))
        elif (quoted and shape != "url") or (handed is not None and (c.start, c.end) == handed):
            out.append(TaskInput("text", c.value, "text"))
    seen: set[str] = set()
    return [i for i in out if not (i.text in seen or seen.add(i.text))]


def doc_kind(doc: ApiDoc) -> str:
    """The kind of input `doc`'s model takes, read from its domain (_DOMAIN; its pipeline task for a
    pipeline call), or "" when neither says."""
    task = _pipeline_task(doc.call)
    if task in PIPELINE_KINDS:
        return PIPELINE_KINDS[task]
    return next((kind for kind, rx in _DOMAIN if rx.search(doc.domain)), "")


def _pipeline_task(call: str) -> str:
    """The task of a ``pipeline(...)`` call (its first argument or ``task=``; translation_en_to_de is
    "translation"), or "" for another call."""
    try:
        node = ast.parse(call.strip(), mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return ""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "pipeline"):
        return ""
    given = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "task"), None)
    if not (isinstance(given, ast.Constant) and isinstance(given.value, str)):
        return ""
    return "translation" if given.value.startswith("translation") else given.value


@dataclass
class Fed:
    """What `feed` gives: the code with the task's inputs in their slots, one Argument (origin "task") per
    input placed, and the texts of the inputs the code has no slot for (Proposal.unused)."""

    code: str
    arguments: list[Argument]
    unused: list[str]


def feed(doc: ApiDoc, code: str, task: str) -> Fed:
    """`code` (the proposal's code for `doc`, a model hub's doc) with each input `task` states
    (task_inputs) in the first slot of its kind (example_slots; the code is never run), or, for a
    ``pipeline(...)`` call shown alone, with the lines that apply it to the task's one input of the kind
    its pipeline task reads (apply_model). Inputs without a slot are listed unused; `code` is unchanged
    when the task states none."""
    inputs = task_inputs(task)
    if not inputs:
        return Fed(code, [], [])
    if code.strip() == doc.call.strip():
        applied = apply_model(doc, inputs)
        if applied is not None:
            return applied
    fed, arguments, unused = place(code, find_slots(code, _file_kind), inputs, doc_kind(doc))
    return Fed(fed, arguments, unused)


#: The call of a model object a doc's call loads, applied to one input, where the library documents it for
#: every model of the kind: (the loader's callee, a pattern the doc's domain matches, the input's kind,
#: the import, the name of the object, the line that applies it; {x} is the input). Diffusers' text-to-image
#: pipelines take the prompt first (``pipe(prompt).images``); TensorFlow Hub's text embeddings a batch of
#: strings (``embed(['...'])``).
APPLIED = (
    (re.compile(r"^(?:StableDiffusion|Diffusion)Pipeline\.from_pretrained$"), re.compile(r"Text-to-Image"),
     "text", "", "pipe", "image = pipe({x}).images[0]"),
    (re.compile(r"^hub\.load$"), re.compile(r"^Text embedding$"), "text", "", "embed", "print(embed([{x}]))"),
)  # fmt: skip


def _callee(call: str) -> str:
    try:
        node = ast.parse(call.strip(), mode="eval").body
        return ast.unparse(node.func) if isinstance(node, ast.Call) else ""
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return ""


def apply_model(doc: ApiDoc, inputs: list[TaskInput]) -> Fed | None:
    """For a call shown alone, the lines that apply the model it loads to the task's first input of the
    kind it reads, or None: a pipeline whose task reads one input of a kind (PIPELINE_KINDS; ``pipe =
    pipeline(...)``, ``print(pipe('meeting.wav'))``: a URL too, pipelines read images and audio from one),
    or a call of APPLIED. The other inputs are unused."""
    call = doc.call.strip()
    kind = PIPELINE_KINDS.get(_pipeline_task(call), "")
    if kind:
        head, apply = f"from transformers import pipeline\npipe = {call}", "print(pipe({x}))"
    else:
        callee = _callee(call)
        found = next((a for a in APPLIED if a[0].search(callee) and a[1].search(doc.domain)), None)
        if found is None:
            return None
        kind, head, apply = found[2], f"{found[4]} = {call}", found[5]
    fitting = [i for i in inputs if i.kind == kind and (i.form != "url" or kind != "text")]
    if not fitting:
        return None
    given = fitting[0]
    code = f"{head}\n{apply.format(x=given.source)}"
    unused = [i.text for i in inputs if i is not given]
    return Fed(code, [Argument(kind if kind != "text" else "inputs", given.source, "task")], unused)
