"""The library usage feature of python-env's prior (issue 38): how many files of the installed packages
reference a numpy / pandas / matplotlib API (pool/pyenv/usage.site_usage, store/prior.library_files), read
only when a prior over a library's docs asks for it."""

from __future__ import annotations

import dataclasses
import sysconfig
from pathlib import Path

import pytest

from gorilla_tui.pool.doc import ApiDoc
from gorilla_tui.pool.pyenv import usage
from gorilla_tui.store import prior

SITE = Path(sysconfig.get_paths()["purelib"])


@pytest.fixture(scope="module")
def stdlib(stdlib_docs: tuple[ApiDoc, ...]) -> dict[str, ApiDoc]:
    return {d.api_name: d for d in stdlib_docs}


def library_doc(stdlib: dict[str, ApiDoc], name: str, functionality: str) -> ApiDoc:
    """A python-env doc of an installed library, shaped as pool/pyenv/names.py writes one."""
    return dataclasses.replace(
        stdlib["os.getenv"],
        api_name=name,
        domain=name.split(".")[0],
        functionality=functionality,
        questions=[],
    )


def test_a_library_function_is_counted_under_its_import_alias(
    tmp_path: Path, stdlib: dict[str, ApiDoc]
) -> None:
    root = tmp_path / "site"
    files = {
        "pkg_a/core.py": "import numpy as np\nx = np.arange(3)\n",
        "pkg_b/util.py": "from numpy import arange, zeros as z\n",
        "pkg_c/__init__.py": "import numpy\nnumpy.arange(2)  # np.linspace in a comment\ns = 'np.linspace'\n",
        "pkg_d/tests/test_x.py": "import numpy as np\nnp.arange(1)\nnp.linspace(0, 1)\n",  # a test suite
        "pkg_e/plots.py": "import matplotlib.pyplot as plt\nplt.plot([1])\n",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    counts = usage.site_usage(tmp_path / "cache", [root])
    arange = library_doc(stdlib, "numpy.arange", "function in numpy")
    assert prior.library_files(arange, counts) == 3  # np.arange, from numpy import, numpy.arange
    assert prior.library_files(library_doc(stdlib, "numpy.zeros", "function in numpy"), counts) == 1
    assert prior.library_files(library_doc(stdlib, "numpy.linspace", "function in numpy"), counts) == 0
    plot = library_doc(stdlib, "matplotlib.pyplot.plot", "function in matplotlib.pyplot")
    assert prior.library_files(plot, counts) == 1
    # a method is neutral: "DataFrame" would lift every method of the class alike
    tolist = library_doc(stdlib, "numpy.ndarray.tolist", "method in numpy")
    assert prior.library_files(tolist, counts) == 0
    usage._MEMO.clear()


def test_the_installed_packages_are_scanned_only_for_a_library_doc(stdlib: dict[str, ApiDoc]) -> None:
    asked = []

    def site() -> usage.UsageCounts:
        asked.append(1)
        return usage.UsageCounts(("pkg",), {"np.arange": (0,)})

    counts = usage.UsageCounts(site=site)
    stdlib_only = [stdlib[n] for n in ("os.makedirs", "zipfile.ZipFile.extractall", "sum")]
    assert not any(prior.has_library_usage(d) for d in stdlib_only)
    before = prior.prior_array(stdlib_only, counts)
    assert not asked  # the default index (the standard library alone) never scans site-packages
    arange = library_doc(stdlib, "numpy.arange", "function in numpy")
    assert prior.has_library_usage(arange) and prior.needs_usage([arange])
    assert prior.doc_prior(arange, counts) == pytest.approx(2**prior.LIBRARY_USAGE_WEIGHT)
    assert prior.doc_prior(arange, counts) == pytest.approx(2**prior.LIBRARY_USAGE_WEIGHT)
    assert asked == [1]  # read once
    # the standard library's docs keep their prior
    assert list(prior.prior_array(stdlib_only, counts)) == list(before)
    assert list(before) == list(prior.prior_array(stdlib_only, usage.UsageCounts()))


def test_a_standard_library_module_written_with_another_domain_is_no_library(
    stdlib: dict[str, ApiDoc],
) -> None:
    """A python-env doc of `json` or `shutil` whose domain is its module (APIBench field names, the tests'
    small pool) is no installed library's: its prior does not depend on which packages are installed (a
    fresh venv without pandas and matplotlib ranked json.loads over shutil.copyfile for a copy task)."""
    rich = usage.UsageCounts(site=lambda: usage.UsageCounts(("pkg",), {"json.loads": (0,)}))
    for name in ("json.loads", "shutil.copyfile"):
        doc = library_doc(stdlib, name, f"function in {name.split('.')[0]}")
        assert doc.domain != "Python standard library" and not prior.has_library_usage(doc)
        assert prior.doc_prior(doc, rich) == prior.doc_prior(doc, usage.UsageCounts())


def test_the_api_everybody_calls_is_used_more_in_real_packages(
    tmp_path: Path, stdlib: dict[str, ApiDoc]
) -> None:
    """matplotlib's own code (installed with the bench extra) calls numpy.arange far more than rec_join."""
    if not (SITE / "matplotlib").is_dir():
        pytest.skip("matplotlib is not installed (pip install -e '.[bench]')")
    counts = usage.site_usage(tmp_path / "cache", [SITE / "matplotlib"])
    used = {
        name: prior.library_files(library_doc(stdlib, name, f"function in {name.rpartition('.')[0]}"), counts)
        for name in ("numpy.arange", "numpy.asarray", "numpy.lib.recfunctions.rec_join", "numpy.matlib.zeros")
    }
    assert used["numpy.arange"] > 20 and used["numpy.asarray"] > 20
    assert used["numpy.lib.recfunctions.rec_join"] == 0 and used["numpy.matlib.zeros"] == 0
    usage._MEMO.clear()
