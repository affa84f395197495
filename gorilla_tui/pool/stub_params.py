"""What the standard library's type stubs say a function's parameters take: the kinds of value each admits,
which of them it types with types read here, and the keywords a function that takes ``**kwargs`` passes on
(`read_params`, read once a function through pool/stub_cache.py: kinds, admits, typed, forwarded).

python-env's docs read signatures with inspect, which gives a C function or an unannotated one no types:
``re.sub(pattern, repl, string)`` and ``turtle.bgpic(picname)`` take "any" value there, so the 4 of "four
spaces" filled re.sub's pattern and the 800 of "800 pixels" bgpic's file name. typeshed's stubs (the ones
mypy and pyright read, through pool/typeshed.py's resolver) type them: ``pattern: str | Pattern[str]``
takes no number. ``subprocess.check_output(*popenargs, **kwargs)`` passes its keywords on to Popen; its stub
writes them out (``cwd: StrOrBytesPath | None``), so a task's "in the folder build" has a parameter to go to.
A name the stubs alias without a kind this module knows (``_CMD``, a type variable) admits anything.
pool/typeshed.py (and so typeshed_client, ~0.2 s) is imported on the first reading, not with this module.
"""

from __future__ import annotations

import ast
import re

#: The kinds of value `kinds` tells apart.
KINDS = ("number", "string", "boolean", "array", "object")
#: Annotation names -> the kinds of value they admit; a name not here admits anything. typeshed's
#: aliases of paths (StrPath, StrOrBytesPath), of file descriptors (int or path) and of numbers.
_NAMES: dict[str, frozenset[str]] = {
    **dict.fromkeys(
        "int float complex SupportsIndex SupportsInt SupportsFloat _SupportsFloatOrIndex Real Decimal "
        "Fraction".split(),
        frozenset({"number"}),
    ),
    **dict.fromkeys(
        "str bytes bytearray StrPath BytesPath StrOrBytesPath PathLike AnyStr LiteralString Pattern "
        "GenericPath _StrPathT ReadableBuffer Buffer".split(),
        frozenset({"string"}),
    ),
    **dict.fromkeys(("FileDescriptorOrPath", "FileDescriptorLike"), frozenset({"number", "string"})),
    "bool": frozenset({"boolean"}),
    **dict.fromkeys("list tuple set frozenset AbstractSet".split(), frozenset({"array"})),
    # a str is a sequence; random.choice's seq is a SupportsLenAndGetItem (break-it round 29, F1: read as
    # unknown, it took the 5 of "pick 5 random names from `names`" and never the variable)
    **dict.fromkeys(("Sequence", "MutableSequence", "SupportsLenAndGetItem"), frozenset({"array", "string"})),
    # a dict is iterable too: sorted(iterable) of "sort dict `scores` by value"
    **dict.fromkeys(("Iterable", "Collection"), frozenset({"array", "string", "object"})),
    # a function is no value a task writes: re.sub's repl of "four spaces" takes no 4
    "Callable": frozenset(),
    **dict.fromkeys(("dict", "Mapping", "MutableMapping"), frozenset({"object"})),
    "None": frozenset(),
}
#: Every kind: what an annotation this module cannot read admits.
ANY = frozenset(KINDS)


def _annotation_kinds(node: ast.expr | None, module: str = "", depth: int = 0) -> frozenset[str]:
    """The kinds of value an annotation admits: the union of its members' (``str | Pattern[str]`` ->
    string; ``int | None`` -> number); for a name _NAMES does not know, the kinds of the type alias
    `module`'s stub binds it to (_alias: ``_Timer: TypeAlias = Callable[[], float]`` none; break-it round
    27: timeit.Timer's timer took 3), else of the class it names (_class_kinds: ``Policy`` none,
    ``RegexFlag`` number), ANY for another name (a type variable, a Protocol, ``Any``, ``object``), without
    `module` or past _MAX_ALIASES aliases in a row."""
    if node is None:
        return ANY
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        left, right = (
            _annotation_kinds(node.left, module, depth),
            _annotation_kinds(node.right, module, depth),
        )
        return left | right
    if isinstance(node, ast.Constant) and node.value is None:
        return frozenset()
    if isinstance(node, ast.Subscript):
        head = ast.unparse(node.value).rpartition(".")[2]
        if head in ("Optional", "Union"):
            inner = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            return frozenset().union(*(_annotation_kinds(n, module, depth) for n in inner))
        if head == "Literal":
            inner = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            out: set[str] = set()
            for n in inner:
                v = n.value if isinstance(n, ast.Constant) else object()
                kind = ("boolean" if isinstance(v, bool) else "number" if isinstance(v, (int, float))
                        else "string" if isinstance(v, (str, bytes)) else "")  # fmt: skip
                if not kind and v is not None:
                    return ANY
                out |= {kind} if kind else set()
            return frozenset(out)
        node = node.value
    if isinstance(node, (ast.Name, ast.Attribute)):
        dotted = ast.unparse(node)
        short = dotted.rpartition(".")[2]
        if short in _NAMES:
            return _NAMES[short]
        if not module or short in ("Any", "object"):
            return ANY
        alias = _alias(module, dotted) if depth < _MAX_ALIASES else None
        if alias is not None:
            return _annotation_kinds(alias[1], alias[0], depth + 1)
        found = _class_kinds(module, dotted)
        return ANY if found is None else found
    return ANY


