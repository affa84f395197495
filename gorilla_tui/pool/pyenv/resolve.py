"""What a name of a group's modules is, read from their source: re-exports followed to each definition's
shortest public name, names that are values rather than callables, the class an object is made from, and a
class's method resolution order and constructor (Resolver). pool/pyenv/names.py turns the names into docs."""

from __future__ import annotations

import re
from collections import Counter

from gorilla_tui.pool.pyenv.module_api import ClassDef, FuncDef, ModuleInfo

#: A name written in capitals (PEP 8's style for constants: ``QUOTE_ALL``, ``CO_NESTED``, ``A``), which
#: no name of the standard library bound outside Python source and callable is (Python 3.11: 268 such
#: names, 114 of them values, all 107 in capitals values).
_CONSTANT = re.compile(r"_*[A-Z][A-Z0-9_]*")


#: Deepest chain of bases Resolver.mro follows; a deeper one gets no order (None).
MRO_DEPTH = 12


class Resolver:
    """Follows re-exports (``from .x import *``, ``from ._impl import name``, ``a = b``) inside one group so
    each definition gets its shortest public name (asyncio.tasks.gather -> asyncio.gather)."""

    def __init__(self, modules: dict[str, ModuleInfo], compiled: frozenset[str] = frozenset()) -> None:
        self.modules = modules
        self.compiled = compiled
        self._mros: dict[tuple[str, int], list[tuple[str, ClassDef]] | None] = {}
        self._exports: dict[str, dict[str, tuple[tuple[str, str] | None, str]]] = {}

    def _follows(self, importer: str, target: str) -> bool:
        return target in self.modules and (
            target.split(".")[0] == importer.split(".")[0]
            or any(p.startswith("_") for p in target.split("."))
            or target in self.compiled
        )

    def exports(self, name: str) -> dict[str, tuple[tuple[str, str] | None, str]]:
        """name -> ((defining module, def name) or None when defined outside the group's source, origin);
        origin is "def", "star" or "import"."""
        if name in self._exports:
            return self._exports[name]
        out: dict[str, tuple[tuple[str, str] | None, str]] = {}
        self._exports[name] = out  # cycle guard: a re-entrant call sees the partial table
        info = self.modules[name]
        for d in info.defs:
            out[d] = ((name, d), "def")
        for alias, target in info.aliases.items():
            if target in info.defs:
                out.setdefault(alias, ((name, alias), "def"))
        for imp in info.imports:
            if not self._follows(name, imp.module):
                for _orig, alias in imp.names:
                    out.setdefault(alias, (None, "import"))
                continue
            theirs = self.exports(imp.module)
            if imp.star:
                for n in self.public(imp.module):
                    if n in theirs:
                        out.setdefault(n, (theirs[n][0], "star"))
            for orig, alias in imp.names:
                if orig in theirs:
                    out.setdefault(alias, (theirs[orig][0], "import"))
        return out

    def public(self, name: str) -> list[str]:
        """The public names of a module: its literal __all__, else non-underscore defs and star imports
        (and, in a package __init__, explicit imports)."""
        info = self.modules[name]
        if info.all_names is not None:
            return info.all_names
        exp = self.exports(name)
        return [n for n, (target, origin) in exp.items() if self._exported(info, n, target, origin)]

    def _exported(self, info: ModuleInfo, n: str, target: tuple[str, str] | None, origin: str) -> bool:
        """Public without a literal __all__: a def, a star import, or an explicit import in a package or from
        a private / compiled implementation module (``from _pickle import dumps``, ``from posix import
        _exit``); single-underscore names only when they are functions of a public compiled module
        (sys._getframe, os._exit: the interpreter's documented underscore functions)."""
        if target is None or n.startswith("__"):
            return False
        if origin == "import" and not (
            info.is_package or not is_public(target[0]) or target[0] in self.compiled
        ):
            return False
        return not n.startswith("_") or self.compiled_function(target)

    def compiled_function(self, target: tuple[str, str] | None) -> bool:
        """Whether target (module, name) is a function of a public compiled module (sys._getframe,
        posix._exit; not _abc._abc_init)."""
        return (
            target is not None
            and target[0] in self.compiled
            and is_public(target[0])
            and isinstance(self.modules[target[0]].defs.get(target[1]), FuncDef)
        )

    def is_value(self, module: str, name: str, depth: int = 0) -> bool:
        """Whether `name` of `module`, bound outside its own defs, is a value and not a function or class:
        a name in capitals (_CONSTANT: ``csv.QUOTE_ALL``, ``re.IGNORECASE``), plain data of a compiled
        module (an int, str, tuple...; not ``_io.BlockingIOError``, a builtin class), or an object a
        module's source makes by a call (``defaultTestLoader = TestLoader()``), in this module or the one
        it is imported from or aliased to (``from .loader import defaultTestLoader``). Other assignments
        may bind a function (``_allocate_lock = _thread.allocate_lock``, which threading.Lock names)."""
        info = self.modules.get(module)
        if _CONSTANT.fullmatch(name):
            return True
        if info is None or depth > 4 or name in info.defs:
            return False
        plain = module in self.compiled and name not in info.objects  # compiled.py: int, str, tuple...
        if name in info.assigned and (plain or name in info.instances):
            return True
        if name in info.aliases:
            return self.is_value(module, info.aliases[name], depth + 1)
        for imp in info.imports:
            for orig, alias in imp.names:
                if alias == name:
                    return self.is_value(imp.module, orig, depth + 1)
        return False

    def class_of(self, module: str, callee: str, depth: int = 0) -> ClassDef | None:
        """The class an object made by ``callee(...)`` in `module` has: a class of the module (or imported
        into it, or ``mod.Class``), or the class a function's ``return Class(...)`` names; else None."""
        found = self.class_where(module, callee, depth)
        return found[1] if found is not None else None

    def class_where(self, module: str, callee: str, depth: int = 0) -> tuple[str, ClassDef] | None:
        """(defining module, class) of :meth:`class_of`, so that the class's own bases are read in the
        module that defines it; None when not resolved."""
        if depth > 4 or not callee:
            return None
        if "." in callee:
            mod, _, attr = callee.rpartition(".")
            mod = mod if mod in self.modules else self._submodule_named(module, mod)
            return self.class_where(mod, attr, depth + 1) if mod in self.modules else None
        target = self.exports(module).get(callee, (None, ""))[0] if module in self.modules else None
        if target is None:
            return None
        d = self.modules[target[0]].defs.get(target[1])
        if isinstance(d, FuncDef):
            return self.class_where(target[0], d.returns, depth + 1)
        if isinstance(d, ClassDef):
            return target[0], d
        return None

    def _submodule_named(self, module: str, name: str) -> str:
        """The module a name of `module` binds by ``from PACKAGE import name`` (asyncio/base_events.py's
        ``from . import events``, so its base ``events.AbstractServer`` is asyncio.events's), else ""."""
        for imp in self.modules[module].imports if module in self.modules else ():
            for orig, alias in imp.names:
                if alias == name and f"{imp.module}.{orig}" in self.modules:
                    return f"{imp.module}.{orig}"
        return ""

    def mro(self, module: str, cls: ClassDef) -> list[tuple[str, ClassDef]] | None:
        """cls's method resolution order (C3 linearization, as Python computes it; ``object`` left out) as
        (defining module, class), when every class in it is read from Python source with a plain class
        statement (ClassDef.plain: names as bases, no metaclass or other keyword, no decorator); else None
        (a base outside this group's source, a compiled class, a metaclass that may change the call, a chain
        of bases more than MRO_DEPTH deep). Each class's order is computed once per Resolver: without the
        memo a lattice of W bases per class and L levels cost W**L merges (a 2.3 KB module of 4 bases over
        10 levels held `index --refresh` for over 300 s, break-it round 15)."""
        return self._mro(module, cls, 0)[0]

    def _mro(self, module: str, cls: ClassDef, depth: int) -> tuple[list[tuple[str, ClassDef]] | None, bool]:
        """(:meth:`mro` of cls, whether the depth cap decided it); an order the cap did not decide is
        memoised (the cap depends on where the walk met the class, the order itself does not)."""
        key = (module, id(cls))
        if key in self._mros:
            return self._mros[key], False
        if depth > MRO_DEPTH:
            return None, True
        self._mros[key] = None  # a class met again on its own chain of bases (a cycle of names) has no order
        order: list[tuple[str, ClassDef]] | None = None
        cut = False
        if cls.plain and cls.line:
            heads: list[list[tuple[str, ClassDef]]] = []
            for base in cls.bases:
                if base in ("object", "builtins.object"):
                    continue
                found = self.class_where(module, base)
                chain, below = self._mro(*found, depth + 1) if found is not None else (None, False)
                cut = cut or below
                if chain is None:
                    break
                heads.append(chain)
            else:
                merged = _c3_merge(heads + [[chain[0] for chain in heads]]) if heads else []
                order = [(module, cls)] + merged if merged is not None else None
        if cut:
            del self._mros[key]
        else:
            self._mros[key] = order
        return order, cut

    def constructor(self, module: str, cls: ClassDef) -> FuncDef | None:
        """The __init__ (else __new__) that ``cls(...)`` runs: the class's own, else the first one along its
        method resolution order (:meth:`mro`; ``http.server.BaseHTTPRequestHandler`` inherits
        ``socketserver.BaseRequestHandler.__init__(self, request, client_address, server)``); None when
        the class defines none and its MRO is not known, or no class in it defines one."""
        if cls.init is not None:
            return cls.init
        for _, c in (self.mro(module, cls) or [])[1:]:
            if c.init is not None:
                return c.init
        return None

    def doc_order(self, module: str, cls: ClassDef) -> list[tuple[str, ClassDef]]:
        """cls and the classes whose docstrings it inherits, as (defining module, class), in the order
        inspect.getdoc searches them: its MRO (:meth:`mro`) when known, else its bases depth first as this
        group resolves them (a base outside the group's source left out: ``Exception`` gives no text)."""
        order = self.mro(module, cls)
        if order is not None:
            return order
        out: list[tuple[str, ClassDef]] = []
        stack = [(module, cls, 0)]
        while stack:
            where, c, depth = stack.pop()
            if any(w == where and k.name == c.name for w, k in out) or depth > 8:
                continue
            out.append((where, c))
            for base in reversed(c.bases):
                found = self.class_where(where, base) or self._doc_base(where, base)
                if found is not None:
                    stack.append((*found, depth + 1))
        return out

    def _doc_base(self, module: str, base: str) -> tuple[str, ClassDef] | None:
        """(defining module, class) of a base class_where does not follow, for docstrings only (an object's
        class and a constructor stay as class_where reads them): a class's alias (asyncio.tasks's
        ``futures._PyFuture``, bound by ``_PyFuture = Future``), a class imported from a module of another
        package (ssl's ``from socket import socket``), or a builtin class (``class Counter(dict)``)."""
        owner, _, name = base.rpartition(".")
        if not owner:
            owner = module
        elif owner not in self.modules:
            owner = self._submodule_named(module, owner)
        info = self.modules.get(owner)
        if info is None:
            return None
        if name in info.aliases:
            return self.class_where(owner, info.aliases[name])
        for imp in info.imports:
            orig = next((o for o, a in imp.names if a == name), None)
            if orig is not None:
                return self.class_where(imp.module, orig) if imp.module in self.modules else None
        builtin = self.modules.get("builtins")
        found = builtin.defs.get(name) if builtin is not None and owner == module else None
        return ("builtins", found) if isinstance(found, ClassDef) and name not in info.defs else None

    def class_doc(self, module: str, cls: ClassDef) -> str:
        """cls's docstring, else the first one along :meth:`doc_order` (inspect.getdoc inherits a class's
        docstring so since Python 3.5: ``asyncio.Server`` reads ``AbstractServer``'s), a builtin class's left
        out (``Exception``'s "Common base class for all non-exit exceptions." says nothing of ``zipfile.
        BadZipFile``); "" when none has one."""
        order = [(m, c) for m, c in self.doc_order(module, cls) if m != "builtins"]
        return next((c.doc for _, c in order if c.doc.strip()), "")

    def method_doc(self, module: str, cls: ClassDef, name: str) -> str:
        """The docstring of cls's method `name` as inspect.getdoc finds it: the first class along
        :meth:`doc_order` that defines `name` with a docstring (a method that overrides a documented one
        without its own, ``ast.NodeTransformer.generic_visit``, reads ``NodeVisitor.generic_visit``'s);
        "" when none has one."""
        for _, c in self.doc_order(module, cls):
            m = next((m for m in c.methods if m.name == name), None)
            if m is not None and m.doc.strip():
                return m.doc
        return ""

    def twin(self, module: str, name: str) -> FuncDef | ClassDef | None:
        """The def of the same name that `module` imports from a compiled module (``from _pickle import
        load``; ``from _datetime import *``), which CPython binds in place of the Python def it keeps as a
        fallback for other interpreters (pickle.py's ``load = _load`` in the ``except ImportError``
        branch); None when it imports none."""
        for imp in self.modules[module].imports if module in self.modules else ():
            if imp.module not in self.compiled:
                continue
            theirs = self.modules[imp.module].defs
            orig = next((o for o, a in imp.names if a == name), name if imp.star else None)
            found = theirs.get(orig) if orig is not None else None
            if isinstance(found, FuncDef | ClassDef):
                return found
        return None

    def methods(self, module: str, cls: ClassDef) -> list[FuncDef]:
        """cls's public methods, then those inherited through the bases this group can resolve, each name
        once (the first class that has it wins), classes in depth-first order of their bases. Each class is
        walked once (a class met again adds no name its first walk did not; a cycle of names ends): before,
        every path through the bases was walked to depth 6, W**6 walks over a lattice W wide (a 5.7 KB
        module of 10 bases per class held the python-env read 120 s, break-it round 16)."""
        out: list[FuncDef] = []
        have: set[str] = set()
        seen: set[tuple[str, int]] = set()
        stack = [(module, cls)]
        while stack:
            where, c = stack.pop()
            if (where, id(c)) in seen:
                continue
            seen.add((where, id(c)))
            for m in c.methods:
                if not m.name.startswith("_") and m.kind != "property" and m.name not in have:
                    have.add(m.name)
                    out.append(m)
            for base in reversed(c.bases):
                parent = self.class_of(where, base)
                if parent is not None:
                    stack.append((base.rpartition(".")[0] or where, parent))
        return out

    def private_methods(
        self, module: str, cls: ClassDef, shown: set[tuple[str, str]]
    ) -> list[tuple[str, ClassDef, FuncDef]]:
        """The public methods cls inherits from bases that have no doc of their own (not in `shown`, the
        (defining module, class) of every class the group's docs show: matplotlib's ``Axes(_AxesBase)``,
        whose ``invert_yaxis`` and ``grid`` were in no doc), as (defining module, class, method), along
        :meth:`doc_order` (the first class that has a name wins, so an override by cls or a base before it
        is kept out). Such a base that a shown base of cls also inherits from is that base's
        (``PolarAxes(Axes)`` gets none of _AxesBase's: they are Axes's docs)."""
        order = self.doc_order(module, cls)
        theirs = {
            (w, id(k))
            for where, c in order[1:]
            if (where, c.name) in shown
            for w, k in self.doc_order(where, c)
        }
        out: list[tuple[str, ClassDef, FuncDef]] = []
        have = {m.name for m in cls.methods}
        for where, c in order[1:]:
            mine = where != "builtins" and (where, c.name) not in shown and (where, id(c)) not in theirs
            for m in c.methods:
                if m.name.startswith("_") or m.kind == "property" or m.name in have:
                    continue
                have.add(m.name)
                if mine:
                    out.append((where, c, m))
        return out


