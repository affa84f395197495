"""Which of a file's non-valid calls `check PATH` reports: only those whose callee resolves into the pool.

A call the validator did not find valid (check/validator.py: role pool, family or python-env) is a
finding of the linter only when (issue 39) the file does not expect it to fail (check/expected.py:
inside ``assertRaises`` / ``pytest.raises``, or a ``try`` that handles its error) and:
1. its callee, as written in the file, resolves through the file's own names (check/scope.py) to the
   callee it was judged as: huggingface_hub's ``from .utils import logging`` then ``logging.get_logger()``
   is the package's own module, ``self.load()`` a method, ``statistics.append`` a local list. A bare pool
   callee (``pipeline``, APIBench's spelling) imported from a package counts when that package is the one
   the pool entries of that callee are written for (their api_call / example_code / requirements name it);
2. a near-miss hallucination (``hallucination:unknown_callee``) names a module or class that holds a pool
   callee: ``torch.hub.laod`` does (``torch.hub.load``), ``torch.load(path)`` does not (the pool covers
   ``torch.hub``, not ``torch``) unless its argument names a pool model (``wrong_loader``, always kept);
3. a standard-library callee (python-env, or a near-miss in a standard-library module) is judged only
   where Python's own source can say it is wrong: private names (``ssl._create_default_https_context``)
   are never findings; a name the module binds (pool/pyenv/binds.py: ``random.random = _inst.random``,
   ``threading.get_ident`` from ``_thread``) is real; an attribute of such a name
   (``logging.Handler.close(self)``, ``sys.stdout.buffer.write``) is not judged; a module whose names come
   from a compiled module's star import (os, codecs) is judged by the pool; code under a version, platform
   or ``hasattr`` guard, or in a ``try`` catching AttributeError / ImportError / NameError / TypeError, is
   not judged (``base64.decodestring`` on Python 2, ``TypeVar(default=...)`` on 3.13+), nor under a skip
   decorator with such a condition, nor a name whose existence the file tests anywhere (``hasattr(sys,
   'gettotalrefcount')``: a debug build's, Solaris' ``select.devpoll``); a missing argument of a
   compiled function whose signature is read from its docstring (``time.ctime(seconds)``), and any argument
   count of a compiled class with its base's (``os.stat_result``: tuple's; ``bool(x)`` yet ``bool()`` is
   False) are not judged (pool/pyenv/compiled_signature.py, the Validator's rule too; ``os.listdir('/x',
   1)`` is judged: Argument Clinic states its signature)
   and the arguments of an enum called with a value (``HTTPStatus(404)``) are not judged;
4. a wrong value (``wrong_args:unknown_value`` / ``unknown_model``) is reported only for a literal
   argument (variable_argument), a missing argument only for a call made, not a function passed to a
   wrapper (``self._mgr.apply(operator.invert)``);
5. an unknown callee of an installed package's module the pool covers (python-env with ``python:numpy``)
   is reported only where the module's type stub or source lists all its names and lacks this one
   (``np.arrray``: numpy's ``__init__.pyi`` lists them): a name it binds is real, and a module that takes
   names it does not spell (a compiled module's star import, a module ``__getattr__``) is not judged.
why_skipped() gives the reason a call is not reported ("" when it is).
"""

from __future__ import annotations

import ast
import builtins
import re
import sys
from typing import TYPE_CHECKING

from gorilla_tui.check.builtin_types import builtin_method
from gorilla_tui.check.expected import ExpectedFailures
from gorilla_tui.check.guards import guarded, type_ignored
from gorilla_tui.check.runs_code import runs_code
from gorilla_tui.check.scope import Bindings, resolve
from gorilla_tui.check.signature import canonical
from gorilla_tui.check.stub_chain import missing_by_stubs
from gorilla_tui.check.stub_types import stub_call_errors
from gorilla_tui.pool.pyenv.binds import (
    enum_classes,
    installed_file,
    installed_names,
    module_binds,
    source_names,
    split_callee,
)
from gorilla_tui.pool.pyenv.compiled_signature import UNSURE_SIGNATURE, signature_unsure
from gorilla_tui.pool.typeshed import _defined