#: Most type aliases followed in a row (an alias of an alias...).
_MAX_ALIASES = 8


def _alias(module: str, name: str) -> tuple[str, ast.expr] | None:
    """(the module whose stub binds it, the type expression) of a type alias `module`'s stub names by
    `name`: ``X: TypeAlias = ...`` or an old-style ``X = Callable[[], float]`` (a subscript or a union, not
    a call: ``_T = TypeVar("_T")`` is a type variable, no alias); None for anything else."""
    from gorilla_tui.pool.typeshed import _defined  # see _definitions

    found = _defined(f"{module}.{name}" if "." not in name else name)
    node = found[1] if found is not None else None
    if isinstance(node, ast.AnnAssign) and node.value is not None:
        if ast.unparse(node.annotation).rpartition(".")[2] == "TypeAlias":
            return found[0], node.value  # type: ignore[index]
    if isinstance(node, ast.Assign) and isinstance(node.value, (ast.Subscript, ast.BinOp)):
        return found[0], node.value  # type: ignore[index]
    return None


def _definitions(function: str) -> tuple[str, list[ast.FunctionDef | ast.AsyncFunctionDef]]:
    """(the module whose stub defines them, the stub's definitions, overloads in order) of module-level
    `function`, a builtin (``sorted``), a class (its ``__init__``, else its ``__new__``, a base's where the
    class has none: ``email.message.EmailMessage(policy)`` is MIMEPart's), a method ``module.Class.method``
    (inside a class body's version checks too: ``datetime.datetime.fromtimestamp``; a base class's where the
    class does not define it: ``socket.socket.setblocking`` is ``_socket.socket``'s) or a module-level name
    bound to a method of a module-level instance (random's ``sample = _inst.sample``, ``_inst: Random``);
    ("", []) where no stub has it."""
    from gorilla_tui.pool.typeshed import _defined, _functions  # the stubs, read on a cache miss only

    found = _defined(function if "." in function else f"builtins.{function}")
    if found is not None and isinstance(found[1], ast.Assign) and isinstance(found[1].value, ast.Attribute):
        bound = found[1].value  # sample = _inst.sample
        inst = _defined(f"{found[0]}.{ast.unparse(bound.value)}")
        if inst is not None and isinstance(inst[1], ast.AnnAssign):
            return _methods(f"{found[0]}.{ast.unparse(inst[1].annotation)}", bound.attr)
        return "", []
    if found is not None and isinstance(found[1], ast.ClassDef):
        dotted = function if "." in function else f"builtins.{function}"
        if _makes_other(found[1]):  # its __init__ never runs: ast.Ellipsis() is a Constant (break-it 31)
            return _methods(dotted, "__new__")
        module, defs = _methods(dotted, "__init__")
        return (module, defs) if defs else _methods(function, "__new__")
    if found is not None:
        return found[0], list(_functions(found[1]))
    owner, _, method = function.rpartition(".")
    return _methods(owner if "." in owner else f"builtins.{owner}", method)


