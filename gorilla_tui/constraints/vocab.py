"""The words of task constraints: device budgets (DEVICES), providers (PROVIDERS: organisations and their
hub owner names) and frameworks (FRAMEWORKS), with the patterns that find them in a task and the rules
that match a doc's publisher or framework against them."""

from __future__ import annotations

import re

from gorilla_tui.pool.metrics import DATASETS

# ---------------------------------------------------------------------------------------------------------
# device budgets: our documented heuristics (docs/constraints.md gives the reasoning and sources)

#: device -> (regex over the task, budgets as (metric, op, value)). Memory budgets are for fp32 weights
#: (4 bytes per parameter) using at most a quarter of the smallest RAM of the device family.
DEVICES: list[tuple[str, str, list[tuple[str, str, float]]]] = [
    # STM32F746-class MCU: 320 KB SRAM, 1 MB flash (MCUNet, Lin et al. 2020, arXiv 2007.10319): weights
    # must fit in 1 MB flash (int8: ~1 M params); MCUNet's ImageNet models run 0.07-0.17 G MACs.
    (
        "microcontroller",
        r"micro-?controllers?|mcu|arduino|esp32|cortex-m\d*|stm32",
        [("size_mb", "<=", 1.0), ("params", "<=", 1.0), ("flops", "<=", 0.2)],
    ),
    # Phones: the "mobile setting" of NASNet (Zoph et al. 2018) / DARTS (Liu et al. 2019) is < 600 M
    # multiply-adds; MobileNetV2 (3.4 M), NASNet-A mobile (5.3 M) and MobileNetV3-L (5.4 M) sit under
    # ~6 M params.
    (
        "phone",
        r"(?:smart|mobile |cell |android |ios )?phones?|mobile (?:device|app)s?|android|iphone"
        r"|on[- ]device|on mobile",
        [("flops", "<=", 0.6), ("params", "<=", 6.0)],
    ),
    # Raspberry Pi 4: 1-8 GB RAM (1 GB -> 256 MB of fp32 weights -> 64 M params); ~13.5 GFLOPS usable on
    # its 4 Cortex-A72 cores, so one inference per second allows ~13.5 GFLOPs.
    (
        "Raspberry Pi",
        r"raspberry\s*pi|rpi|pi\s*[345]",
        [("params", "<=", 64.0), ("flops", "<=", 13.5)],
    ),
    # Jetson Nano: 4 GB shared RAM (1 GB -> 256 M params), 472 GFLOPS fp16 peak (NVIDIA spec sheet); edge
    # budget assumes 10 inferences per second -> 47 GFLOPs.
    (
        "Jetson / edge device",
        r"jetson|edge\s+(?:device|hardware|computing|tpu)s?|on the edge|embedded|iot",
        [("params", "<=", 256.0), ("flops", "<=", 47.0)],
    ),
    # Laptop CPU: 8 GB RAM (2 GB -> 512 M params); ~100 GFLOPS on 4 AVX2 cores -> one inference a second.
    (
        "laptop CPU",
        r"laptop|notebook computer|(?:on|a|my) cpu|cpu[- ]only",
        [("params", "<=", 512.0), ("flops", "<=", 100.0)],
    ),
]

#: Device patterns, matched as whole words only ("microphone" is not a phone, "pip" not a Pi).
DEVICE_RES = [(name, re.compile(rf"\b(?:{pattern})\b", re.IGNORECASE), b) for name, pattern, b in DEVICES]

# ---------------------------------------------------------------------------------------------------------
# providers: an organisation or repository named in the task is a constraint like the others

