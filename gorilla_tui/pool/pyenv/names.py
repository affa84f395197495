"""Which names of a group's modules become ApiDocs of the python-env source: re-exports followed to each
definition's shortest public name (resolve.Resolver), then one doc per public function, class, method and
method of a module-level object (_Builder, emit)."""

from __future__ import annotations

import dataclasses
import os

from gorilla_tui.pool.doc import ApiDoc, LoadResult
from gorilla_tui.pool.pyenv import (  # the source name of every doc this loader makes; signature separators
    KEYWORD_ONLY_MARK,
    POSITIONAL_ONLY_MARK,
    SOURCE,
)
from gorilla_tui.pool.pyenv.groups import Group
from gorilla_tui.pool.pyenv.module_api import (
    ClassDef,
    FuncDef,
    ModuleInfo,
    Param,
    description,
    first_paragraph,
)
from gorilla_tui.pool.pyenv.resolve import Resolver, is_public

STDLIB_DOMAIN = "Python standard library"

#: Module aliases fixed by the interpreter at import time: os.path is posixpath on POSIX, ntpath on Windows;
#: builtins are called by their bare names (open, sorted).
MODULE_ALIASES = {("posixpath" if os.name != "nt" else "ntpath"): "os.path", "builtins": ""}


def borrowed(name: str, doc: str) -> str:
    """A docstring taken from another def for `name` (a compiled twin's, a base class's), without the
    signature lines a C docstring starts with when more follows (module_api.description: ``send(data[,
    flags]) -> count`` is no description of ssl.SSLSocket.send; ``D.get(k[,d]) -> D[k] if k in D, else d.``
    alone is kept)."""
    return (description(name, doc) or doc) if doc.strip() else ""


def _display_module(name: str) -> str:
    for real, alias in MODULE_ALIASES.items():
        if name == real or name.startswith(real + "."):
            return alias + name[len(real) :]
    return name


def _qualify(module: str, name: str) -> str:
    return f"{module}.{name}" if module else name


def _call_args(params: list[Param]) -> str:
    parts = [p.name if p.kind != "kwonly" else f"{p.name}={p.name}" for p in params if p.required]
    return ", ".join(parts)


def _arguments(params: list[Param], known: bool = False) -> dict[str, str]:
    """api_arguments of a python-env doc: name -> default source text or "required"; "*name" / "**name"
    -> "optional" for ``*args`` / ``**kwargs``; the separators "/" and "*" (value "") where Python's
    signature has them (``json.loads(s, *, cls=None, ...)``, ``len(obj, /)``), so the checker
    (check/imports.py argument_errors) knows which parameters may be given by position or by keyword.
    A function `known` to take no parameter (``os.getcwd()``, ``time.time()``) gets the separator "/"
    alone, so ``os.getcwd(1)`` is wrong_args; an empty dict means its parameters are unknown."""
    if not params and known:
        return {POSITIONAL_ONLY_MARK: ""}
    out: dict[str, str] = {}
    var_seen = False
    for i, p in enumerate(params):
        if p.kind == "kwonly" and not var_seen and KEYWORD_ONLY_MARK not in out:
            out[KEYWORD_ONLY_MARK] = ""
        if p.kind == "var":
            var_seen = True
            out["*" + p.name] = "optional"
        elif p.kind == "varkw":
            out["**" + p.name] = "optional"
        else:
            out[p.name] = p.default if p.default is not None else "required"
        if p.kind == "posonly" and (i + 1 == len(params) or params[i + 1].kind != "posonly"):
            out[POSITIONAL_ONLY_MARK] = ""
    return out


