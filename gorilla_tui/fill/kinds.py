"""Which of the task's values a Python function's parameter may take, beyond its name and declared type:
the kinds its type stub admits (`stub_fit`: no number for ``re.sub``'s pattern or ``turtle.bgpic``'s
file name), the keywords a ``**kwargs`` passes on (`with_forwarded`: ``subprocess.check_output(...,
cwd='build')``), a number the task writes beside a parameter's name (`claim_numbers`: "with indent 2" is
``indent=2``, never the object printed) and the variables a task names ("the list scores", "dict
`scores`": `variables`, offered by `with_variables` as the name itself, origin "variable").
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence

from gorilla_tui.fill.backticks import Backticked, backticked
from gorilla_tui.fill.call_grammar import FILLABLE, Slot
from gorilla_tui.fill.candidate import Candidate
from gorilla_tui.fill.spoken import PATHLIKE, name_parts
from gorilla_tui.fill.target import Target
from gorilla_tui.pool.apidoc import ApiDoc
from gorilla_tui.pool.params import Param, params_of
from gorilla_tui.pool.stub_cache import admits, forwarded, typed

#: Candidate.kind of a variable the task names (its text is the name, written unquoted).
VARIABLE = "variable"
#: Nouns of a value's type a task names a variable after ("the list scores", "dict `scores`", "the
#: dataframe df"), and the kinds of parameter each may go to (pool/stub_params.py KINDS).
_TYPE_NOUNS = {
    "list": "array", "array": "array", "tuple": "array", "set": "array", "sequence": "array",
    "series": "array", "vector": "array", "matrix": "array", "iterable": "array",
    "dict": "object", "dictionary": "object", "mapping": "object", "map": "object",
    "dataframe": "any", "df": "any", "variable": "any", "var": "any", "object": "any",
    "string": "string", "str": "string",
}  # fmt: skip
#: A variable after its type noun: a bare identifier, or one in backticks (CoNaLa's way of naming one).
_VARIABLE = re.compile(
    r"(\b(?:the|a|an|my|this|that|your|our|given)\s+)?\b("
    + "|".join(sorted(_TYPE_NOUNS, key=len, reverse=True))
    + r")(?:\s+(?:named|called))?\s+(`[A-Za-z_]\w*`|[A-Za-z_]\w*)(?![\w.'/\\-])",
    re.IGNORECASE,
)
#: Words after a type noun that are no variable ("the list of files", "a dict with", "a string that").
_NOT_NAMES = frozenset(
    "of with from in into on to for and or that which is are as by the a an it its this these those all each "
    "every one two containing holding items elements values keys entries called named".split()
    # "with the string module", "the list type", "the dict class": a module or type named, no variable
    # (break-it round 30, F-H7: ``str(module).title()``)
    + "module modules library package class type types method methods function functions".split()
)


def variables(task: str) -> list[Candidate]:
    """The variables `task` names after a word of their type (_TYPE_NOUNS): "the list scores" and "sort dict
    `scores` by value" give ``scores``; each a Candidate of kind VARIABLE whose text is the bare name (its
    `value` the kind of parameter it fits: "array", "object", "string" or "any"), atomic, over the name's
    span (backticks included). A bare name needs an article or a possessive before its type ("list files
    in /tmp" and "set TZ to UTC" name none), a name in backticks does not; "the list of files" names none.
    Code in backticks with no type noun before it ("base64 encode the bytes in `data`", `names[0]`) is a
    variable of any kind, unless it is all capitals (`HOME`: a value's text), a keyword or constant
    (`None`) or a file name (fill/backticks.py backticked)."""
    out = []
    for m in _VARIABLE.finditer(task):
        name = m.group(3).strip("`")
        if name.lower() in _NOT_NAMES or name.lower() in _TYPE_NOUNS:
            continue
        if not m.group(1) and not m.group(3).startswith("`"):
            continue  # "list files in /tmp", "set TZ to UTC": a verb, no type; "the list scores" names one
        kind = _TYPE_NOUNS.get(m.group(2).lower())  # None for "lıst": Unicode case folding matched it (R19-1)
        if kind is None or (kind == "any" and name.isupper()):
            continue  # "the env variable `HOME`": the name of an environment variable, a value's text
        out.append(Candidate(name, kind, VARIABLE, m.start(3), m.end(3), True))
    for b in backticked(task):  # `names`, `names[0]`, `df.names`: code, written as it is (fill/backticks.py)
        if not b.code or any(c.start <= b.start < c.end for c in out):
            continue
        out.append(Candidate(b.code, "any", VARIABLE, b.start, b.end, True))
    return out


def named_variables(target: Target, given: dict[str, tuple[str, str]]) -> dict[str, tuple[str, str]]:
    """`given` (name -> (value source, origin)) with origin "variable" for a value that is a variable the
    task names (offered by with_variables): ``statistics.mean(scores)`` passes the caller's own list."""
    named = {s.param.name: {k for k, c in s.values.items() if c.kind == VARIABLE} for s in target.offered}
    return {k: (v, "variable" if o == "task" and v in named.get(k, ()) else o) for k, (v, o) in given.items()}


def _fits(param: Param, c: Candidate, callee: str) -> bool:
    """Whether a variable of type kind `c.value` may be `param`'s value: not a path's or a flag's or a
    number's parameter; a declared type or the stub's (`callee`'s) admits its kind, and a parameter of
    unknown type only where the stub types it (pool/stub_cache.py typed)."""
    if PATHLIKE.search(param.name) or param.type in ("boolean", "integer", "number"):
        return False
    if param.type not in ("any", "array", "object", "string"):
        return False
    kind = c.value
    if param.type != "any" and kind != "any" and param.type != kind:
        return False
    if param.type == "any" and not typed(callee, param.name):
        return False  # json.dump's fp (a file object) takes no dict settings: its stub says what it is
    return kind == "any" or admits(callee, param.name, kind)


def _in_code(c: Candidate, code: Sequence[Backticked]) -> bool:
    """Whether value `c` (not a variable) lies inside backticks that hold code or a constant."""
    return c.kind != VARIABLE and any(b.start <= c.start and c.end <= b.end for b in code)


def with_variables(offered: list[Slot], task: str, callee: str) -> list[Slot]:
    """`offered` with the variables the task names (`variables`) offered to each slot of a Python parameter
    they fit (`_fits`: ``statistics.mean(data)`` takes the list scores); the task's quoted text at a
    variable's span ('scores' of "dict `scores`") is no string then, in the slots the variable fits; code in
    backticks (fill/backticks.py) is the variable in every slot that offered its text, ``*args`` and paths
    too ("delete the directory `build_dir`": ``shutil.rmtree(build_dir)``), and nothing inside backticks
    that hold code or a constant is a value of its own. A slot left with nothing is dropped unless
    required. A function-calling source's parameters (kind "keyword") are left alone: their values are
    data, not the caller's names."""
    named = variables(task)
    code = [b for b in backticked(task) if b.code or b.constant]
    if not named and not code:
        return offered
    ticked = {(c.start, c.end) for c in named if any((b.start, b.end) == (c.start, c.end) for b in code)}
    out = []
    for slot in offered:
        if slot.param.kind == "keyword" or slot.param.kind not in (*FILLABLE, "var"):
            out.append(slot)
            continue
        # a string of the task at a variable's span gives way to the variable; code in backticks is the
        # person's in every slot that offered its text (os.path.join(q1_sales, q2_sales), not one variable
        # and one string 'q2_sales': break-it round 29, F12), and no piece of it is a value anywhere (the
        # list [0] of `names[0]`, the string 'None' of `None`: F11)
        texts = {(c.start, c.end) for c in slot.values.values() if c.kind == "string"}
        fitting = [c for c in named if (c.start, c.end) in ticked and (c.start, c.end) in texts
                   or slot.param.kind != "var" and _fits(slot.param, c, callee)]  # fmt: skip
        spans = {(c.start, c.end) for c in fitting}
        values = {k: c for k, c in slot.values.items()
                  if not (c.kind == "string" and (c.start, c.end) in spans or _in_code(c, code))}  # fmt: skip
        values |= {c.text: c for c in fitting}
        if values or slot.param.required:
            out.append(dataclasses.replace(slot, values=values))
    return out


#: The kind of value (pool/stub_params.py KINDS) of each kind of Candidate the task writes; a value a
#: parameter declares (its enum, True/False) and a variable are asked of elsewhere.
_VALUE_KINDS = {"number": "number", "string": "string", "date": "string", "list": "array", "dict": "object"}


def stub_fit(
    callee: str, offered: Sequence[Slot], owners: Mapping[str, tuple[str, int]] | None = None
) -> list[Slot]:
    """`offered` without the values a Python parameter's type stub does not admit (pool/stub_cache.py
    admits), whatever their kind (_VALUE_KINDS): a number for ``re.sub``'s pattern (``str | Pattern[str]``)
    or ``datetime.datetime.fromisoformat``'s date_string, a string for ``time.sleep``'s seconds or
    ``socket.socket.setblocking``'s flag (``bool``), any literal for ``threading.Thread``'s group (``None``)
    or ``email.message.EmailMessage``'s policy (a class: stub_params._class_kinds). A required slot left
    with no value keeps its placeholder; an optional one is dropped, and so is one made required here
    (a receiver's spread, fill/receivers.py) that has a default: ``EmailMessage()``, not
    ``EmailMessage(policy)``.

    Args:
        callee: the function's dotted name the stubs know (doc.api_name).
        offered: the slots.
        owners: parameter name -> (the dotted name of the function it is a parameter of, its place among
            that function's positional parameters or -1), for the slots of another function than `callee`
            (a method's receiver: its class's) or asked of by place (`positions`); others: (`callee`, -1).

    Returns:
        The slots kept, in order.
    """
    owners = owners or {}
    out = []
    for slot in offered:
        if slot.param.kind not in FILLABLE or slot.param.kind == "keyword":
            out.append(slot)
            continue
        function, at = owners.get(slot.param.name, (callee, -1))
        name = slot.param.name
        values = {
            k: c
            for k, c in slot.values.items()
            if c.kind not in _VALUE_KINDS or admits(function, name, _VALUE_KINDS[c.kind], at)
        }
        if values or (slot.param.required and not (slot.values and slot.param.has_default)):
            out.append(slot if len(values) == len(slot.values) else dataclasses.replace(slot, values=values))
    return out


def positions(function: str, params: Sequence[Param]) -> dict[str, tuple[str, int]]:
    """Parameter name -> (`function`, its place among `params`' positional ones) for stub_fit's owners:
    the parameters of `function` (a class's constructor, a method: self left out) in their order."""
    at = [p for p in params if p.kind in ("positional", "posonly")]
    return {p.name: (function, next((i for i, q in enumerate(at) if q is p), -1)) for p in params}


def with_forwarded(doc: ApiDoc, params: list[Param]) -> list[Param]:
    """`params` of a python-env function that takes ``**kwargs`` with the keywords its type stub declares and
    its signature does not (pool/stub_cache.py forwarded): ``subprocess.check_output(*popenargs,
    timeout=None, **kwargs)`` passes cwd, env, shell... on to Popen. Each is an optional keyword-only
    Param of the stub's type, put before the ``**kwargs``; `params` itself otherwise."""
    if doc.source != "python-env" or not any(p.kind == "varkw" for p in params):
        return params
    have = {p.name for p in params}
    extra = [Param(name=name, type=kind, has_default=True, default=None, kind="kwonly")
             for name, kind in forwarded(doc.api_name) if name not in have]  # fmt: skip
    if not extra:
        return params
    at = next(i for i, p in enumerate(params) if p.kind == "varkw")
    return [*params[:at], *extra, *params[at:]]


#: Words that may stand between a parameter's name and its number ("indent of 2", "timeout=5", "port: 22").
_BETWEEN = r"(?:\s*(?:=|:)\s*|\s+(?:of|to|at|is|=)\s+|\s+)"


def claim_numbers(offered: Sequence[Slot], task: str) -> list[Slot]:
    """`offered` where each number the task writes right beside a parameter's name ("with indent 2", "a
    width of 80", "port 8443", "10 seconds") goes to that parameter alone: it is taken from the other slots
    that offered it, and the parameter's slot, optional or not, becomes required with the numbers it claims.
    A name of several words claims by all of them ("max depth 3"; BFCL's speed_of_light takes no 4 of "4
    light years"); a number beside two slots' names is left to the model. A required slot left with no
    value keeps its placeholder. A number is claimed by where the task writes it, so its other forms go too:
    "3 days and 4 hours" gives 4 to hours and not its 14,400 seconds (fill/units.py in_seconds) to seconds
    as well (``timedelta(3, 14400, hours=hours)``, break-it round 27, R27-10)."""
    claims: dict[tuple[int, int], set[str]] = {}
    for slot in offered:
        parts = name_parts(slot.param.name)
        if not parts or slot.param.kind not in FILLABLE:
            continue
        # the whole name, word by word, short words between ("no_of_nights": "nights"; "speed_of_light" is
        # no "4 light years")
        word = r"\W+(?:\w{1,2}\W+)?".join(re.escape(p) + r"\w{0,3}" for p in parts)
        for c in slot.values.values():
            if c.kind != "number" or c.start < 0:
                continue
            before = re.search(rf"\b{word}{_BETWEEN}$", task[: c.start], re.IGNORECASE)
            after = re.match(rf"\s*{word}\b", task[c.end :], re.IGNORECASE)
            if before or after:
                claims.setdefault((c.start, c.end), set()).add(slot.param.name)
    owner = {span: next(iter(names)) for span, names in claims.items() if len(names) == 1}
    out = []
    for slot in offered:
        name = slot.param.name
        values = {k: c for k, c in slot.values.items() if owner.get((c.start, c.end), name) == name}
        mine = any(owner.get((c.start, c.end)) == name for c in values.values())
        p = dataclasses.replace(slot.param, required=True) if mine else slot.param
        if values or p.required:
            out.append(dataclasses.replace(slot, param=p, values=values))
    return out


#: A file extension the task names: ".log", "*.py" (not inside a path: "notes.txt"), or a type of file by
#: its extension before "files", "images"... ("the jpg images").
_EXTENSION = re.compile(
    r"(?:^|(?<=\s))\*?\.([A-Za-z0-9]{1,8})\b(?![./\\])"
    r"|\b(jpe?g|png|gif|txt|csv|log|py|json|md|pdf|xml|html?|mp3|wav|zip|ya?ml)\s+"
    r"(?:files?|images?|photos?|pictures?|documents?|logs?)\b",
    re.IGNORECASE,
)
#: Words that ask for the files in the subfolders too ("every .log file under /var/log").
_RECURSIVE = re.compile(r"\bunder\b|\brecursiv\w*|\bsub-?(?:folders?|dir\w*)\b|\bnested\b|\banywhere\b",
                        re.IGNORECASE)  # fmt: skip
#: Pattern parameters of the standard library's globbing functions: (function, parameter) -> whether the
#: folder goes inside the pattern (glob.glob's pathname) or stays the receiver's (pathlib.Path.glob).
_GLOBS = {("glob.glob", "pathname"): True, ("glob.iglob", "pathname"): True,
          ("pathlib.Path.glob", "pattern"): False, ("pathlib.Path.rglob", "pattern"): False}  # fmt: skip


#: The words before a folder a task names: "in `folder`", "under the directory `root`".
_IN_FOLDER = re.compile(
    r"\b(?:in|under|inside|within|from|of)\s+(?:the\s+)?(?:(?:folder|directory|dir)\s+)?$"
)


def with_patterns(callee: str, offered: list[Slot], params: Sequence[Param], task: str) -> list[Slot]:
    """`offered` with a glob pattern made of the extension the task names and its folder: "find every .log
    file under /var/log" is ``glob.glob('/var/log/**/*.log', recursive=True)`` (``**`` and recursive=True
    where the task asks for subfolders, _RECURSIVE; else ``'/var/log/*.log'``), ``pathlib.Path('/var/log')
    .rglob('*.log')``; a value the task writes over the extension (``'every *.py'``) is no other
    parameter's. `offered` itself for another function or a task that names no extension."""
    name = next((s.param.name for s in offered if (callee, s.param.name) in _GLOBS), "")
    inside = _GLOBS.get((callee, name))
    m = _EXTENSION.search(task)
    if inside is None or m is None:
        return offered
    ext = (m.group(1) or m.group(2)).lower()
    deep = bool(_RECURSIVE.search(task))
    start, end = m.span()
    out, folders = [], []
    for slot in offered:
        values = {k: c for k, c in slot.values.items() if not (c.start < end and start < c.end)}
        if slot.param.name == name:  # a folder the task writes, or names as a variable ("in `folder`")
            folders = [c for c in values.values() if c.atomic and c.kind in ("string", VARIABLE)]
        out.append(dataclasses.replace(slot, values=values))
    if inside and not folders:  # "the files in `folder`": a variable the pattern's folder is joined from
        folders = [
            c for c in variables(task) if _IN_FOLDER.search(task[: c.start]) and not start < c.end <= end
        ]
    tail = f"{'**/' if deep and (inside or callee.endswith('.glob')) else ''}*.{ext}"
    made = {repr(tail): Candidate(repr(tail), tail, "string", start, end, True)}
    if (
        inside and folders
    ):  # '/var/log/*.log'; a variable's folder joined to it: os.path.join(folder, '*.log')
        made = {
            t: Candidate(t, tail, "string", start, end, True)
            for t in (
                f"os.path.join({c.text}, {tail!r})"
                if c.kind == VARIABLE
                else repr(f"{c.value.rstrip('/')}/{tail}")
                for c in folders
            )
        }
    if inside:  # the folder is in the pattern: no other parameter (root_dir) takes it again
        spans = {(c.start, c.end) for c in folders}
        out = [
            dataclasses.replace(
                s, values={k: c for k, c in s.values.items() if (c.start, c.end) not in spans}
            )
            for s in out
        ]
        out = [s for s in out if s.values or s.param.required or s.param.name == name]
    out = [dataclasses.replace(s, values=made) if s.param.name == name else s for s in out]
    flag = next((p for p in params if p.name == "recursive" and p.kind in FILLABLE), None)
    if inside and deep and flag is not None and not any(s.param.name == "recursive" for s in out):
        true = Candidate("True", True, "declared")
        out.append(Slot(dataclasses.replace(flag, required=True, type="boolean"), {"True": true}))
    return out


#: Parameters of a function that makes a link, by the link's words (fill/roles.py value_role): what it
#: points to is the source (os.symlink's src, pathlib.Path.symlink_to's target), the link made the
#: destination (dst).
_LINK_ROLES = {"src": "source", "source": "source", "target": "source", "dst": "dest", "link_name": "dest"}


def link_roles(callee: str, offered: Sequence[Slot]) -> list[Slot]:
    """`offered` of a function that makes a link (its name says link: os.symlink, os.link,
    pathlib.Path.symlink_to) with the roles of its parameters (Slot.role, _LINK_ROLES): "make a symlink
    called latest pointing to build/v2" is ``os.symlink('build/v2', 'latest')``, though "to" marks a
    destination elsewhere ("copy a to b"); `offered` as it is for any other function."""
    if "link" not in callee.rpartition(".")[2].lower():
        return list(offered)
    # a receiver given a role by the call (fill/receivers.py with_spread) is the link: pathlib.Path('latest')
    return [dataclasses.replace(s, role=_LINK_ROLES.get(s.param.name, "dest" if s.role else ""))
            for s in offered]  # fmt: skip


#: Words before the folder a command runs in: "in the folder build", "in /srv/repo" (subprocess's cwd).
_RUNS_IN = re.compile(
    r"\b(?:in|inside|within|from)\s+(?:the\s+)?(?:(?:folder|directory|dir)\s+)?$", re.IGNORECASE
)


def forwarded_after(doc: ApiDoc, offered: Sequence[Slot], task: str = "") -> list[Slot]:
    """`offered` where a keyword the signature's ``**kwargs`` passes on (with_forwarded) takes no value a
    parameter of the signature itself is offered ("no line longer than 72 characters" is
    ``textwrap.wrap``'s width, not the max_lines its stub adds), ``*args`` aside (it takes any value), and a
    Python function's ``*args`` offered where its signature has it (``subprocess.check_output(*popenargs,
    ...)``: the command before the cwd), not last (call_grammar.with_varargs). The folder the task runs a
    command in ("in the folder build", "in /srv/repo": _RUNS_IN) is the cwd's alone, which is then given."""
    signature = params_of(doc)
    own = {p.name for p in signature}
    passed = {p.name for p in with_forwarded(doc, signature)} - own  # a receiver's parameters are no keywords
    taken = {k for s in offered if s.param.name not in passed and s.param.kind in FILLABLE for k in s.values}
    out = []
    for slot in offered:
        if slot.param.name in passed and slot.param.kind in FILLABLE:
            values = {k: c for k, c in slot.values.items() if k not in taken}
            if not values and not slot.param.required:
                continue
            slot = dataclasses.replace(slot, values=values)
        out.append(slot)
    cwd = next((s for s in out if s.param.name == "cwd" and s.param.kind in FILLABLE), None)
    runs_in = (
        {k for k, c in cwd.values.items() if c.start >= 0 and _RUNS_IN.search(task[: c.start])}
        if cwd
        else set()
    )
    if runs_in:  # the folder the task runs the command in is the cwd's alone, asked for: given
        given = dataclasses.replace(cwd.param, required=True)
        out = [
            dataclasses.replace(s, param=given, values={k: c for k, c in s.values.items() if k in runs_in})
            if s is cwd
            else dataclasses.replace(s, values={k: c for k, c in s.values.items() if k not in runs_in})
            for s in out
        ]
        out = [s for s in out if s.values or s.param.required]
    var = next((i for i, s in enumerate(out) if s.param.kind == "var"), None)
    order = [p.name for p in signature]
    if var is not None and out[var].param.name in order:
        at = order.index(out[var].param.name)
        before = [s for s in out if s.param.kind != "var" and s.param.name in order[:at]]
        rest = [s for s in out if s.param.kind != "var" and s not in before]
        out = [*before, out[var], *rest]
    return out