def _makes_other(cls: ast.ClassDef) -> bool:
    """True when class `cls`'s own ``__new__`` is annotated to return another class (ast.pyi's deprecated
    ``class Ellipsis(Constant)``: ``def __new__(cls, **kwargs) -> Constant``): Python then never calls
    ``__init__`` on the result (the data model), so only ``__new__`` says what a call takes."""
    for node in cls.body:
        if isinstance(node, ast.FunctionDef) and node.name == "__new__" and node.returns is not None:
            returned = ast.unparse(node.returns).split("[", 1)[0]  # Interpolation[_T]: the class itself
            return returned not in (cls.name, "Self", "typing.Self", "typing_extensions.Self") and not (
                returned.startswith("_") or returned[:1].islower()  # a TypeVar (_T), a builtin (type, str)
            )
    return False


#: Most base classes followed up from a class to find a method it inherits.
_MAX_BASES = 12


def _methods(cls: str, method: str) -> tuple[str, list[ast.FunctionDef | ast.AsyncFunctionDef]]:
    """(the module, the definitions) of `method` in class `cls`'s stub body, its version checks' branches
    included, else in its nearest base class's that has it (depth first, in the order the bases are
    written, at most _MAX_BASES classes); ("", []) where none has it."""
    from gorilla_tui.pool.typeshed import _defined  # see _definitions

    todo, seen = [cls], set()
    while todo and len(seen) < _MAX_BASES:
        name = todo.pop(0)
        found = _defined(name) if name not in seen else None
        seen.add(name)
        if found is None or not isinstance(found[1], ast.ClassDef):
            continue
        defs = (ast.FunctionDef, ast.AsyncFunctionDef)
        out = [node for node in ast.walk(found[1]) if isinstance(node, defs) and node.name == method]
        if out:
            return found[0], out
        todo = [*_bases(found[0], found[1]), *todo]
    return "", []


def _bases(module: str, node: ast.ClassDef) -> list[str]:
    """The dotted names of class `node`'s bases as `module` sees them (``MIMEPart`` -> ``email.message
    .MIMEPart``, ``_socket.socket`` as written, a generic's ``Base[T]`` as ``Base``); Protocol, Generic and
    object left out."""
    out = []
    for base in node.bases:
        if isinstance(base, ast.Subscript):
            base = base.value
        if not isinstance(base, (ast.Name, ast.Attribute)):
            continue
        text = ast.unparse(base)
        if text.rpartition(".")[2] in ("Protocol", "Generic", "object"):
            continue
        out.append(text if "." in text else f"{module}.{text}")
    return out


def _class_kinds(module: str, name: str) -> frozenset[str] | None:
    """The kinds of literal a value of class `name` (as `module`'s stub names it) may be: the kinds of the
    bases _NAMES knows, found up its bases (``re.RegexFlag`` is an int: number; ``email.policy.Policy``
    none: a task's string is no Policy); None where `name` is no class the stubs define (an alias, a type
    variable), is a Protocol (a str may have the methods it asks for), or has a base read as neither and
    no base of a known kind: then it admits anything."""
    from gorilla_tui.pool.typeshed import _defined  # see _definitions

    kinds: set[str] = set()
    unknown = False  # a base that is no class the stubs define (an alias: IntEnum's _IntEnumBase)
    todo, seen = [f"{module}.{name}" if "." not in name else name], set()
    while todo:
        dotted = todo.pop()
        if dotted in seen or len(seen) >= _MAX_BASES:
            unknown = unknown or dotted not in seen
            continue
        seen.add(dotted)
        short = dotted.rpartition(".")[2]
        if short in _NAMES and len(seen) > 1:
            kinds |= _NAMES[short]
            continue
        found = _defined(dotted)
        if found is None or not isinstance(found[1], ast.ClassDef):
            if len(seen) == 1:
                return None
            unknown = True
            continue
        if any(ast.unparse(b.value if isinstance(b, ast.Subscript) else b).endswith("Protocol")
               for b in found[1].bases):  # fmt: skip
            return None
        todo += _bases(found[0], found[1])
    return None if unknown and not kinds else frozenset(kinds)


def _known(node: ast.expr | None) -> bool:
    """Whether an annotation names only types this module reads (_NAMES, ``object``, ``Any``, None):
    ``SupportsWrite[str]`` (a file object) or a type variable is not read."""
    if node is None:
        return False
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _known(node.left) and _known(node.right)
    if isinstance(node, ast.Constant):
        return node.value is None
    if isinstance(node, ast.Subscript):
        head = ast.unparse(node.value).rpartition(".")[2]
        if head in ("Optional", "Union"):
            inner = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            return all(_known(n) for n in inner)
        return head == "Literal" or _known(node.value)
    if isinstance(node, (ast.Name, ast.Attribute)):
        return ast.unparse(node).rpartition(".")[2] in {*_NAMES, "object", "Any"}
    return False


