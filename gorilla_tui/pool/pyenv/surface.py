"""The public surface of one Python module as read: ModuleInfo and its parts (defs with their signatures,
classes, `from ... import` statements), filled by module_api.read_module and pyenv.compiled."""

from __future__ import annotations

from dataclasses import dataclass, field

#: Longest default-value source text kept in a signature; longer ones are cut and end in "...".
MAX_DEFAULT_CHARS = 40


@dataclass
class Param:
    """One parameter. kind: "posonly" (before /), "poskw", "kwonly" (after * or *args), "var" (*args),
    "varkw" (**kwargs). default: the default's source text, or None when the parameter is required."""

    name: str
    kind: str
    default: str | None = None

    @property
    def required(self) -> bool:
        return self.default is None and self.kind in ("posonly", "poskw", "kwonly")


@dataclass
class FuncDef:
    """A def. kind: "function", "method", "classmethod", "staticmethod" or "property". params exclude the
    bound first parameter (self / cls) of methods and classmethods. doc: the raw docstring ("" if none).
    returns: the callee of the first ``return Callee(...)`` in the body ("" if none): it types module-level
    objects such as ``environ = _createenviron()`` (os.py). params_known: False when the parameters could not
    be read (a C function without a text signature or a signature line in its docstring): an empty params
    then means "unknown", not "takes none". overload: see the field."""

    name: str
    params: list[Param]
    doc: str = ""
    kind: str = "function"
    is_async: bool = False
    line: int = 0
    returns: str = ""
    params_known: bool = True
    #: decorated with ``@overload`` (typing): the implementation def after it, when there is one, is the
    #: def kept (its signature and docstring are the real ones: pandas.read_csv)
    overload: bool = False


@dataclass
class ClassDef:
    """A class: its docstring, its __init__ (None when the class body defines none) and its methods."""

    name: str
    doc: str = ""
    init: FuncDef | None = None
    methods: list[FuncDef] = field(default_factory=list)
    line: int = 0
    #: base classes as written (``_collections_abc.MutableMapping``), for inherited methods of objects.
    bases: list[str] = field(default_factory=list)
    #: False when the class statement has more than plain names as bases (a keyword such as
    #: ``metaclass=``, a ``*bases`` splat, a call or subscript) or a decorator (``@dataclass`` writes an
    #: __init__): the __init__ it inherits is then not known from its bases (resolve.Resolver.constructor).
    plain: bool = True
    #: a compiled class's public attribute names, its methods and its data descriptors (_pickle.Pickler's
    #: ``persistent_id`` is a getset): what CPython's class has, read by names.py for the Python fallback
    #: class a module keeps beside it; empty for a class read from source
    attributes: frozenset[str] = frozenset()


@dataclass
class ImportFrom:
    """``from MODULE import a as b`` (names = [("a", "b")]) or ``from MODULE import *`` (star=True).
    module is absolute (relative imports are resolved against the importing module)."""

    module: str
    names: list[tuple[str, str]] = field(default_factory=list)
    star: bool = False


@dataclass
class ModuleInfo:
    """What :func:`read_module` finds at module level (also inside top-level if/try/with blocks).

    all_names: the literal ``__all__`` (list/tuple of strings, with literal += / append / extend), or
    None when absent or built by code. aliases: ``name = other`` assignments between identifiers;
    assigned: every other name bound by a plain assignment (constants, computed values).
    """

    name: str
    is_package: bool = False
    doc: str = ""
    all_names: list[str] | None = None
    defs: dict[str, FuncDef | ClassDef] = field(default_factory=dict)
    imports: list[ImportFrom] = field(default_factory=list)
    aliases: dict[str, str] = field(default_factory=dict)
    assigned: set[str] = field(default_factory=set)
    #: module-level objects made by a call, ``environ = _createenviron()``: name -> callee source text.
    instances: dict[str, str] = field(default_factory=dict)
    #: module-level objects whose type is known from the interpreter (compiled modules: sys.stdout).
    objects: dict[str, ClassDef] = field(default_factory=dict)
    #: ``globals().update((n, getattr(OBJ, n)) ...)``: the module exports OBJ's public methods as functions
    #: (multiprocessing/__init__.py: context._default_context, so multiprocessing.Pool); OBJ's source text.
    exported_object: str = ""
    #: modules named by ``import X`` / ``import X as Y`` anywhere in the source, function bodies too
    #: (hashlib imports _md5 inside the function that makes its md5 constructor at import time).
    imported: set[str] = field(default_factory=set)
    #: names a type stub annotates with a class it imports (numpy's ``sqrt: _UFunc_Nin1_Nout1[...]``):
    #: name -> (module, class), made functions by pool/pyenv/stubs.py merge_stubs when the class is callable
    typed: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: functions a module makes at import time from a class's methods of the same names, by a call of one
    #: of its own functions that writes ``globals()`` with a literal list of names and the class
    #: (turtle.py's ``_make_global_funcs(_tg_turtle_functions, Turtle, ...)``): name -> the class's name
    made_from: dict[str, str] = field(default_factory=dict)
