"""Benchmark: false `valid` verdicts on mutated pool calls, on the default index (hubs + APIZoo + python-env).

Run: python bench/false_valid.py [--shared DIR] [--no-write]. Builds the default index in a temporary
GORILLA_TUI_HOME (`index --refresh --from SHARED/apibench/api --from SHARED/apizoo`; python-env is a default
source), then takes every api_call of the three APIBench hubs and APIZoo (the repaired call for flagged
entries that have one; still-flagged entries are left out), and checks:
- the unmutated call, alone and with 1-3 incidental calls around it, must be `valid`;
- each mutation of its identifying argument (a digit off by one, a hyphen removed or added, the repo owner
  changed, the loader replaced by `torch.load`; for APIZoo, whose arguments are mostly placeholders, the
  method name cut by one letter) must never be `valid`, alone and with 1-3 incidental calls
  (print, json, os, logging, a method of the result, a functools.partial wrapper) around it.
A mutation that yields another pool entry's identity is skipped (counted). Target (issue 15): 0 valid
among the mutated snippets, every unmutated snippet valid. Prints the figures and writes the
"False valid" section of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._report import write_section  # noqa: E402
from gorilla_tui.check.callsite import scan  # noqa: E402
from gorilla_tui.check.signature import family, primary_call, requirement  # noqa: E402
from gorilla_tui.check.validator import Validator  # noqa: E402

SOURCES = ("torchhub", "tensorflowhub", "huggingface", "apizoo")
#: Incidental contexts: {call} is the API call, {name} the variable it is assigned to.
CONTEXTS = (
    "{name} = {call}",
    "import json\n{name} = {call}\nprint(json.dumps({{'loaded': True}}))",
    "import os\nimport logging\nos.makedirs('out', exist_ok=True)\n{name} = {call}\nlogging.info('ready')",
    "import functools\nload = functools.partial(lambda: None)\n{name} = {call}\n{name}.eval()\nprint({name})",
)
WRAPPED = (
    "import functools\nimport os\nload = functools.partial({callee}, {args})\n{name} = load()\n"
    "print(os.getcwd())"
)
KINDS = ("digit", "hyphen", "owner", "loader", "method")
#: Callees whose loader is swapped for torch.load in the "loader" mutation.
LOADERS = ("torch.hub.load", "hub.KerasLayer", "hub.load")


def _digit(value: str) -> str | None:
    m = re.search(r"\d", value)
    if m is None:
        return None
    d = str((int(m.group()) + 1) % 10)
    return value[: m.start()] + d + value[m.end() :]


def _hyphen(value: str) -> str | None:
    if "-" in value:
        return value.replace("-", "", 1)
    m = re.search(r"[a-z][A-Z0-9]|[a-z](?=[a-z]{3}$)", value)
    return value[: m.start() + 1] + "-" + value[m.start() + 1 :] if m else None


def _owner(value: str) -> str | None:
    if "/" not in value or "://" in value:
        return None
    owner, rest = value.split("/", 1)
    return f"{owner}x/{rest}" if owner else None


def mutations(call_text: str, validator: Validator) -> list[tuple[str, str]]:
    """(kind, mutated call text) for one pool call: its identifying string values mutated (digit, hyphen,
    owner), and its loader replaced by torch.load (family calls). Mutations that give a value some pool
    entry of the same callee has are left out (they are not wrong)."""
    found = scan(call_text)
    call = primary_call(found.calls)
    if call is None:
        return []
    req = requirement(call)
    table = validator.tables.get(req.callee)
    taken = {v for e in (table.entries if table else []) for _, v in e.req.slots}
    out: list[tuple[str, str]] = []
    for slot, value in req.slots:
        if not value or value.startswith("\x00") or slot in ("task", "."):
            continue
        for kind, fn in (("digit", _digit), ("hyphen", _hyphen), ("owner", _owner)):
            new = fn(value)
            if new and new != value and new not in taken:
                quoted = re.search(r"(['\"])" + re.escape(value) + r"/?\1", call_text)
                if quoted:
                    q = quoted.group(1)
                    out.append((kind, call_text.replace(quoted.group(), f"{q}{new}{q}", 1)))
    name = req.callee.rsplit(".", 1)[-1]
    if family(req.callee) is None and len(name) > 3 and f".{name}(" in call_text:  # APIZoo: the callee
        wrong = req.callee[: -len(name)] + name[:-1]
        if wrong not in validator.tables:
            out.append(("method", call_text.replace(f".{name}(", f".{name[:-1]}(", 1)))
    if req.callee in LOADERS or req.callee.endswith("from_pretrained"):
        head = call.text.split("(", 1)
        out.append(("loader", call_text.replace(call.text, "torch.load(" + head[1], 1)))
    return out


def build_index(shared: Path, home: Path) -> None:
    env = dict(os.environ, GORILLA_TUI_HOME=str(home), HF_HUB_OFFLINE="1", PYTHONPATH=str(ROOT))
    api, zoo = str(shared / "apibench" / "api"), str(shared / "apizoo")
    cmd = [sys.executable, "-m", "gorilla_tui", "index", "--refresh", "--from", api, "--from", zoo, "--json"]
    subprocess.run(cmd, env=env, check=True, capture_output=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", default=str(ROOT.parent / "shared"))
    ap.add_argument("--no-write", action="store_true", help="print only, do not update docs/benchmarks.md")
    ap.add_argument(
        "--home", help="an existing GORILLA_TUI_HOME holding the default index (read only; else one is built)"
    )
    args = ap.parse_args()
    shared = Path(args.shared)
    with tempfile.TemporaryDirectory() as tmp:
        if args.home:
            home = args.home
        else:
            build_index(shared, Path(tmp))
            home = tmp
        os.environ["GORILLA_TUI_HOME"] = home
        from gorilla_tui.retrieve.index import ApiIndex  # reads GORILLA_TUI_HOME: after the build

        pool = ApiIndex.load().pool(None)
    sources = Counter(d.source for d in pool)
    validator = Validator(pool)
    t0 = time.perf_counter()
    rows: dict[str, Counter[str]] = {s: Counter() for s in SOURCES}
    false_valid: list[str] = []
    not_valid: list[str] = []
    for doc in pool:
        if doc.source not in SOURCES or doc.kind != "python" or (doc.flagged and not doc.repaired):
            continue
        row = rows[doc.source]
        call = doc.call.strip()
        for i, ctx in enumerate(CONTEXTS):
            v = validator.check(ctx.format(call=call, name="model"))
            row["clean"] += 1
            if v.kind == "valid":
                row["clean valid"] += 1
            elif len(not_valid) < 10:
                not_valid.append(f"{doc.id} ctx{i}: {v.kind} {v.reason} {call[:90]}")
        for kind, mutated in mutations(call, validator):
            snippets = [ctx.format(call=mutated, name="model") for ctx in CONTEXTS]
            head = mutated.split("(", 1)
            if len(head) == 2 and head[1].endswith(")") and re.fullmatch(r"[\w.]+", head[0]):
                snippets.append(WRAPPED.format(callee=head[0], args=head[1][:-1] or "None", name="model"))
            for snippet in snippets:
                v = validator.check(snippet)
                row["mutated"] += 1
                row[f"mutated {kind}"] += 1
                if v.kind == "valid":
                    row["mutated valid"] += 1
                    if len(false_valid) < 10:
                        false_valid.append(f"{doc.id} {kind}: {snippet!r}"[:200])
    seconds = time.perf_counter() - t0
    total = Counter()
    for row in rows.values():
        total.update(row)
    print(f"pool: {dict(sources)}; {seconds:.1f} s")
    for name, row in [*rows.items(), ("all", total)]:
        print(f"{name}: clean {row['clean valid']}/{row['clean']} valid; mutated {row['mutated']} snippets, "
              f"{row['mutated valid']} valid")  # fmt: skip
    for line in false_valid:
        print("false valid:", line)
    for line in not_valid:
        print("not valid:", line)
    ok = total["mutated valid"] == 0 and total["clean valid"] == total["clean"]
    print("PASS" if ok else "FAIL", "(target: 0 valid among mutated snippets, every unmutated snippet valid)")
    if not args.no_write:
        lines = [
            "Every api_call of the three APIBench hubs and APIZoo (repaired call for repaired entries; "
            "still-flagged entries left out), alone and with incidental calls (print, json, os, logging, a "
            "method of the result, a functools.partial wrapper), checked against the default index "
            f"({', '.join(f'{k} {v}' for k, v in sources.items())}). Mutations: a digit off by one, a hyphen "
            "removed or added, the repo owner changed, the loader replaced by `torch.load`, the method name "
            "cut by one letter (APIs outside the fixed families, i.e. APIZoo and a few Hugging Face calls). "
            "Target: 0 valid among mutated snippets, every unmutated snippet valid. "
            f"`python bench/false_valid.py`, {seconds:.0f} s.",
            "",
            "| source | unmutated valid | mutated snippets (digit / hyphen / owner / loader / method) "
            "| mutated valid |",
            "|---|---:|---:|---:|",
        ]
        for name, row in [*rows.items(), ("**all**", total)]:
            kinds = " / ".join(
                str(row[f"mutated {k}"]) for k in ("digit", "hyphen", "owner", "loader", "method")
            )
            lines.append(
                f"| {name} | {row['clean valid']} / {row['clean']} | {row['mutated']} ({kinds}) | "
                f"{row['mutated valid']} |"
            )
        write_section("False valid", "\n".join(lines))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