class _Builder:
    """Turns resolved definitions into ApiDocs for one group (ids unique across the whole result)."""

    def __init__(
        self, group: Group, result: LoadResult, seen: set[str], resolver: Resolver | None = None
    ) -> None:
        self.group, self.result, self.seen = group, result, seen
        self.resolver = resolver or Resolver({})
        self.domain = STDLIB_DOMAIN if group.is_stdlib else ""
        self.requirements = [] if group.is_stdlib else [f"{group.dist}=={group.version}"]
        #: (defining module, class) of every class this group's docs show (_Builder.klass: private_methods)
        self.shown: set[tuple[str, str]] = set()

    def add(
        self,
        qualname: str,
        module: str,
        kind: str,
        call: str,
        params: list[Param],
        doc: str,
        known: bool = False,
    ) -> None:
        """One doc. known: its params are read from a signature (an empty list then means "takes none");
        False for a class (an __init__ not in the class body may take any) and a compiled callable."""
        if qualname in self.seen:
            return
        self.seen.add(qualname)
        self.result.docs.append(
            ApiDoc(
                id=f"{SOURCE}:{qualname}",
                source=SOURCE,
                api_call=call,
                api_name=qualname,
                domain=self.domain or module.split(".")[0],
                framework=self.group.dist,
                functionality=f"{kind} in {module or 'builtins'}",
                api_arguments=_arguments(params, known),
                env_requirements=list(self.requirements),
                example_code=f"import {module}\n{call}" if module else call,
                description=self.describe(qualname.rsplit(".", 1)[-1], doc) if doc else "",
                api_version=self.group.version,
            )
        )

    def describe(self, name: str, doc: str) -> str:
        """A doc's description: a distribution's docstring without the signature lines it starts with
        (module_api.description: numpy's); the standard library's first paragraph as written, so its docs
        keep the text the packaged vector seed (build/seed.py) was embedded from."""
        return first_paragraph(doc) if self.group.is_stdlib else description(name, doc)

    def function(
        self, qualname: str, module: str, fn: FuncDef, twin: FuncDef | ClassDef | None = None
    ) -> None:
        """The doc of a function; `twin`: the compiled def CPython binds in its place (Resolver.twin),
        whose docstring a Python def without one takes (pickle.load: ``load = _load`` has none)."""
        kind = "async function" if fn.is_async else "function"
        call = f"{qualname}({_call_args(fn.params)})"
        doc = fn.doc or (borrowed(fn.name, twin.doc) if isinstance(twin, FuncDef) else "")
        self.add(qualname, module, kind, call, fn.params, doc, known=fn.params_known)

    def klass(
        self,
        qualname: str,
        module: str,
        cls: ClassDef,
        constructor: FuncDef | None = None,
        where: str = "",
        twin: FuncDef | ClassDef | None = None,
    ) -> None:
        """The doc of a class and of its public methods; `constructor`: the __init__ (or __new__) its calls
        run (Resolver.constructor: its own, or the one it inherits), cls.init when None. A docstring left
        out is found as inspect.getdoc finds it: the class's (else its constructor's) or, from `twin` (the
        compiled class CPython binds in its place, Resolver.twin), the twin's, else the first along its
        bases (Resolver.class_doc, Resolver.method_doc; `where`: the module defining cls). A method of a
        class without bases that its twin lacks (ClassDef.attributes) is left out: CPython's class has no
        such method (pickle.py's fallback ``_Pickler`` has ``save_tuple`` and 17 more ``save_*``,
        ``_Unpickler`` 70 ``load_*``: no attribute of _pickle.Pickler / Unpickler, yet each was a doc the
        checker called valid)."""
        made_by = constructor or cls.init
        init = made_by.params if made_by else []
        ctor = f"{qualname}({_call_args(init)})"
        twin = twin if isinstance(twin, ClassDef) else None
        doc = cls.doc or (made_by.doc if made_by else "") or borrowed(cls.name, twin.doc if twin else "")
        doc = doc or borrowed(cls.name, self.resolver.class_doc(where, cls))
        self.add(qualname, module, "class", ctor, init, doc)
        twin_has = twin.attributes if twin is not None and twin.attributes and not cls.bases else None
        for m in cls.methods:
            if m.name.startswith("_") or m.kind == "property":
                continue
            if twin_has is not None and m.name not in twin_has:
                continue  # pickle.Pickler's save_tuple: the Python fallback's, not on _pickle.Pickler
            owner = ctor if m.kind == "method" else qualname
            twin_m = next((t for t in twin.methods if t.name == m.name), None) if twin else None
            self.add(
                f"{qualname}.{m.name}",
                module,
                m.kind,
                f"{owner}.{m.name}({_call_args(m.params)})",
                m.params,
                m.doc
                or borrowed(m.name, twin_m.doc if twin_m else "")
                or borrowed(m.name, self.resolver.method_doc(where, cls, m.name)),
                known=m.params_known,
            )
        # methods of bases with no doc of their own: Axes's invert_yaxis (_AxesBase)
        for home, base, m in self.resolver.private_methods(where, cls, self.shown):
            owner = ctor if m.kind == "method" else qualname
            doc = m.doc or borrowed(m.name, self.resolver.method_doc(home, base, m.name))
            call = f"{owner}.{m.name}({_call_args(m.params)})"
            self.add(f"{qualname}.{m.name}", module, m.kind, call, m.params, doc, known=m.params_known)

    def bare(self, qualname: str, module: str) -> None:
        """A name in a literal __all__ whose definition is not in Python source (a C extension)."""
        self.add(qualname, module, "compiled callable", f"{qualname}()", [], "")