#: Organisation key -> the owner names it publishes under on the hubs (torch.hub repo owners, Hugging Face
#: model-id owners, tfhub.dev publishers), compared lower-case with "-" and "_" removed, by prefix
#: ("facebook" covers "facebookresearch"). Only these names are read as providers, so "sort by date" or
#: "from scratch" never become one; an "owner/repo" id after from/by/in/of/using is read as written.
PROVIDERS: dict[str, tuple[str, ...]] = {
    "nvidia": ("nvidia",),
    "facebook": ("facebook", "meta", "fair"),
    "google": ("google", "tensorflow", "deepmind"),
    "microsoft": ("microsoft",),
    "openai": ("openai",),
    "intel": ("intel",),
    "huawei": ("huawei",),
    "pytorch": ("pytorch",),
    "ultralytics": ("ultralytics",),
    "silero": ("snakers4", "silero"),
    "hugging face": ("huggingface",),
    "salesforce": ("salesforce",),
    "stability ai": ("stabilityai", "runwayml", "compvis"),
}
#: A provider word of a task -> its organisation key of PROVIDERS.
PROVIDER_WORDS = {
    "nvidia": "nvidia", "facebook": "facebook", "meta": "facebook", "facebookresearch": "facebook",
    "fair": "facebook", "google": "google", "deepmind": "google", "microsoft": "microsoft",
    "openai": "openai", "intel": "intel", "huawei": "huawei", "ultralytics": "ultralytics",
    "silero": "silero", "hugging face": "hugging face", "huggingface": "hugging face",
    "salesforce": "salesforce", "stability ai": "stability ai", "stabilityai": "stability ai",
}  # fmt: skip
_NAMES = "|".join(
    sorted((re.escape(w).replace(r"\ ", r"\s+") for w in PROVIDER_WORDS), key=len, reverse=True)
)
#: Products named after their maker are not a provider constraint ("with google maps", "meta data").
_PRODUCT = r"\s+(?:maps|calendar|sheets|forms|drive|cloud|mail|translate|search|data|llama|ads)\b"
#: An organisation named as a provider: "by facebook", "an NVIDIA model", "google's model".
PROVIDER_RE = re.compile(
    rf"\b(?:(?:made|trained|released|published|built|developed)\s+)?(?:by|from)\s+(?:the\s+)?(?P<a>{_NAMES})\b"
    rf"(?!{_PRODUCT})|\b(?:an?|the|their|some)\s+(?P<b>{_NAMES})(?:'s)?\s+(?:model|network|net|checkpoint|"
    r"implementation|architecture|version|one)s?\b|\b(?P<c>"
    + _NAMES
    + r")'s\s+(?:own\s+)?(?:model|network)s?\b",
    re.IGNORECASE | re.ASCII,  # ASCII case only: the match keys _PROVIDER_WORDS ("nvıdia" is none; R19-1)
)
#: An "owner/repo" id after from/by/in/of/using/use/with ("from pytorch/vision").
REPO_RE = re.compile(
    r"\b(?:from|by|in|of|using|use|with)\s+(?:the\s+)?(?:(?:github|hub)\s+)?(?:repo(?:sitory)?\s+)?"
    r"['\"`]?(?P<repo>[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*?)['\"`]?(?=[\s,;:)]|\.?$|\.\s)",
    re.IGNORECASE,
)


def owner_key(name: str) -> str:
    """Lower-case owner name with "-", "_", "." and spaces removed ("NVIDIA" -> "nvidia", "intel-isl" ->
    "intelisl")."""
    return re.sub(r"[\s_.-]", "", name.lower())


def provider_matches(wanted: str, repo_id: str) -> bool:
    """Whether a doc's "owner/repo" id (lower case, see pool.metrics.provider_id) meets a provider
    constraint value: an organisation key of PROVIDERS (the owner starts with one of its names) or an
    "owner/repo" id (equal, or a path prefix of it: "google/imagenet" covers "google/imagenet/x/1")."""
    owner = owner_key(repo_id.split("/", 1)[0])
    if "/" in wanted:
        return repo_id == wanted or repo_id.startswith(wanted + "/")
    return any(owner.startswith(owner_key(n)) for n in PROVIDERS.get(wanted, (wanted,)))


# ---------------------------------------------------------------------------------------------------------
# frameworks: "with pytorch", "a tensorflow hub model", "using hugging face" name the library the API is for

