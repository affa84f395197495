"""The input slots of a model doc's example code, and the task's inputs put in them (fill/example_input.py).

A slot is where the example feeds its model its own placeholder, found with ast (the code is never run):

- a file name, path or URL whose extension names a kind (``Image.open('image.jpg')``, ``url =
  'http://images.cocodataset.org/val2017/000000039769.jpg'``), unless a call writes it (``image.save(
  'out.png')``, ``dst='speech.wav'``);
- a name the code reads and never binds that names its input (``Image.open(filename)``, ``pipe(image)``):
  a name of a path or file at every use, a name of a kind (``image``, ``audio_input``) where a loader or a
  model object reads it (a file would be no tensor anywhere else);
- an example text: a string assigned to a name of text (``prompt = '...'``, ``sentences = ['...']``), or
  the first argument of a call of a model object the code binds (``translator('Hello, my dog is cute')``,
  ``embed(['Hello world'])``) or of an ``encode`` method.

A local path does not go where the example downloads a URL, unless the download is
``requests.get(url, stream=True).raw`` (or ``.content``), which is then left out
(``Image.open('photo.jpg')``);
a URL goes where a URL is read, or a model object takes its input (Hugging Face pipelines read URLs).
"""

from __future__ import annotations

import ast
import builtins
import re
from dataclasses import dataclass, field
from typing import Protocol

from gorilla_tui.types import Argument

#: Calls that read an input file (PIL, Keras, TensorFlow, OpenCV, torchaudio, librosa, soundfile,
#: torchvision).
_LOADERS = re.compile(
    r"(?:^|\.)(?:open|load_img|read_file|imread|load|read|read_image|read_video|VideoCapture|get|urlopen)$"
)
_WRITES = re.compile(r"(?:^|[._])(?:save|savefig|imwrite|write|to_file|export|dump)\w*$")
_OUTPUT = re.compile(r"^(?:dst|out|output|save|target|dest)\w*$|_out$")
_PATH_WORDS = re.compile(r"(?:^|_)(?:filename|file|path|filepath|fname|url|uri)s?(?:_|$)", re.IGNORECASE)
_KIND_WORDS = (
    ("image", re.compile(r"(?:^|_)(?:image|img|photo|picture|pic)s?(?:_|$)", re.IGNORECASE)),
    (
        "audio",
        re.compile(r"(?:^|_)(?:audio|speech|sound|wav|waveform|recording|voice)(?:_|$)", re.IGNORECASE),
    ),
    ("video", re.compile(r"(?:^|_)(?:video|clip)s?(?:_|$)", re.IGNORECASE)),
    (
        "text",
        re.compile(
            r"(?:^|_)(?:text|texts|sentence|sentences|prompt|prompts|article|sequence|review|tweet|message|"
            r"paragraph|passage|document|utterance|src)(?:_|$)",
            re.IGNORECASE,
        ),
    ),  # fmt: skip
)
#: Methods whose first argument is a model's text input (sentence-transformers' and tokenizers' encode).
_TEXT_METHODS = frozenset({"encode", "encode_plus", "batch_encode_plus", "predict"})


class Input(Protocol):
    """What a slot takes (fill/example_input.py TaskInput): kind, text, form and the Python source."""

    kind: str
    text: str
    form: str

    @property
    def source(self) -> str: ...


@dataclass
class Slot:
    """One slot. kind: "image", "audio", "video", "text", or "file" (any kind: the doc's); form: "path",
    "url", "text" or "name" (a name never bound); name: the argument's name to report; spans: (start, end)
    character offsets of the code to replace; as_list: the slot is a list of example texts (the input goes
    in as a list of one); reads_url: a URL may go there; model_reads: a model object reads it (a pipeline
    reads a path or a URL); unwrap: (start, end, text) edits that take out a download when a local path
    goes in (text "": the value itself)."""

    kind: str
    form: str
    name: str
    spans: list[tuple[int, int]]
    as_list: bool = False
    reads_url: bool = False
    model_reads: bool = False
    unwrap: list[tuple[int, int, str]] = field(default_factory=list)


