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
    pool.normalise_requirements), "pip install -U sentence-transformers", "!pip install timm". Standard
    library modules ("json", "urllib") and versions that are not specifiers ("latest", "2.x") are dropped;
    import names are mapped to distribution names (DIST_NAME).
    """
    specs: list[str] = []
    for item in requirements:
        text = item.strip().lstrip("!").strip()
        if text.lower().startswith("pip install"):
            words = [w for w in text.split()[2:] if not w.startswith("-")]
        else:
            words = [text]
        for word in words:
            m = _NAME.match(word)
            if not m:
                continue
            name = m.group(0)
            if name.split("[")[0] in sys.stdlib_module_names:
                continue
            version = word[m.end() :].strip()
            spec = DIST_NAME.get(name, name) + (version.replace(" ", "") if _VERSION.match(version) else "")
            if spec not in specs:
                specs.append(spec)
    return specs


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