def _submodule_def(modules: dict[str, ModuleInfo], package: str, name: str) -> tuple[str, str] | None:
    """The one direct submodule of `package` defining `name` (lazy __getattr__ re-exports), else None."""
    found = [
        m
        for m, info in modules.items()
        if m.rsplit(".", 1)[0] == package and m != package and name in info.defs
    ]
    return (found[0], name) if len(found) == 1 else None


def _made_at_import(
    modules: dict[str, ModuleInfo], compiled: frozenset[str], info: ModuleInfo, name: str
) -> tuple[str, str] | None:
    """(compiled module, name) for a name of a literal __all__ that the module's source binds only at
    import time, from the one private compiled module it imports (an implementation module, as _follows
    reads them: ``_md5``; never ``math``, whose ``degrees`` is not turtle's ``degrees``) that defines a
    function or class of that name; else None. hashlib's constructors: ``globals()[name] =
    __get_hash(name)`` makes ``hashlib.md5`` from OpenSSL (``_hashlib.openssl_md5``) or from
    ``_md5.md5``, the one of the same name, with the same signature ``(string=b'', *,
    usedforsecurity=True)`` and docstring; without it hashlib.md5 was a doc with no description or
    parameters, and "compute the md5 of a file" found uuid.uuid3 first."""
    found = [
        m
        for m in sorted(info.imported & compiled)
        if m.startswith("_") and isinstance(modules[m].defs.get(name), (FuncDef, ClassDef))
    ]
    return (found[0], name) if len(found) == 1 else None


def _made_from_method(resolver: Resolver, module: str, name: str) -> FuncDef | None:
    """The function `module` makes at import time from the method `name` of a class of its own
    (ModuleInfo.made_from; an alias of such a name too, turtle's ``done = mainloop``), as a module-level
    function: the method's parameters (without self) and docstring (its own or its bases',
    Resolver.method_doc). turtle.py's ``_make_global_funcs`` execs ``def forward(distance): return
    Turtle._pen.forward(distance)`` for each name of ``_tg_turtle_functions``; these 111 names of its
    ``__all__`` were "compiled callable" docs with no parameters and no description."""
    info = resolver.modules[module]
    cls_name = info.made_from.get(name) or info.made_from.get(info.aliases.get(name, ""))
    found = resolver.class_where(module, cls_name) if cls_name else None
    if found is None:
        return None
    wanted = name if name in info.made_from else info.aliases[name]
    method = next((m for m in resolver.methods(*found) if m.name == wanted and m.kind == "method"), None)
    if method is None:
        return None
    doc = method.doc or borrowed(wanted, resolver.method_doc(*found, wanted))
    return dataclasses.replace(method, name=name, doc=doc, kind="function", line=0)


def _star_def(resolver: Resolver, info: ModuleInfo, name: str) -> tuple[str, str] | None:
    """(defining module, def name) of `name` when the module's literal __all__ lists it and a star import of
    another module of the group's source brings it (``posixpath``: ``from genericpath import *`` and
    ``getmtime`` in __all__), else None. Resolver.exports follows star imports only into the importer's own
    package or private or compiled modules; the literal __all__ is what makes the name the module's own,
    so os.path.getmtime gets genericpath's parameters and docstring (it was a bare "compiled callable"
    with neither, and filling had no parameter for "when was report.pdf last modified")."""
    for imp in info.imports:
        if imp.star and imp.module in resolver.modules:
            target = resolver.exports(imp.module).get(name, (None, ""))[0]
            found = resolver.modules[target[0]].defs.get(target[1]) if target is not None else None
            if isinstance(found, FuncDef | ClassDef):
                return target
    return None