def kind_of_name(name: str) -> str:
    """The kind a name of the example stands for (_KIND_WORDS), "file" for a path's name, or ""."""
    kind = next((k for k, rx in _KIND_WORDS if rx.search(name)), "")
    return kind or ("file" if _PATH_WORDS.search(name) else "")


def _callee(node: ast.Call) -> str:
    try:
        return ast.unparse(node.func)
    except (ValueError, RecursionError):  # pragma: no cover - a parsed callee unparses
        return ""


class _Code:
    """The parsed example: offsets, parents, bound names."""

    def __init__(self, code: str, tree: ast.Module) -> None:
        self.code = code
        lines = code.splitlines(keepends=True)
        self._lines = lines
        self._starts = [0]
        for line in lines:
            self._starts.append(self._starts[-1] + len(line))
        self.parent: dict[int, ast.AST] = {}
        self.bound: set[str] = set(dir(builtins))
        self.models: set[str] = set()  # names bound to a call's result: model objects, pipelines, processors
        self.pipelines: set[str] = set()  # names bound to ``pipeline(...)``: they read a path or a URL too
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                self.parent[id(child)] = node
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                self.bound.add(node.id)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                self.bound.update((a.asname or a.name).split(".")[0] for a in node.names)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.bound.add(node.name)
            elif isinstance(node, ast.arg):
                self.bound.add(node.arg)
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
                made = isinstance(node.value.func, ast.Name) and node.value.func.id == "pipeline"
                for target in node.targets:
                    for n in ast.walk(target):
                        if isinstance(n, ast.Name):
                            self.models.add(n.id)
                            if made:
                                self.pipelines.add(n.id)

    def span(self, node: ast.AST) -> tuple[int, int]:
        """(start, end) character offsets of `node` in the code (ast's columns are UTF-8 bytes)."""
        return self._offset(node.lineno, node.col_offset), self._offset(node.end_lineno, node.end_col_offset)

    def _offset(self, line: int | None, col: int | None) -> int:
        text = self._lines[(line or 1) - 1]
        return self._starts[(line or 1) - 1] + len(text.encode("utf-8")[: col or 0].decode("utf-8", "ignore"))

    def up(self, node: ast.AST) -> ast.AST | None:
        return self.parent.get(id(node))

    def text(self, node: ast.AST) -> str:
        start, end = self.span(node)
        return self.code[start:end]


def _writes(c: _Code, node: ast.AST) -> bool:
    """Whether the value `node` is a file a call writes or an output's name (no input slot)."""
    up = c.up(node)
    if isinstance(up, ast.keyword) and up.arg and _OUTPUT.search(up.arg):
        return True
    if isinstance(up, ast.keyword):
        up = c.up(up)
    if isinstance(up, ast.Call) and node is not up.func and _WRITES.search(_callee(up)):
        return True
    if isinstance(up, ast.Assign):
        return any(isinstance(t, ast.Name) and _OUTPUT.search(t.id) for t in up.targets)
    return False


def _fed_to_model(c: _Code, node: ast.AST, pipeline: bool = False) -> bool:
    """Whether `node` is an argument (or a keyword's value) of a call of a name the code binds to a call's
    result (a model object or pipeline: ``classifier(x)``, ``processor(images=x)``); with `pipeline`, of a
    name bound to ``pipeline(...)`` (transformers' pipelines read a file's path or a URL; a Torch or
    TensorFlow model takes a tensor, never a file's name)."""
    up = c.up(node)
    if isinstance(up, ast.keyword):
        up = c.up(up)
    names = c.pipelines if pipeline else c.models
    return isinstance(up, ast.Call) and isinstance(up.func, ast.Name) and up.func.id in names


def _read_by_loader(c: _Code, node: ast.AST) -> bool:
    up = c.up(node)
    if isinstance(up, ast.keyword):
        up = c.up(up)
    return isinstance(up, ast.Call) and node is not up.func and bool(_LOADERS.search(_callee(up)))