#: The Param types a forwarded keyword is offered as: its one kind of value, else "any".
PARAM_TYPES = ("boolean", "number", "string", "any")
#: Annotations of a forwarded keyword -> the Param type it is offered as ("any" otherwise).
_PARAM_TYPES = {frozenset({kind}): kind for kind in PARAM_TYPES[:-1]}
#: The shapes of value read_params tells apart beyond kinds (a parameter of neither has none).
SHAPES = ("bytes", "command", "none")
#: read_params' answer: (kinds, typed, forwarded, shapes, required).
ParamFacts = tuple[
    dict[str, frozenset[str]], frozenset[str], tuple[tuple[str, str], ...], dict[str, str], tuple[str, ...]
]


def read_params(function: str) -> ParamFacts:
    """What `function`'s stub says of its parameters, from one reading of it (pool/stub_cache.py keeps it).

    Args:
        function: a module-level function or class, a builtin (``sorted``) or ``module.Class.method``.

    Returns:
        (kinds, typed, forwarded, shapes). kinds: parameter name -> the kinds of value (KINDS) its annotations
        admit in any overload (``re.sub`` -> {"pattern": {"string"}, "count": {"number"}, ...}), each
        positional one also under POSITION and its place ("@0"); a class the stubs define admits the kinds
        of its known bases only (``policy: Policy | None`` none; _class_kinds); one some
        overload leaves unannotated, or types by a name this module does not know, admits ANY. typed: the
        parameters every overload types with types this module reads (_known): ``json.dump``'s obj
        (``Any``), not its fp (``SupportsWrite[str]``). forwarded: (name, Param type) of each optional
        keyword of the first overload, for a function whose signature takes ``**kwargs`` and passes them
        on (``subprocess.check_output``: cwd, env, shell, text, timeout...); a parameter without a default
        (the stub's ``args`` for ``*popenargs``) or private (``_x``) is left out, the caller leaves out the
        ones its signature already has. shapes: parameter name -> "bytes" or "command" (_shapes).
        required: the positional parameters every overload requires (_required: ``subprocess.run`` ->
        ("args",), though its signature is ``run(*popenargs, ...)``). ({}, frozenset(), (), {}, ()) where
        no stub has it.
    """
    module, defs = _definitions(function)
    kinds: dict[str, frozenset[str]] = {}
    seen: set[str] = set()
    unknown: set[str] = set()
    for d in defs:
        a = d.args
        positional = [*a.posonlyargs, *a.args]
        if positional and positional[0].arg in ("self", "cls"):
            positional = positional[1:]
        for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs]:
            keys = [arg.arg]
            if arg in positional:  # by position too: the runtime may name it otherwise (date_string)
                keys.append(f"{POSITION}{positional.index(arg)}")
            seen.update(keys)
            if not _known(arg.annotation):
                unknown.update(keys)
            if arg.arg not in ("self", "cls"):
                found = _annotation_kinds(arg.annotation, module)
                for key in keys:
                    kinds[key] = kinds.get(key, frozenset()) | found
    return kinds, frozenset(seen - unknown), _forwarded(defs), _shapes(defs, module), _required(defs)


#: What a key of read_params' kinds starts with that names a positional parameter by its place ("@0": the
#: first after self), not its name: ``datetime.datetime.fromisoformat``'s stub names its first parameter
#: ``string``, the running Python ``date_string``.
POSITION = "@"


def _required(defs: list[ast.FunctionDef | ast.AsyncFunctionDef]) -> tuple[str, ...]:
    """read_params' required of a function's definitions `defs`: the positional parameters without a default
    (a method's leading ``self`` / ``cls`` left out) of the overload that requires fewest, the first such;
    so a call with fewer positional arguments than that matches no overload: ``subprocess.check_output()``
    (every overload starts ``args: _CMD``), ``max()`` (``max(arg1, arg2, *_args)`` or ``max(iterable)``:
    at least one). () where one overload requires none, or no stub has the function."""
    found: tuple[str, ...] | None = None
    for d in defs:
        a = d.args
        positional = [*a.posonlyargs, *a.args]
        if positional and positional[0].arg in ("self", "cls"):
            positional = positional[1:]
        names = tuple(p.arg for p in positional[: max(len(positional) - len(a.defaults), 0)])
        if found is None or len(names) < len(found):
            found = names
    return found or ()


