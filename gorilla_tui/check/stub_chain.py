"""Standard-library attribute chains the python-env docs do not reach (R26-7): ``sys.stdout.buffer.write``.

The python-env docs hold a module's names and the methods of its module-level objects (``sys.stdout`` is
documented as an io.TextIOWrapper: ``sys.stdout.write``), not the attributes of those attributes
(``sys.stdout.buffer`` is a BufferedWriter). Such a callee was a near-miss of ``sys.stdout.write``, a
hallucination in `check CODE` and `run`, while `check FILE` left it unjudged (check/judged.py rule 3).
chain_says() follows the chain through typeshed's stubs (pool/stub_members.py: ``stdout: TextIO`` ->
``TextIO.buffer: BinaryIO`` -> ``IO.write``): a chain the stubs resolve is a real name (valid, its
arguments not judged: no doc); one they cannot resolve, or that a stub's abstract type lacks (the runtime
object may have more: ``sys.stderr.buffer.raw``), is not judged in either route (the linter's rule:
never a false alarm on real code).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from gorilla_tui.pool.pyenv.binds import module_binds, split_callee

if TYPE_CHECKING:
    from collections.abc import Set

    from gorilla_tui.check.callsite import CallSite
    from gorilla_tui.check.pool_index import PoolIndex


def chain_says(validator: PoolIndex, call: CallSite, callee: str, bound: Set[str]) -> str:
    """What the stubs say of standard-library callee `callee` (``module.name.attr...method``, no call in
    the chain) the pool lacks: "bound" when the chain resolves to a real attribute, "unknown: WHY" when
    ``module.name`` exists but the rest is past the pool's docs and the stubs cannot say (not judged),
    "" when the rule does not apply (a module's own name; ``sys.stdout.wrte``: the pool lists the methods
    of sys.stdout, so it is judged by them). bound: the names the code binds (a local ``sys`` is no module).
    """
    root = callee.split(".", 1)[0]
    if "(" in callee or root not in sys.stdlib_module_names or root in validator.api_roots:
        return ""
    if root in bound or call.via:
        return ""
    split = split_callee(callee)
    if split is None or len(split[1]) < 2:
        return ""
    module, attrs = split
    from gorilla_tui.pool.stub_members import attribute_chain  # deferred: typeshed_client (~0.2 s), rare

    found = attribute_chain(f"{module}.{'.'.join(attrs)}")
    if found:
        return "bound"
    prefix = f"{module}.{attrs[0]}"
    # the pool lists that object's methods, or its class's (``logging.Handler().close``: a pool class)
    documented = any(c.startswith((prefix + ".", prefix + "().")) for c in validator.callees)
    if len(attrs) == 2 and documented:
        return ""  # the pool lists that object's methods: judged by them
    if not documented and module_binds(module, attrs[0]) is not True:
        return ""  # ``module.name`` itself is not known to exist: judged as before
    return f"unknown: {prefix} exists; {'.'.join(attrs[1:])} is past the pool's docs and its type stubs"