def _download(c: _Code, node: ast.AST) -> ast.AST | None:
    """The expression that downloads `node` (a URL or its name) and that a local path replaces whole:
    ``requests.get(node, ...).raw`` / ``.content`` (inside ``BytesIO(...)`` too), or None."""
    call = c.up(node)
    if not (isinstance(call, ast.Call) and _callee(call).endswith("requests.get") and call.args
            and call.args[0] is node):  # fmt: skip
        return None
    attr = c.up(call)
    if not (isinstance(attr, ast.Attribute) and attr.attr in ("raw", "content")):
        return None
    outer = c.up(attr)
    if isinstance(outer, ast.Call) and _callee(outer).endswith("BytesIO") and outer.args == [attr]:
        return outer
    return attr


def _uses(c: _Code, tree: ast.AST, name: str) -> list[ast.Name]:
    return [
        n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
    ]


def find_slots(code: str, file_kind: object) -> list[Slot]:
    """The input slots of `code` in source order (see the module's docstring), [] for code Python cannot
    parse. `file_kind`: a callable text -> the kind of a file name, path or URL by its extension, or ""."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return []
    c = _Code(code, tree)
    kind_by_ext = file_kind if callable(file_kind) else (lambda _t: "")
    slots: list[Slot] = []
    taken: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in taken:
            slot = _constant_slot(c, tree, node, kind_by_ext)
            if slot is not None:
                slots.append(slot)
                taken.add(id(node))
    free: dict[str, list[ast.Name]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in c.bound:
            free.setdefault(node.id, []).append(node)
    for name, uses in list(free.items()):  # a key (``dataset[0][file]``) names a field, not the input
        if any(isinstance(up := c.up(u), ast.Subscript) and up.slice is u for u in uses):
            del free[name]
    for name, uses in free.items():
        kind = kind_of_name(name)
        pathlike = bool(_PATH_WORDS.search(name))
        if not kind:
            continue
        fed = any(_fed_to_model(c, u, pipeline=True) for u in uses)
        if kind != "text" and not pathlike and not fed and not any(_read_by_loader(c, u) for u in uses):
            continue
        reads_url = fed or any(_callee_is(c, u, ("requests.get", "urlopen")) for u in uses)
        many = any(isinstance(up := c.up(u), (ast.comprehension, ast.For)) and up.iter is u for u in uses)
        slots.append(Slot(kind, "name", name, [c.span(u) for u in uses], as_list=many, reads_url=reads_url,
                          model_reads=fed))  # fmt: skip
    return sorted(slots, key=lambda s: s.spans[0])


def _callee_is(c: _Code, node: ast.AST, ends: tuple[str, ...]) -> bool:
    up = c.up(node)
    return isinstance(up, ast.Call) and _callee(up).endswith(ends)


def _constant_slot(c: _Code, tree: ast.AST, node: ast.Constant, kind_by_ext: object) -> Slot | None:
    """The slot of a string constant, or None (see find_slots)."""
    value = node.value
    if _writes(c, node):
        return None
    kind = kind_by_ext(value) if callable(kind_by_ext) else ""
    up = c.up(node)
    target = (
        next((t.id for t in up.targets if isinstance(t, ast.Name)), "") if isinstance(up, ast.Assign) else ""
    )
    keyword = up.arg if isinstance(up, ast.keyword) and up.arg else ""
    if kind:
        url = value.startswith(("http://", "https://"))
        span, many = c.span(node), False
        if isinstance(up, ast.List) and all(
            isinstance(e, ast.Constant) and isinstance(e.value, str) and kind_by_ext(e.value) for e in up.elts
        ):  # ``audio_paths = ['a.wav', 'b.wav']``: the task's file alone, as a list of one
            if up.elts[0] is not node:
                return None
            span, many, up = c.span(up), True, c.up(up)
            target = (
                next((t.id for t in up.targets if isinstance(t, ast.Name)), "")
                if isinstance(up, ast.Assign)
                else ""
            )
        name = target or keyword or kind
        fed = _fed_to_model(c, node, pipeline=True)
        slot = Slot(kind, "url" if url else "path", name, [span], as_list=many, reads_url=url or fed,
                    model_reads=fed)  # fmt: skip
        if url:
            # where the URL is downloaded with requests, a local path replaces the download
            at = [node] + (_uses(c, tree, target) if target else [])
            for use in at:
                got = _download(c, use)
                if got is not None:
                    start, end = c.span(got)
                    slot.unwrap.append((start, end, "" if use is node else c.text(use)))
        return slot
    if "/" in value and " " not in value or not value.strip():
        return None  # a model id ('facebook/bart-large-cnn'), a URL of a model, nothing
    holder: ast.AST = node
    as_list = False
    if isinstance(up, ast.List) and all(
        isinstance(e, ast.Constant) and isinstance(e.value, str) for e in up.elts
    ):
        if up.elts[0] is not node:
            return None
        holder, as_list = up, True
        up = c.up(up)
        target = (
            next((t.id for t in up.targets if isinstance(t, ast.Name)), "")
            if isinstance(up, ast.Assign)
            else ""
        )
        keyword = up.arg if isinstance(up, ast.keyword) and up.arg else ""
    if target and kind_of_name(target) == "text":
        return Slot("text", "text", target, [c.span(holder)], as_list=as_list)
    if keyword in ("text", "texts", "text_inputs", "inputs", "prompt", "sequences") and _fed_to_model(
        c, holder
    ):
        return Slot("text", "text", keyword, [c.span(holder)], as_list=as_list)
    call = c.up(holder)
    if isinstance(call, ast.Call) and call.args and call.args[0] is holder:
        method = isinstance(call.func, ast.Attribute) and call.func.attr in _TEXT_METHODS
        if method or (isinstance(call.func, ast.Name) and call.func.id in c.models):
            return Slot("text", "text", "text", [c.span(holder)], as_list=as_list)
    return None


def fits(slot: Slot, given: Input, doc_kind: str) -> bool:
    """Whether `given` may go into `slot`: the same kind (a "file" slot: the doc's kind), and a form it
    reads (a URL where a URL is read; a local path where a URL is read only when its download can be left
    out, or a model object reads it)."""
    kind = doc_kind if slot.kind == "file" else slot.kind
    if kind != given.kind:
        return False
    if given.form == "url":
        return slot.reads_url or slot.form == "url"
    return slot.form != "url" or bool(slot.unwrap) or slot.model_reads


def place(
    code: str, slots: list[Slot], inputs: list[Input], doc_kind: str
) -> tuple[str, list[Argument], list[str]]:
    """(code, arguments, unused): each input, in the task's order, in the first free slot it fits (one
    input per slot; a list slot, ``sentences = ['...', '...']``, takes every later input of its kind that
    fits it too, in the task's order), the code edited from its end so offsets hold; an Argument (origin
    "task") per slot filled, the text of each input no slot took."""
    edits: list[tuple[int, int, str]] = []
    arguments: list[Argument] = []
    unused: list[str] = []
    free = list(slots)
    placed: set[int] = set()
    for n, given in enumerate(inputs):
        if n in placed:
            continue
        slot = next((s for s in free if fits(s, given, doc_kind)), None)
        if slot is None:
            unused.append(given.text)
            continue
        free.remove(slot)
        taken = [given]
        if slot.as_list:
            more = [
                m for m in range(n + 1, len(inputs)) if m not in placed and fits(slot, inputs[m], doc_kind)
            ]
            placed.update(more)
            taken += [inputs[m] for m in more if inputs[m].form == given.form]
            unused += [inputs[m].text for m in more if inputs[m].form != given.form]
        value = f"[{', '.join(t.source for t in taken)}]" if slot.as_list else given.source
        edits += [(start, end, value) for start, end in slot.spans]
        if given.form != "url":
            edits += [(start, end, text or value) for start, end, text in slot.unwrap]
        arguments.append(Argument(slot.name, value, "task"))
    for start, end, text in sorted(_outermost(edits), reverse=True):
        code = code[:start] + text + code[end:]
    return code, arguments, unused


def _outermost(edits: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """The edits none of which lies inside another (a download left out holds the URL's name)."""
    out = []
    for e in edits:
        inner = any(
            o is not e and o[0] <= e[0] and e[1] <= o[1] and (o[0], o[1]) != (e[0], e[1]) for o in edits
        )
        if not inner:
            out.append(e)
    return out