if TYPE_CHECKING:
    from collections.abc import Set

    from tree_sitter import Node

    from gorilla_tui.check.callsite import CallSite, Value
    from gorilla_tui.check.pool_index import PoolIndex
    from gorilla_tui.types import CallVerdict

#: Reasons about how many arguments a call gives, which a docstring's signature cannot say for sure.
_ARITY = frozenset({"wrong_args:missing_argument", "wrong_args:too_many_arguments"})
#: The builtins: compiled, their signatures read from docstrings (``bool(x) -> bool``, yet bool() is False).
_BUILTINS = frozenset(dir(builtins))


#: A module-level name spelled as a constant (PEP 8: ``QUOTE_ALL``, ``SEEK_SET``): bound, but not callable.
_CONSTANT_NAME = re.compile(r"[A-Z][A-Z0-9_]*")


#: The functions of the builtins module Python documents ("Built-in Functions"), dunder ones too.
_BUILTIN_NAMES = frozenset(dir(builtins))
_BUILTIN_FUNCTIONS = frozenset(
    n for n, v in vars(builtins).items() if callable(v) and not isinstance(v, type) and not n.startswith("_")
) | {"__import__"}
#: Builtins every pool that holds Python's builtins has (python-env): where they are, so is the rest.
_BUILTIN_PEERS = ("print", "exec", "len")


def stdlib_bound(validator: PoolIndex, call: CallSite, callee: str, bound: Set[str]) -> bool:
    """True for a standard-library callee the python-env docs lack but Python has (issue 39; used by the
    Validator for every check, not only the linter): a name its module's source binds
    (pool/pyenv/binds.py: ``random.random = _inst.random``, ``threading.get_ident`` from ``_thread``,
    ``linecache.getlines`` outside ``__all__``), or a method called on its class
    (``logging.Handler.close(self)``: the doc is ``logging.Handler().close``). Such a call is python-env
    and valid, its arguments not judged (no signature is known). bound: the names the code binds (a local
    ``random`` is not the module)."""
    root = callee.split(".", 1)[0].split("(", 1)[0]
    if callee in _BUILTIN_FUNCTIONS and callee not in bound and not call.via:
        # a builtin function the docs leave out (python-env indexes no dunder name: __import__) where the
        # pool holds Python's builtins (print, exec): real, as they are (pydoc.py and pickle.py of the
        # standard library call __import__; a pool without them, a hub's, still judges it: R24-5)
        return all(b in validator.callees for b in _BUILTIN_PEERS)
    if root not in sys.stdlib_module_names or root in bound or call.via:
        return False
    split = split_callee(callee)
    if split is None:
        return False
    module, attrs = split
    if len(attrs) == 1 and _builtin_alias(module, attrs[0]):
        # an alias of a builtin the stubs bind (socket.error, os.error, select.error are OSError;
        # socket.timeout is TimeoutError: break-it round 30, four false alarms in pip's vendored urllib3)
        return True
    if root in validator.api_roots:
        return False
    if len(attrs) == 2 and f"{module}.{attrs[0]}().{attrs[1]}" in validator.callees:  # pool-wide (lookup)
        return True
    if len(attrs) > 1 and module_binds(module, attrs[0]) is True:
        # a method of a value the module binds (``os.path.sep.join``: sep is a str): valid unless the pool
        # covers that name (a class or function of the pool: its attributes are judged against it)
        prefix = f"{module}.{attrs[0]}"
        return not any(c == prefix or c.startswith((prefix + ".", prefix + "(")) for c in validator.callees)
    if len(attrs) == 1 and _CONSTANT_NAME.fullmatch(attrs[0]):  # csv.QUOTE_ALL(): a constant is not called
        return False
    return len(attrs) == 1 and module_binds(module, attrs[0]) is True


def _builtin_alias(module: str, name: str) -> bool:
    """True when the running Python's typeshed stub of standard-library `module` binds `name` to a builtin
    (``error = OSError`` in socket.pyi): an alias the python-env docs cannot hold (they document where a
    name is defined). Read from the stubs, nothing imported."""
    found = _defined(f"{module}.{name}")
    node = found[1] if found else None
    value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
    return isinstance(value, ast.Name) and value.id in _BUILTIN_NAMES


