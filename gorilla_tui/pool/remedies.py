"""How to add a source the index lacks: one fix per source, worded once, right for where its files come from.

The first-launch panel and the rebuild summary (tui), the closing warning of `index --refresh` (cli/index.py),
`doctor`'s note and `index --status` all say it with these functions, so a missing source gets the same fix
everywhere (issue 40, item 5):

- a source on the Hugging Face hub (`[remote] type = "hf"`: the APIBench hubs): a plain refresh when online,
  else `--from DIR` with a local copy of that dataset's files;
- a source that is only documented at a URL (`type = "url"`: APIZoo, a GitHub folder): `--source NAME=DIR`
  with a local copy of that folder (the APIBench files hold no APIZoo);
- the python-env source (this Python's own packages, never fetched): a refresh of that source alone;
- any other source (`type = "path"`, a user's manifest): `--source NAME=DIR`.
"""

from __future__ import annotations

from collections.abc import Iterable

from gorilla_tui.errors import GorillaError
from gorilla_tui.pool.manifest import Manifest, load_manifests

#: The command every fix starts from.
REFRESH = "gorilla-tui index --refresh"


def add_fix(manifest: Manifest) -> str:
    """The command (with what DIR must hold) that adds `manifest`'s source to the index: one line, plain text.

    Sources fetched from the same Hugging Face dataset get the same text (the three APIBench hubs), so
    fix_lines can say it once for all of them. The text names only places the person chooses (DIR), never
    a file inside the installed package, and holds no "; " (a warning joins several fixes with it).
    """
    remote = manifest.remote or {}
    kind = remote.get("type", "path")
    if manifest.kind == "python-env":
        return f"{REFRESH} --only {manifest.name} (reads this Python's packages, no network needed)"
    if kind == "hf":
        repo = remote.get("repo_id", "")
        return (
            f"{REFRESH} when online (it fetches the Hugging Face dataset {repo}), or offline: {REFRESH} "
            f"--from DIR with DIR a local copy of that dataset's files"
        )
    url = str(remote.get("url") or manifest.homepage or "").removeprefix("https://")
    where = f" with DIR a local copy of {url}" if url else " with DIR a folder of its files"
    return f"{REFRESH} --source {manifest.name}=DIR{where}"


def fix_lines(
    names: Iterable[str], manifests: Iterable[Manifest] | None = None, verb: str = "add"
) -> list[str]:
    """One line per distinct fix for the sources `names` that `manifests` describe, in the manifests'
    order: "torchhub, tensorflowhub, huggingface: to add them: <add_fix>" / "apizoo: to add it: ...".
    `verb` "refresh" words it for sources whose docs were kept from a previous index. Names no manifest
    describes (a user's own source) get the generic `--source NAME=DIR` line. manifests None: the shipped
    ones (pool.manifest.load_manifests; none when they cannot be read)."""
    if manifests is None:
        manifests = _shipped()
    wanted = list(dict.fromkeys(names))
    known = {m.name: m for m in manifests}
    groups: dict[str, list[str]] = {}
    for name in sorted(wanted, key=lambda n: list(known).index(n) if n in known else len(known)):
        manifest = known.get(name) or Manifest(name=name, title=name)
        groups.setdefault(add_fix(manifest), []).append(name)
    return [f"{', '.join(g)}: to {verb} {'them' if len(g) > 1 else 'it'}: {fix}" for fix, g in groups.items()]


def _shipped() -> list[Manifest]:
    """The shipped source manifests, or [] when they cannot be read (each fix then says --source)."""
    try:
        return load_manifests()
    except GorillaError:
        return []