def emit(
    group: Group,
    modules: dict[str, ModuleInfo],
    result: LoadResult,
    seen: set[str],
    compiled: frozenset[str] = frozenset(),
) -> None:
    resolver = Resolver(modules, compiled)
    best: dict[tuple[str, str], tuple[tuple[int, int, int, str], str]] = {}  # def -> (rank key, qualname)
    bare: list[tuple[str, str]] = []
    listed: list[tuple[tuple[str, str], str]] = []  # (def, qualname): a literal __all__'s star-imported names
    made_funcs: list[tuple[str, str, FuncDef]] = []  # (qualname, module, method): turtle.forward
    for mod in sorted(modules):
        if not is_public(mod):
            continue
        exp, info, shown = resolver.exports(mod), modules[mod], _display_module(mod)
        for n in resolver.public(mod):
            target = exp.get(n, (None, ""))[0]
            if n.startswith("_") and not resolver.compiled_function(target):
                continue
            if target is None and info.is_package:
                target = _submodule_def(modules, mod, n)
            if target is None and info.all_names is not None and n not in info.assigned:
                target = _made_at_import(modules, compiled, info, n)
            qual = _qualify(shown, n)
            starred = _star_def(resolver, info, n) if target is None and info.all_names is not None else None
            if starred is not None:  # os.path.getmtime: posixpath's `from genericpath import *`
                listed.append((starred, qual))
                continue
            if target is None and (made := _made_from_method(resolver, mod, n)) is not None:
                made_funcs.append((qual, shown, made))
                continue
            if target is None:
                if (
                    info.all_names is not None
                    and n not in info.assigned
                    and f"{mod}.{n}" not in modules
                    and not resolver.is_value(mod, n)
                ):
                    bare.append((qual, shown))
                continue
            # shortest name first; a source module beats a compiled one; the defining module breaks ties
            key = (qual.count("."), int(mod in compiled), int(target != (mod, n)), qual)
            if target not in best or key < best[target][0]:
                best[target] = (key, qual)
    builder = _Builder(group, result, seen, resolver)
    chosen = [(target, qual) for target, (_, qual) in best.items()]
    builder.shown = {target for target, _ in chosen + listed}
    for (mod, name), qual in sorted(chosen + listed, key=lambda kv: kv[1]):
        defs = modules[mod].defs
        d = defs.get(name) or defs.get(modules[mod].aliases.get(name, ""))
        module = qual.rsplit(".", 1)[0] if "." in qual else ""
        if isinstance(d, ClassDef):
            builder.klass(qual, module, d, resolver.constructor(mod, d), mod, resolver.twin(mod, name))
        elif isinstance(d, FuncDef) and d.kind == "function":
            builder.function(qual, module, d, resolver.twin(mod, name))
    for qual, module, method in made_funcs:
        builder.function(qual, module, method)
    for qual, module in bare:
        builder.bare(qual, module)
    _emit_objects(modules, resolver, builder)


def _emit_objects(modules: dict[str, ModuleInfo], resolver: Resolver, builder: _Builder) -> None:
    """Methods of public module-level objects: ``os.environ.get`` (environ = _createenviron(), which
    returns an _Environ, a MutableMapping), ``sys.stdout.write`` (compiled: the interpreter's type)."""
    for mod in sorted(modules):
        info = modules[mod]
        if not is_public(mod):
            continue
        shown = _display_module(mod)
        listed = set(info.all_names) if info.all_names is not None else None
        objects: dict[str, tuple[str, ClassDef]] = {n: (mod, cls) for n, cls in info.objects.items()}
        for n, callee in info.instances.items():
            if n in info.assigned and (cls := resolver.class_of(mod, callee)) is not None:
                objects.setdefault(n, (mod, cls))
        if info.exported_object and (found := _exported_object(modules, resolver, mod)) is not None:
            where, cls = found
            for m in resolver.methods(where, cls):  # multiprocessing.Pool: DefaultContext().Pool
                qual = _qualify(shown, m.name)
                call = f"{qual}({_call_args(m.params)})"
                kind = f"function (method of {cls.name})"
                doc = m.doc or borrowed(m.name, resolver.method_doc(where, cls, m.name))
                builder.add(qual, shown, kind, call, m.params, doc, known=m.params_known)
        for n, (where, cls) in sorted(objects.items()):
            if n.startswith("_") or (listed is not None and n not in listed):
                continue
            qual = _qualify(shown, n)
            methods = (
                resolver.methods(where, cls)
                if cls.line
                else [m for m in cls.methods if not m.name.startswith("_")]
            )
            for m in methods:
                builder.add(
                    f"{qual}.{m.name}",
                    shown,
                    f"method of {qual} ({cls.name})",
                    f"{qual}.{m.name}({_call_args(m.params)})",
                    m.params,
                    m.doc or borrowed(m.name, resolver.method_doc(where, cls, m.name)),
                    known=m.params_known,
                )


def _exported_object(
    modules: dict[str, ModuleInfo], resolver: Resolver, mod: str
) -> tuple[str, ClassDef] | None:
    """(defining module, class) of the object whose attributes module `mod` copies into its globals
    (``context._default_context``: a submodule's module-level object), or None when it cannot be resolved."""
    owner, _, name = modules[mod].exported_object.rpartition(".")
    for candidate in (f"{mod}.{owner}" if owner else mod, owner):
        info = modules.get(candidate)
        if info is not None and name in info.instances:
            cls = resolver.class_of(candidate, info.instances[name])
            return (candidate, cls) if cls is not None else None
    return None
