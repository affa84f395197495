"""The built wheel ships index/ and kernels/ inside the package, and an installed gorilla-tui finds them."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_wheel_installs_with_data_folders(tmp_path: Path) -> None:
    out = tmp_path / "dist"
    build = [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(out), str(REPO)]
    r = subprocess.run(build, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    wheel = next(out.glob("gorilla_tui-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    shipped = {n for n in names if n.startswith("gorilla_tui/_data/")}
    for manifest in ("apibench-torchhub", "apibench-tensorflowhub", "apibench-huggingface", "apizoo"):
        assert f"gorilla_tui/_data/index/{manifest}.toml" in shipped
    assert any(n.startswith("gorilla_tui/_data/kernels/") for n in shipped)
    assert "gorilla_tui/_data/vectors/seed.json" in shipped  # the seed of python-env's vectors

    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)  # its own pip: never touches this environment
    py = env_dir / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")
    target = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                            capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    pip = [str(py), "-m", "pip", "install", "--no-deps", "--no-index", "--no-compile", "--quiet", str(wheel)]
    r = subprocess.run(pip, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    # dependencies come from this environment (a path line in a .pth file; its own .pth files are not run)
    (Path(target) / "_deps_from_dev_env.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    probe = (
        "import gorilla_tui, gorilla_tui.resources as r, gorilla_tui.pool.sources as s;"
        "import gorilla_tui.build.refresh;"
        "print(gorilla_tui.__file__);"
        "print(sorted(f.name for f in r.data_files('index')));"
        "print(sorted(f.name for f in r.data_files('kernels')));"
        "print(sorted(m.name for m in s.load_manifests()));"
        "import gorilla_tui.plugins as p; print(p.names(p.SOURCES), p.names(p.BACKENDS))"
    )
    # without PYTHONPATH: a checkout on it (a worktree run) would be imported before the installed copy
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    r = subprocess.run([str(py), "-c", probe], capture_output=True, text=True, cwd=tmp_path, timeout=120,
                       env=clean)  # fmt: skip
    assert r.returncode == 0, r.stderr[-2000:]
    where, index_files, kernel_files, manifests, plugin_names = r.stdout.strip().splitlines()
    # the built-in sources and backends are entry points of the installed distribution
    assert plugin_names == "['docs', 'python-env'] ['llama', 'remote']", plugin_names
    assert where.startswith(str(env_dir)), where  # the installed copy, not the checkout
    assert "apibench-torchhub.toml" in index_files and ".toml" in kernel_files
    assert all(n in manifests for n in ("torchhub", "tensorflowhub", "huggingface", "apizoo"))
    script = env_dir / ("Scripts/gorilla-tui.exe" if sys.platform == "win32" else "bin/gorilla-tui")
    # run the console script with the venv's interpreter (pip wrote this interpreter's path in its shebang)
    r = subprocess.run(
        [str(py), str(script), "--version"], capture_output=True, text=True, cwd=tmp_path, timeout=120
    )
    assert r.returncode == 0 and "gorilla-tui" in r.stdout, r.stderr[-2000:]
