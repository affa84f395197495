"""Receivers a call's text does not type: a name the caller says is an instance of a class, and a fresh copy
that an in-place method changes and drops.

- A method called on a name the code does not bind (``text.count('the')``) has a receiver of unknown type:
  nothing in the code says what ``text`` is, so no pool callee matches it. The caller may know (`ask`: a
  variable the task names, ``count 'the' in `text```, read as an instance of the chosen API's class, or of
  the type the task gives it, "the string `s`"); given such `types` (name -> class), the call is judged as
  that class's method, as a literal's is (check/builtin_types.py: ``'abc'.count`` is ``str().count``):
  ``text.count`` is ``str().count`` for {"text": "str"}. A class that lacks the method still fails
  (``s.reverse()`` for {"s": "str"}: str has no method 'reverse').
- A method that changes its object in place and returns None (its stub says so in every overload:
  ``list.sort``, ``list.remove``, ``collections.deque.reverse``, ``dict.update``) called on a container
  made right there (a literal, a constructor call, a builtin method's new result: ``list(scores).sort()``,
  ``[3, 1].sort()``, ``collections.deque(s).reverse()``) changes an object nothing else holds: the call
  does nothing the code can see, and its value is None (break-it rounds 31 and 32). `in_place_copy`
  names such a callee.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Set

from gorilla_tui.check.builtin_types import TYPES
from gorilla_tui.check.callsite import CallSite
from gorilla_tui.pool.apidoc import ApiDoc
from gorilla_tui.pool.stub_cache import in_place
from gorilla_tui.types import Verdict

#: The reason code of an in-place method called on a fresh copy (types.REASONS).
IN_PLACE_REASON = "wrong_args:in_place_copy"

#: Containers whose constructor makes a new object from its argument (a copy): builtins' mutable types
#: (check/builtin_types.py TYPES), collections' container datatypes (library/collections.html; not
#: ChainMap, whose updates go to the first mapping it was given) and array.array (library/array.html).
COPIES = frozenset(
    {
        *(t for t, cls in TYPES.items() if cls.__hash__ is None),  # list, dict, set, bytearray: mutable
        "collections.deque",
        "collections.Counter",
        "collections.OrderedDict",
        "collections.defaultdict",
        "collections.UserList",
        "collections.UserDict",
        "array.array",
    }
)
#: The one method of COPIES' classes whose stub returns None in every overload and which changes nothing in
#: the object: it writes the array to a file (break-it round 33: ``array.array('d', v).tofile(f)`` was
#: in_place_copy). Found by listing every None-returning method of each class in COPIES.
WRITES_OUT = frozenset({"tofile"})
#: A callee ``C().method`` whose receiver is made by C's constructor (or a literal, callnodes.callee_of).
_FRESH = re.compile(r"(" + "|".join(re.escape(c) for c in sorted(COPIES)) + r")\(\)\.([A-Za-z_]\w*)")
#: A receiver the caller may type: a dotted name (``text``, ``df.names``).
_DOTTED = re.compile(r"[^\W\d]\w*(?:\.[^\W\d]\w*)*")


def typed_callee(callee: str, types: Mapping[str, str], bound: Set[str] = frozenset()) -> str:
    """``C().method`` for a `callee` ``R.method`` whose receiver R (a dotted name) is a key of `types`
    (R -> C, a class as the pool spells its calls: ``str``, ``collections.deque``) and whose first name the
    code does not bind (`bound`: a name assigned or imported there is the code's own, not the caller's);
    `callee` itself otherwise."""
    receiver, dot, method = callee.rpartition(".")
    if not dot or not method.isidentifier() or receiver not in types or not _DOTTED.fullmatch(receiver):
        return callee
    if receiver.split(".", 1)[0] in bound:
        return callee
    return f"{types[receiver]}().{method}"


def in_place_copy(callee: str) -> str:
    """The class of `callee` when it is an in-place method (every overload of its stub returns None:
    pool/stub_cache.py in_place) called on a container made by that call's own receiver (_FRESH: a literal,
    a constructor call of COPIES, a builtin method's new result), "" otherwise (``pathlib.Path('x').touch()``
    changes a file, not the object; ``list(x).count(1)`` returns what it counts)."""
    m = _FRESH.fullmatch(callee)
    if m is None or m.group(2) in WRITES_OUT:
        return ""
    owner = m.group(1) if "." in m.group(1) else f"builtins.{m.group(1)}"
    return m.group(1) if in_place(owner, m.group(2)) else ""


def in_place_verdict(call: CallSite, cls: str, matched: ApiDoc | None) -> Verdict:
    """wrong_args (IN_PLACE_REASON) for `call`, an in-place method of class `cls` called on a container it
    makes itself (in_place_copy); `matched`: the doc the call otherwise matched."""
    method = call.callee.rsplit(".", 1)[-1]
    note = (
        f"{call.line}:{call.col}: {cls}.{method} changes the {cls} made here in place and returns None: "
        "the change is lost (call it on the variable that holds the object)"
    )
    return Verdict("wrong_args", call.text, matched, [], [note], IN_PLACE_REASON)


def lacks_method(verdict: Verdict, written: str) -> Verdict:
    """`verdict` (a hallucination: the class a typed receiver was read as lacks the method) as wrong_args
    (wrong_args:wrong_type): the callee the code writes (`written`, ``s.reverse``) names no unknown API, its
    receiver is of a type the method is not of, as a literal of the wrong type is for a parameter."""
    note = f"{written}: the receiver is not of a type that has this method"
    return dataclasses.replace(
        verdict, kind="wrong_args", diagnostics=[*verdict.diagnostics, note], reason="wrong_args:wrong_type"
    )


def receiver_verdict(call: CallSite, role: str, verdict: Verdict | None, fresh: str, written: str
                     ) -> tuple[str, Verdict | None]:  # fmt: skip
    """(role, verdict) of `call` (the Validator's row, rule 2) with what its receiver says: an in-place
    method on a copy the call makes (`fresh`: in_place_copy's class) is wrong_args (in_place_verdict), a
    valid call or one no rule judged (``array.array('i', x).reverse()``: python-env then); a typed
    receiver (`written` the callee as the code writes it, typed_callee) whose class lacks the method is
    wrong_args:wrong_type (lacks_method). Unchanged otherwise, and for a call passed to a wrapper."""
    if fresh and not call.via and (verdict is None and role != "part" or verdict is not None and verdict.ok):
        return role if verdict else "python-env", in_place_verdict(call, fresh, verdict and verdict.matched)
    if call.callee != written and verdict is not None and verdict.kind == "hallucination":
        return role, lacks_method(verdict, written)
    return role, verdict


def made_callee(call: CallSite, made_once: Mapping[str, str]) -> str:
    """The callee of `call` ``name.method`` read through what made ``name`` (callsite.Scan.made_once: a
    name bound once, to one call's result: ``h = hashlib.sha256()`` then ``h.update``), spelled as the
    chain it stands for (``hashlib.sha256().update``), for check/stub_chain.py result_verdict; "" for any
    other call (a name bound twice or another way, a longer chain, a call passed to a wrapper)."""
    name, dot, method = call.callee.partition(".")
    maker = made_once.get(name, "") if dot and not call.via else ""
    if not maker or not method.isidentifier() or not _DOTTED.fullmatch(maker):
        return ""
    return f"{maker}().{method}"