def package_names_say(validator: PoolIndex, call: CallSite, callee: str, bound: Set[str]) -> str:
    """What an installed package's module says of callee `callee` the pool lacks, for the Validator (rule 5
    of the module doc, issue 39): "bound" when the module the pool covers (python-env, ``python:numpy``)
    binds the name in its stub or source (a real name the docs leave out: valid, arguments not judged),
    "unknown: WHY" when the module cannot list its names (not judged: neither valid nor a
    hallucination), "" when the rule does not apply or the name is not there (a hallucination:
    ``np.arrray``, numpy's ``__init__.pyi`` lists every name). bound: the names the code binds."""
    root = callee.split(".", 1)[0].split("(", 1)[0]
    if "()" in callee or root in sys.stdlib_module_names or root in validator.api_roots or root in bound:
        return ""
    if call.via or _owner(callee) not in validator.environment_owners:
        return ""
    why = _package_skip(callee)
    owner = _owner(callee)
    if " exists; " in why and any(
        c == owner or c.startswith((owner + ".", owner + "(")) for c in validator.callees
    ):
        return ""  # an attribute of a class the pool documents (numpy.ndarray): judged against its docs
    if not why:
        return ""
    return "bound" if " binds " in why or " exists; " in why else f"unknown: {why}"


def _owner(callee: str) -> str:
    return callee.rsplit(".", 1)[0] if "." in callee else ""


def _stdlib(callee: str, validator: PoolIndex) -> bool:
    """True for a callee judged as the standard library's (rule 3): of a stdlib module no hub shares, or a
    method of a builtin type (``str().join``: a literal's, check/builtin_types.py)."""
    if builtin_method(callee) is not None:
        return True
    root = callee.split(".", 1)[0].split("(", 1)[0]
    if "()" in callee and root in _BUILTINS and "." not in callee.split("(", 1)[0]:
        return True  # a method of a builtin call's result: open().read (stub_chain.result_verdict)
    return root in sys.stdlib_module_names and root not in validator.api_roots


def _written_for(validator: PoolIndex, judged: str, package: str) -> bool:
    """True when the pool entries of bare callee `judged` are written for `package` (it appears in their
    api_call, example_code or env_requirements: ``pipeline`` of transformers)."""
    table = validator.tables.get(judged)
    pattern = re.compile(rf"\b{re.escape(package)}\b")
    for entry in table.entries if table is not None else ():
        doc = entry.doc
        if pattern.search(" ".join([doc.api_call, doc.example_code or "", *doc.env_requirements])):
            return True
    return False


def _probed(judged: str, node: Node | None) -> bool:
    """True when the file of `node` asks whether the last name of `judged` exists on some object
    (``hasattr(sys, 'gettotalrefcount')``, ``getattr(os, "lchmod", None)``): the file knows the name is
    missing on some builds or platforms (a debug build's sys.gettotalrefcount, Solaris' select.devpoll),
    and its uses are guarded by that test somewhere (a skip decorator, an early return or SkipTest)."""
    root = node
    while root is not None and root.parent is not None:
        root = root.parent
    name = judged.rsplit(".", 1)[-1]
    if root is None or not name.isidentifier():
        return False
    probe = re.compile(rf"\b(?:hasattr|getattr)\(\s*[\w.]+\s*,\s*['\"]{re.escape(name)}['\"]")
    return probe.search((root.text or b"").decode("utf-8", "replace")) is not None


#: How many names of a module the pool must document beyond those its source spells before the pool is
#: taken to know the module's compiled star import (os: hundreds of posix functions; codecs: none).
_STAR_KNOWN = 10