def _forwarded(defs: list[ast.FunctionDef | ast.AsyncFunctionDef]) -> tuple[tuple[str, str], ...]:
    """read_params' forwarded of a function's definitions `defs`."""
    if not defs:
        return ()
    a = defs[0].args
    positional = [*a.posonlyargs, *a.args]
    defaulted = positional[len(positional) - len(a.defaults) :] if a.defaults else []
    defaulted += [k for k, d in zip(a.kwonlyargs, a.kw_defaults, strict=True) if d is not None]
    out = []
    for arg in defaulted:
        if arg.arg.startswith("_") or not re.fullmatch(r"[a-z]\w*", arg.arg):
            continue
        kind = _annotation_kinds(arg.annotation) - {"none"}
        out.append((arg.arg, _PARAM_TYPES.get(frozenset(kind), "any")))
    return tuple(out)


#: Annotation names of bytes-like values only (no str among them): typeshed's ReadableBuffer and Buffer,
#: bytes, bytearray, memoryview.
_BYTES_NAMES = frozenset({"bytes", "bytearray", "memoryview", "ReadableBuffer", "Buffer"})
#: typeshed's alias of a command line subprocess takes: ``_CMD: TypeAlias = StrOrBytesPath |
#: Sequence[StrOrBytesPath]`` (stdlib/subprocess.pyi).
_COMMAND_NAMES = frozenset({"_CMD"})


def _names_of(node: ast.expr | None) -> frozenset[str]:
    """The type names an annotation is a union of (``ReadableBuffer | None`` -> {"ReadableBuffer"}; None
    left out), each its last dotted part; {"?"} for a subscript or another form this does not read."""
    if node is None:
        return frozenset({"?"})
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _names_of(node.left) | _names_of(node.right)
    if isinstance(node, ast.Constant) and node.value is None:
        return frozenset()
    if isinstance(node, (ast.Name, ast.Attribute)):
        return frozenset({ast.unparse(node).rpartition(".")[2]})
    return frozenset({"?"})


def _shapes(defs: list[ast.FunctionDef | ast.AsyncFunctionDef], module: str = "") -> dict[str, str]:
    """read_params' shapes of a function's definitions `defs` (in `module`'s stub): "bytes" for a parameter
    every overload types as bytes-like values only (_bytes_like: ``base64.b64encode(s: ReadableBuffer)``,
    ``gzip.compress(data: SizedBuffer)``; not ``hmac.compare_digest``'s ``str | ReadableBuffer``), "command"
    for one typed as a command line (_COMMAND_NAMES: subprocess's ``args``, the program and its arguments as
    a list), "none" for one every overload types as None alone (``threading.Thread(group: None = None,
    ...)``: no value but None)."""
    names: dict[str, frozenset[str]] = {}
    for d in defs:
        a = d.args
        for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs]:
            names[arg.arg] = names.get(arg.arg, frozenset()) | _names_of(arg.annotation)
    out = {}
    for name, found in names.items():
        if found & _COMMAND_NAMES:
            out[name] = "command"
        elif found and all(_bytes_like(module, n) for n in found):
            out[name] = "bytes"
        elif not found:  # _names_of leaves None out, and reads no annotation as "?"
            out[name] = "none"
    return out


def _bytes_like(module: str, name: str, depth: int = 0) -> bool:
    """Whether type `name` (as `module`'s stub names it) holds bytes-like values only: one of _BYTES_NAMES, an
    alias of such alone, or a class with such a base (``class SizedBuffer(Sized, Buffer, Protocol)``,
    stdlib/_typeshed: gzip.compress's data took the file name 'data.csv', break-it round 29, F4)."""
    if name in _BYTES_NAMES:
        return True
    if name == "?" or not module or depth >= _MAX_ALIASES:
        return False
    from gorilla_tui.pool.typeshed import _defined  # see _definitions

    alias = _alias(module, name)
    if alias is not None:
        inner = _names_of(alias[1])
        return bool(inner) and all(_bytes_like(alias[0], n, depth + 1) for n in inner)
    found = _defined(f"{module}.{name}")
    if found is None or not isinstance(found[1], ast.ClassDef):
        return False
    bases = [b.rpartition(".") for b in _bases(found[0], found[1])]
    return any(_bytes_like(owner, short, depth + 1) for owner, _, short in bases)
