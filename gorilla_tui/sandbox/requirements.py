"""Missing-package report for a run: the module that failed to import and the `pip install` line to fix it."""

from __future__ import annotations

import re
import shlex
import sys
from dataclasses import dataclass
from typing import Any

from gorilla_tui.pool.doc import ApiDoc

#: Import names whose PyPI distribution is named differently (the common ones in APIBench's requirements).
DIST_NAME = {
    "PIL": "Pillow",
    "cv2": "opencv-python",
    "sklearn": "scikit-learn",
    "yaml": "PyYAML",
    "tensorflow_hub": "tensorflow-hub",
    "sentence_transformers": "sentence-transformers",
    "skimage": "scikit-image",
    "bs4": "beautifulsoup4",
}
#: Names in APIBench's env requirements that are not the distribution pip installs, lower-cased: PyPI's
#: "pytorch" is a stub that refuses to install (the distribution is torch); "python" is the interpreter.
#: None: left out.
_NOT_PIP = {"pytorch": "torch", "python": None}
#: Words APIBench writes before the names ("packages transformers", "library transformers", "import torch").
_PROSE = frozenset({"library", "libraries", "package", "packages", "import"})
_MISSING = re.compile(
    r"ModuleNotFoundError: No module named '([\w.]+)'|ImportError: No module named '?([\w.]+)'?"
    r"|ImportError: cannot import name '?\w+'? from '?([\w.]+)'?"
)
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*(\[[\w,.-]+\])?")
_VERSION = re.compile(r"^(==|>=|<=|~=|!=|>|<)\s*[\w.*]+$")


@dataclass(frozen=True)
class MissingPackage:
    """module: the top-level module that could not be imported; pip_line: the command to install it (shown
    to the person, never run by gorilla-tui); from_doc: True when taken from the doc's env_requirements,
    False when guessed from the module name."""

    module: str
    pip_line: str
    from_doc: bool


def missing_module(output: str) -> str | None:
    """The top-level module named by the first ModuleNotFoundError/ImportError in `output`, or None."""
    m = _MISSING.search(output)
    if not m:
        return None
    return next(g for g in m.groups() if g).split(".")[0]


def pip_requirements(requirements: list[str]) -> list[str]:
    """APIBench env_requirements items -> pip requirement specs.

    Handles the shapes found in APIBench: "transformers", "tensorflow >=2.0.0" (dict form, see
    pool.normalise_requirements), "pip install -U sentence-transformers", "!pip install timm", one name a
    line, names after prose ("packages transformers", "from transformers import pipeline"; _named) and
    git+ URLs. Standard library modules ("json", "urllib"), the interpreter ("Python>=3.8") and versions
    that are not specifiers ("latest", "2.x", "1.8.0+cu101") are dropped; import names are mapped to
    distribution names (DIST_NAME, and "PyTorch" to torch: _NOT_PIP).
    """
    specs: list[str] = []
    for line in (line for item in requirements for line in item.splitlines()):
        text = line.strip().lstrip("!").strip()
        if text.lower().startswith("pip install"):
            words = [w for w in text.split()[2:] if not w.startswith("-")]
        else:
            words = [_named(text)]
        for word in words:
            if word.startswith("git+"):  # pip installs a repository URL as it is
                specs += [word] if word not in specs else []
                continue
            m = _NAME.match(word)
            if not m:
                continue
            name = m.group(0)
            if name.split("[")[0] in sys.stdlib_module_names:
                continue
            name = _NOT_PIP.get(name.lower(), name)
            if name is None:
                continue
            version = word[m.end() :].strip()
            spec = DIST_NAME.get(name, name) + (version.replace(" ", "") if _VERSION.match(version) else "")
            if spec not in specs:
                specs.append(spec)
    return specs


def _named(text: str) -> str:
    """One requirement line without the prose around its name: "packages transformers" -> "transformers",
    "from transformers import pipeline" -> "transformers", "import tensorflow_hub as hub" ->
    "tensorflow_hub"; "version latest" (a version of nothing) -> ""."""
    words = text.split()
    if words and words[0].lower() in _PROSE:
        words = words[1:]
    if words and words[0].lower() == "from":
        words = words[1:2]
    if not words or words[0].lower() == "version":
        return ""
    if len(words) > 1 and words[1] in ("as", "import"):
        words = words[:1]
    return " ".join(words)


def missing_package(result: Any, doc: ApiDoc | None) -> MissingPackage | None:
    """A sandbox RunResult (or its output text) + the matched ApiDoc (or None) -> what is missing and how
    to install it, or None when the output shows no import failure. The pip line lists the doc's
    requirements when it has any, else the module's distribution name."""
    module = missing_module(result if isinstance(result, str) else result.output)
    if module is None:
        return None
    specs = pip_requirements(doc.env_requirements) if doc is not None else []
    from_doc = bool(specs)
    if not specs:
        specs = [DIST_NAME.get(module, module)]
    return MissingPackage(module, "pip install " + " ".join(shlex.quote(s) for s in specs), from_doc)