def _pool_knows_star(module: str, validator: PoolIndex) -> bool:
    """True when the pool documents a module's names that come from a compiled module's star import
    (``os.mkdir`` from ``from posix import *``: os's __all__ lists them, so the python-env docs have them),
    so a name the pool lacks there is judged (``os.remove_all``); False when it documents none of them
    (codecs' literal __all__ leaves out ``utf_8_decode``, which stays unjudged), or the module is compiled."""
    found = source_names(module)
    if found is None:
        return True  # a compiled module: the python-env docs hold its names (read from the interpreter)
    if found.dynamic:  # names made at run time (multiprocessing's globals().update): nobody lists them
        return False
    spelled = found.names
    start = len(module) + 1
    documented = {
        c[start:].split(".", 1)[0].split("(", 1)[0] for c in validator.callees if c.startswith(module + ".")
    }
    return len(documented - spelled) >= _STAR_KNOWN


def _stub_says(call: CallVerdict, site: CallSite | None) -> bool:
    """True when no overload of the type stub of `call`'s callee takes its arguments (check/stub_types.py
    stub_call_errors): a count the stub states, sure where the docstring's signature is not."""
    return site is not None and bool(stub_call_errors(call.callee, site)[0])


def _stdlib_skip(call: CallVerdict, validator: PoolIndex, site: CallSite | None = None) -> str:
    """Why a standard-library call (call.callee judged as written) is not reported, else "" (rule 3)."""
    judged = call.callee
    parts = judged.replace("()", "").split(".")
    if any(p.startswith("_") for p in parts):
        return f"{judged}: a private name (not judged)"
    split = split_callee(judged)
    if split is None:
        return ""
    module, attrs = split
    if call.kind == "hallucination" and "()" in judged and not runs_code(judged):
        return ""  # its result lacks it by the stubs (stub_chain.result_verdict: sqlite3.connect().exeucte)
    if call.reason in _ARITY and signature_unsure(judged, call.reason) and not _stub_says(call, site):
        return f"{judged}: {UNSURE_SIGNATURE}"  # the Validator's rule too (R26-4)
    if call.kind == "wrong_args" and len(attrs) == 1 and attrs[0] in enum_classes(module):
        return f"{judged}: an enum (a call with a value looks its member up)"
    if call.kind != "hallucination":
        return ""
    bound = module_binds(module, attrs[0])
    if bound is None:  # compiled module or star import of one: the pool's names of it decide
        prefix = f"{module}.{attrs[0]}"
        bound = any(c == prefix or c.startswith((prefix + ".", prefix + "(")) for c in validator.callees)
        if not bound and (len(attrs) > 1 or not _pool_knows_star(module, validator)):
            return f"{module} takes names from a compiled module: {prefix} is not known without importing it"
    if bound and len(attrs) > 1:
        if missing_by_stubs(f"{module}.{'.'.join(attrs)}") is not None:  # sys.stdout.buffer.wirte
            return ""
        return f"{module}.{attrs[0]} exists; its attributes ({'.'.join(attrs[1:])}) are not judged"
    if bound:
        return f"{module} binds {attrs[0]} (Python's source: assignment, import or definition)"
    return ""


def _package_skip(judged: str) -> str:
    """Why callee `judged` of an installed package's module that the pool covers but lacks is not reported
    (rule 5), else "": the module's stub or source (pool/pyenv/binds.py installed_names: ``numpy``'s
    ``__init__.pyi``) binds the name, or cannot list its names (a star import of a compiled module without
    a stub, a module ``__getattr__``, no file at all: compiled), so a name it does not spell may exist."""
    parts = judged.replace("()", "").split(".")
    for k in range(len(parts) - 1, 0, -1):
        module, attrs = ".".join(parts[:k]), parts[k:]
        if installed_file(module) is None and k > 1:
            continue
        found = installed_names(module)
        if found is None:
            return f"{module} has no source or stub file here: {module}.{attrs[0]} is not known without it"
        names, complete = found.names, found.complete
        if attrs[0] in names and len(attrs) > 1:
            return f"{module}.{attrs[0]} exists; its attributes ({'.'.join(attrs[1:])}) are not judged"
        if attrs[0] in names:
            return f"{module} binds {attrs[0]} (its source or stub: assignment, import or definition)"
        if not complete:
            why = "a star import of a compiled module or in a cycle, a module __getattr__ or globals() writes"
            return f"{module} cannot list its names ({why}): {module}.{attrs[0]} is not judged"
        return ""
    return ""


