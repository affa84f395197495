"""Store version 1 (docs.json, tf.npz, vocab.json), the on-disk format before issue 20: still read, whole."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from gorilla_tui.errors import GorillaError
from gorilla_tui.pool.doc import ApiDoc
from gorilla_tui.store.arrays import ArraySpec, Header, read_npz
from gorilla_tui.store.fileio import DAMAGED as _DAMAGED
from gorilla_tui.store.fileio import DAMAGED_HINT as _HINT
from gorilla_tui.store.fileio import read_json as _read_json

if TYPE_CHECKING:
    from scipy import sparse

#: What ApiIndex.note says about an index stored by store version 1.
OLD_STORE_NOTE = (
    "this index was stored by an older gorilla-tui (store version 1): it is read whole, which is slower; "
    "`gorilla-tui index --refresh` rewrites it"
)
#: The arrays of tf.npz as scipy.sparse.save_npz writes a CSR or CSC matrix (compressed), each npy header
#: checked before its data is inflated (arrays.read_npz).
_TF_ARRAYS = {
    "data": ArraySpec("fiu", 1),
    "indices": ArraySpec("iu", 1),
    "indptr": ArraySpec("iu", 1),
    "shape": ArraySpec("iu", 1),
    "format": ArraySpec("SU", 0),
}


def _tf_fits(headers: dict[str, Header]) -> str | None:
    """Why tf.npz's arrays, by their headers, are no sparse matrix (a value per column index, two sizes)."""
    if headers["data"][0] != headers["indices"][0] or headers["shape"][0] != (2,):
        return "its arrays are no sparse matrix"
    return None


def read_v1(folder: Path) -> tuple[list[ApiDoc], list[str], sparse.csr_matrix]:
    """The docs, terms and term frequencies of the store-version-1 `folder` (docs.json, vocab.json,
    tf.npz), read whole as before issue 20 (slower: every doc, scipy). tf: scipy CSR, docs x terms,
    float32. Raises GorillaError (with the rebuild hint) when a file is damaged or they do not fit."""
    import numpy as np  # deferred: numpy/scipy (~0.25 s); only an index of store version 1
    from scipy import sparse  # deferred: see above

    try:
        docs = [ApiDoc.from_dict(d) for d in _read_json(folder / "docs.json")]
        terms = _read_json(folder / "vocab.json")
        arrays = read_npz(folder / "tf.npz", _TF_ARRAYS, _tf_fits, compressed=True)
        fmt = arrays["format"].item()
        fmt = fmt.decode("ascii", "replace") if isinstance(fmt, bytes) else str(fmt)
        kind = {"csr": sparse.csr_matrix, "csc": sparse.csc_matrix}[fmt]  # KeyError: damaged
        parts = (arrays["data"], arrays["indices"], arrays["indptr"])
        tf = kind(parts, shape=tuple(int(n) for n in arrays["shape"])).tocsr()
    except _DAMAGED as e:
        why = str(e).splitlines()[0][:120] if str(e).strip() else type(e).__name__
        raise GorillaError(f"the index at {folder} is damaged ({why}); rebuild it", hint=_HINT) from None
    if tf.shape != (len(docs), len(terms)):
        raise GorillaError(f"the index at {folder} is inconsistent; rebuild it", hint=_HINT)
    tf.data = tf.data.astype(np.float32, copy=False)
    return docs, terms, tf