def _c3_merge(seqs: list[list[tuple[str, ClassDef]]]) -> list[tuple[str, ClassDef]] | None:
    """The C3 merge of `seqs` (Python's MRO rule, https://docs.python.org/3/howto/mro.html), classes
    compared by (module, name); None when no consistent order exists (Python raises TypeError).

    How often each class stands in a tail (after a list's head) is counted once and kept as heads are taken,
    so a merge costs the total length of `seqs` plus (length of the result) x (number of lists); before,
    every candidate rebuilt a set of every other list's tail (a class of 30 bases over 10 levels: minutes,
    break-it round 16). A head in no tail is in no list but at its head, so taking it moves only heads."""
    lists = [s for s in seqs if s]
    keys = [[(m, c.name) for m, c in s] for s in lists]
    tails = Counter(k for ks in keys for k in ks[1:])
    at = [0] * len(lists)  # the index of each list's head
    live = list(range(len(lists)))
    out: list[tuple[str, ClassDef]] = []
    while live:
        pick = next((i for i in live if not tails[keys[i][at[i]]]), None)
        if pick is None:
            return None
        out.append(lists[pick][at[pick]])
        taken = keys[pick][at[pick]]
        for i in live:
            if keys[i][at[i]] == taken:
                at[i] += 1
                if at[i] < len(keys[i]):
                    tails[keys[i][at[i]]] -= 1
        live = [i for i in live if at[i] < len(keys[i])]
    return out


def is_public(module: str) -> bool:
    """Whether dotted module name `module` has no part starting with an underscore."""
    return not any(p.startswith("_") for p in module.split("."))