#: The argument a wrong_args note names first: "repo_id=missing is not in the API pool ..." or "0='pat' ...".
_NAMED_ARGUMENT = re.compile(r"(\w+)=")


def variable_argument(call: CallVerdict, site: CallSite | None, message: str) -> str:
    """Why a wrong-value finding (``wrong_args:unknown_value`` / ``unknown_model``) is not reported, else
    "": the argument its message names (keyword, or position "0") is a variable or an expression, not a
    literal, so its value is not known where the file is read (``hf_hub_download(repo_id=repo_id)``)."""
    if site is None or call.reason not in ("wrong_args:unknown_value", "wrong_args:unknown_model"):
        return ""
    m = _NAMED_ARGUMENT.match(message)
    if m is None:
        return ""
    name = m.group(1)
    if name.isdigit():
        value = site.positional[int(name)] if int(name) < len(site.positional) else None
    else:
        value = site.keywords.get(name)
    if value is not None and not _known(value):
        return f"{call.callee}: argument {name} is not a literal (its value is not known here)"
    if value is None and any(not _known(v) for v in site.positional):  # bound by position, from a variable
        return f"{call.callee}: argument {name} may be given by a variable (its value is not known here)"
    return ""


#: Argument text of a literal that is not a string: a number, True, False, None.
_CONSTANT = re.compile(r"-?[\d.][\w.+-]*|True|False|None")


def _known(value: Value) -> bool:
    """True for a value written in the file: a string literal or a constant (number, True, False, None)."""
    return value.literal or _CONSTANT.fullmatch(value.text) is not None


def why_skipped(
    validator: PoolIndex,
    call: CallVerdict,
    site: CallSite | None,
    names: Bindings,
    node: Node | None,
    expected_failures: ExpectedFailures | None = None,
) -> str:
    """Why non-valid call `call` (a row of Verdict.calls; `site`: its scan row with the callee as written,
    `node`: its tree-sitter node, either None when unknown; `expected_failures`: the file's calls expected
    to fail, read once per file, check/expected.py) is not a finding, or "" when it is (module doc rules
    1-3)."""
    written = site.callee if site is not None else call.callee
    expected = expected_failures.reason(node) if expected_failures is not None else ""
    if expected:
        return expected
    if call.reason == "wrong_args:missing_argument" and call.via:
        return f"{call.callee} is passed to {call.via}, which may give its arguments later"
    qualified, why = resolve(written, names, site.span if site is not None else None)
    if qualified is None:
        return why
    judged = call.callee
    unsure = call.reason in _ARITY and signature_unsure(judged, call.reason) and not _stub_says(call, site)
    if unsure and judged in _BUILTINS:
        return f"{judged}: a builtin ({UNSURE_SIGNATURE})"
    resolved = canonical(qualified)
    if resolved != judged:
        bare = resolved.endswith("." + judged) and not _stdlib(judged, validator)
        package = resolved.split(".", 1)[0]
        if not bare or not _written_for(validator, judged, package):
            return f"{written} is {qualified} here, not the pool's {judged}"
    if call.reason == "hallucination:unknown_callee" and not _stdlib(judged, validator):
        owner = _owner(judged)
        if not any(_owner(c) == owner for c in validator.callees):
            return f"{judged}: no pool callee in {owner or 'its module'} (the pool does not cover it)"
        skip = _package_skip(judged) if owner in validator.environment_owners else ""
        if skip:
            return skip
    if _stdlib(judged, validator):
        skip = _stdlib_skip(call, validator, site)
        if skip:
            return skip
        if guarded(node):
            return f"{judged}: under a version, platform or hasattr guard (not judged)"
        if call.kind == "hallucination" and _probed(judged, node):
            return f"{judged}: the file asks whether it exists (hasattr / getattr): not judged"
        if call.kind == "hallucination" and type_ignored(node):
            return f"{judged}: its line tells type checkers the attribute may be missing (type: ignore)"
    return ""