#: Framework key -> (its name for people, the sources that are that framework's hub, words of a doc's
#: `framework` field that mean it, the task words that name it as a regular expression matched as whole
#: words). The doc side is the APIBench `framework` field (Torch Hub "PyTorch"/"PyTorchVideo", TensorFlow
#: Hub "TensorFlow Hub", Hugging Face "Hugging Face Transformers", "Transformers", "Diffusers", ...; checked
#: against ../shared/apibench/api). A person who names the library wants an API of that library: with every
#: source in one index (the default), "... with pytorch" must not be answered from TensorFlow Hub.
FRAMEWORKS: dict[str, tuple[str, tuple[str, ...], tuple[str, ...], str]] = {
    "pytorch": (
        "PyTorch", ("torchhub",), ("pytorch",),
        r"py\s?torch(?:\s?video)?|torch\s?hub|torch\s?vision|torch",
    ),
    "tensorflow": (
        "TensorFlow", ("tensorflowhub",), ("tensorflow",),
        r"tensor\s?flow(?:\s?hub)?|tf[\s.-]?hub|tf\.keras|tf2|keras",
    ),
    "hugging face": (
        "Hugging Face", ("huggingface",), ("hugging face", "transformers", "diffusers"),
        r"hugging\s?face|hf\s?hub|(?:sentence-)?transformers|diffusers",
    ),
}  # fmt: skip
#: Whole words, and not part of an "owner/repo" id ("from pytorch/vision" is a provider constraint).
FRAMEWORK_RES = [
    (key, re.compile(rf"(?<![\w/])(?:{spec[3]})(?![\w/])", re.IGNORECASE)) for key, spec in FRAMEWORKS.items()
]


#: Between the keys of a framework constraint naming several frameworks ("pytorch|tensorflow").
ANY_OF = "|"


def framework_keys(value: str) -> list[str]:
    """The FRAMEWORKS keys of a framework constraint's value: "pytorch" -> ["pytorch"], "pytorch|tensorflow"
    -> ["pytorch", "tensorflow"] (a task naming two frameworks allows either, constraints.parse
    _frameworks_in)."""
    return [k for k in str(value).split(ANY_OF) if k]


def framework_matches(wanted: str, source: str, framework: str) -> bool:
    """Whether a doc of `source` (its short name) with `framework` (its APIBench framework field, may be
    "") is an API of framework key `wanted` (FRAMEWORKS), or of any of the keys `wanted` joins with ANY_OF:
    the source is that framework's hub, or the field names it ("PyTorch Transformers" is PyTorch). An
    unknown key matches nothing."""
    field = framework.lower()
    for key in framework_keys(wanted):
        spec = FRAMEWORKS.get(key)
        if spec is not None and (source in spec[1] or any(word in field for word in spec[2])):
            return True
    return False


def without_frameworks(task: str) -> str:
    """`task` with the words that name a framework (FRAMEWORKS) taken out, spaces collapsed; "" when
    nothing else is left. Inside that framework's own hub the words carry no information but still score:
    "summarize a text with hugging face" searched in Hugging Face alone matched "face" (text-to-video and
    face models) before any summarization doc, on the default index."""
    for _key, rx in FRAMEWORK_RES:
        task = rx.sub(" ", task)
    return " ".join(task.split())


# ---------------------------------------------------------------------------------------------------------
# datasets a task names (accuracy bounds are read against them: parse.py)

#: (canonical key of pool.metrics.DATASETS, the pattern of its aliases).
DATASET_RES = [
    (key, re.compile(r"\b(?:" + "|".join(re.escape(a) for a in aliases) + r")\b", re.IGNORECASE))
    for key, aliases in {
        "imagenet": ("imagenet", "imagenet-1k", "ilsvrc"),
        "coco": ("coco", "ms coco", "ms-coco"),
        "kinetics400": ("kinetics-400", "kinetics 400", "kinetics400", "kinetics"),
        "kinetics600": ("kinetics-600", "kinetics 600"),
        "kinetics700": ("kinetics-700", "kinetics 700"),
        "cityscapes": ("cityscapes",),
        "pascalvoc": ("pascal voc", "pascal-voc", "voc 2012", "voc2012", "pascal"),
        "ade20k": ("ade20k", "ade-20k"),
        "cifar10": ("cifar-10", "cifar10"),
        "cifar100": ("cifar-100", "cifar100"),
        "bdd100k": ("bdd100k", "bdd 100k"),
        "audioset": ("audioset",),
        "openimages": ("open images", "openimages", "open-images"),
    }.items()
]
assert all(k in DATASETS for k, _ in DATASET_RES)


def datasets_in(text: str) -> list[str]:
    """Canonical keys of datasets named in text, in order, longest alias wins (Kinetics-700 over Kinetics)."""
    found: list[tuple[int, str]] = []
    taken: list[tuple[int, int]] = []
    for key, rx in sorted(DATASET_RES, key=lambda kr: -len(kr[1].pattern)):
        for m in rx.finditer(text):
            if not any(a <= m.start() < b for a, b in taken):
                found.append((m.start(), key))
                taken.append((m.start(), m.end()))
    return [k for _, k in sorted(found)]
