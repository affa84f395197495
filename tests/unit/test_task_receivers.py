"""A method's receiver that is the person's own variable (break-it rounds 31 and 32): filling writes it as it
is (``text.count('the')``, not ``list(text).count('the')``, always 0 on a string), the checker judges a
method on it as the class the caller names (the chosen API's, or the type the task gives it), and an
in-place method called on a copy the call makes (``list(scores).sort()``) is wrong_args. Also the round's
check misses: a literal refused by the stub of a method of a call's result (``hashlib.md5().update('x')``,
through a name bound once too) and a method of an int literal (``(1).to_bytes('big')``). On the running
Python's standard-library pool (tests/stdlib_fixtures.py), real tree-sitter and typeshed's stubs."""

from __future__ import annotations

import pytest

from gorilla_tui.check import lint
from gorilla_tui.check.lookup import LookupChecker, write_lookup
from gorilla_tui.check.receivers import IN_PLACE_REASON, in_place_copy, typed_callee
from gorilla_tui.check.validator import Validator
from gorilla_tui.fill.call_grammar import TaskValues
from gorilla_tui.fill.filler import target_of
from gorilla_tui.fill.receivers import of_stated_type, stated_types
from gorilla_tui.fill.render import render_target
from gorilla_tui.fill.target import Target
from gorilla_tui.pipeline_choose import UNBOUND_REASONS
from gorilla_tui.types import REASONS


def _rendered(docs, name: str, task: str, value: str) -> tuple[str, dict[str, str]]:
    """The call of doc `name` for `task` with its receiver given the variable `value`, and the types
    render_target gives the checker."""
    receivers: dict = {}
    target = target_of(docs[name], TaskValues.of(task), docs.get, receivers)
    assert isinstance(target, Target)
    receiver = receivers[target.callee]
    own = next(p.name for p in receiver.params)
    typed: dict[str, str] = {}
    call, _arguments, _calls = render_target(target, {own: (value, "variable")}, receiver,
                                             stated_types(task), typed)  # fmt: skip
    return call, typed


@pytest.mark.parametrize(
    ("name", "task", "call", "types"),
    [
        ("list.count", "count how many times 'x' appears in `text`", "text.count()", {"text": "list"}),
        ("list.sort", "sort the list `scores`", "scores.sort()", {"scores": "list"}),
        ("collections.deque.reverse", "reverse `items`", "items.reverse()", {"items": "collections.deque"}),
        ("dict.pop", "drop a key from `cache`", "cache.pop()", {"cache": "dict"}),
        # the type the task gives the variable is the one the checker reads
        ("list.count", "count 'x' in the string `text`", "text.count()", {"text": "str"}),
        ("collections.deque.reverse", "reverse the string `s`", "s.reverse()", {"s": "str"}),
    ],
)
def test_the_persons_variable_is_the_receiver_as_it_is(docs, name, task, call, types):
    assert _rendered(docs, name, task, task[task.index("`") + 1 : task.rindex("`")]) == (call, types)


@pytest.mark.parametrize(
    ("name", "task", "value", "call"),
    [
        ("str.zfill", "left pad the number `n` with zeros", "n", "str(n).zfill()"),  # a number made text
        ("str.replace", "swap the words in `line`", "line", "str(line).replace()"),  # unsaid type, immutable
        ("list.count", "count 'x' in ['a', 'x']", "['a', 'x']", "list(['a', 'x']).count()"),  # no variable
    ],
)
def test_a_conversion_or_a_value_keeps_the_constructor(docs, name, task, value, call):
    receivers: dict = {}
    target = target_of(docs[name], TaskValues.of(task), docs.get, receivers)
    receiver = receivers[target.callee]
    own = next(p.name for p in receiver.params)
    origin = "variable" if value.isidentifier() else "task"
    typed: dict[str, str] = {}
    written, _a, _c = render_target(target, {own: (value, origin)}, receiver, stated_types(task), typed)
    assert (written, typed) == (call, {})


def test_the_words_before_a_backticked_variable_give_its_type():
    assert stated_types("reverse the string `s` and the list `xs`") == {"s": "str", "xs": "list"}
    assert stated_types("pad the number `n`; sort `rows`") == {"n": ""}
    assert stated_types("count words in the text called `essay`") == {"essay": "str"}


@pytest.mark.parametrize(
    ("code", "types", "kind", "api_name"),
    [
        ("text.count('the')", {"text": "str"}, "valid", "str.count"),
        ("text.count('the')", {"text": "list"}, "valid", "list.count"),
        ("scores.sort(reverse=True)", {"scores": "list"}, "valid", "list.sort"),
        ("scores.sort(descending=True)", {"scores": "list"}, "wrong_args", "list.sort"),
        ("s.reverse()", {"s": "str"}, "wrong_args", None),  # str has no reverse: the receiver's type is wrong
        ("q.appendleft(1)", {"q": "collections.deque"}, "valid", "collections.deque.appendleft"),
    ],
)
def test_a_method_of_a_typed_name_is_judged_as_that_class(validator, code, types, kind, api_name):
    verdict = validator.check(code, types=types)
    assert verdict.kind == kind, verdict
    assert (verdict.matched.api_name if verdict.matched else None) == api_name


def test_without_types_or_with_the_name_bound_a_name_stays_unknown(validator):
    assert validator.check("text.count('the')").kind == "hallucination"  # nothing says what text is
    # the code's own text, not the caller's: bound here, so never read as the given class
    assert validator.check("text = 5\ntext.count('the')", types={"text": "str"}).kind == "no_call"
    assert typed_callee("text.count", {"text": "str"}, {"text"}) == "text.count"
    assert typed_callee("df.names.count", {"df.names": "list"}) == "list().count"
    assert typed_callee("text.upper().count", {"text": "str"}) == "text.upper().count"


@pytest.mark.parametrize(
    "code",
    [
        "list(scores).sort()",
        "[3, 1, 2].sort(reverse=True)",
        "list(code).remove(3)",
        "import collections\ncollections.deque(s).reverse()",
        "dict(a).update(b)",
        "'a b'.split().append('c')",  # a new list from split, changed and dropped
        "import array\narray.array('i', [3, 1]).reverse()",  # no pool doc: its stub says so
    ],
)
def test_an_in_place_method_on_a_copy_is_wrong_args(validator, code):
    verdict = validator.check(code)
    assert (verdict.kind, verdict.reason) == ("wrong_args", IN_PLACE_REASON), verdict
    assert "returns None" in verdict.diagnostics[-1]


@pytest.mark.parametrize(
    "code",
    [
        "scores = list(a)\nscores.sort()",  # a copy the code keeps
        "list(text).count('the')",  # returns what it counts
        "list(a).pop()",  # returns the item
        "import pathlib\npathlib.Path('x').touch()",  # changes a file, not the object
        "sorted(a, reverse=True)",
        "import array\nwith open('v.bin', 'wb') as f:\n    array.array('d', v).tofile(f)",  # writes a file
    ],
)
def test_what_is_not_an_in_place_method_on_a_copy_is_valid(validator, code):
    assert validator.check(code).kind == "valid"


def test_an_in_place_copy_is_a_known_reason_that_rebinding_tries_past():
    assert IN_PLACE_REASON in REASONS and IN_PLACE_REASON in UNBOUND_REASONS
    assert in_place_copy("list().sort") == "list" and in_place_copy("list().count") == ""
    assert in_place_copy("collections.ChainMap().update") == ""  # updates the first mapping it was given


@pytest.mark.parametrize(
    "code",
    [
        "import hashlib\nhashlib.md5().update('x')",
        "import hashlib\nh = hashlib.sha256()\nh.update('abc')",
        "import zlib\nzlib.compressobj().compress('x')",
        "(1).to_bytes('big')",
    ],
)
def test_a_literal_a_methods_stub_refuses_is_wrong_type(validator, code):
    verdict = validator.check(code)
    assert (verdict.kind, verdict.reason) == ("wrong_args", "wrong_args:wrong_type"), verdict


@pytest.mark.parametrize(
    "code",
    [
        "import hashlib\nhashlib.md5().update(b'x')",
        "import hashlib\nh = hashlib.sha256()\nh.update(data)",
        # h is bound twice: what it holds at the call is not known
        "import hashlib\nh = hashlib.sha256()\nh = str(h)\nh.update('abc')",
        "(1).to_bytes(2, 'big')",
        "(255).bit_length()",
        "(1.5).is_integer()",
    ],
)
def test_the_right_literal_or_an_unknown_object_stays_valid_or_unjudged(validator, code):
    assert validator.check(code).kind in ("valid", "no_call")


def test_the_linter_reports_a_str_given_to_a_hash_and_a_sort_of_a_copy(validator):
    text = (
        "import hashlib\n"
        "def digest(data: bytes) -> str:\n"
        "    h = hashlib.sha256()\n"
        "    h.update(data)\n"
        "    return h.hexdigest()\n"
        "hashlib.md5().update('text')\n"
        "list(data).sort()\n"
    )
    found = [f for b in lint.blocks("a.py", text) for f in lint.check_block(validator, "a.py", b)]
    assert [(f.line, f.reason) for f in found] == [(6, "wrong_args:wrong_type"), (7, IN_PLACE_REASON)]


def test_the_hit_of_the_method_on_the_class_the_task_gives_is_chosen(docs):
    hits = [docs[n] for n in ("list.count", "str.count", "collections.Counter")]
    assert of_stated_type(hits, 0, "count 'the' in the string `text`") == 1
    assert of_stated_type(hits, 0, "count 'the' in `text`") == 0  # no type given: the model's choice
    assert of_stated_type(hits, 1, "count 'x' in the list `xs`") == 0
    assert of_stated_type(hits, 2, "count 'x' in the list `xs`") == 2  # a class, no method on a receiver


@pytest.mark.parametrize(
    ("name", "task", "reverse"),
    [
        ("list.sort", "sort the list `scores` in descending order", {"True"}),
        ("sorted", "sort [3, 1, 2] from largest to smallest", {"True"}),
        ("sorted", "sort the names, newest first", {"True"}),
        ("list.sort", "sort the list `scores`", None),
    ],
)
def test_descending_gives_a_sorts_reverse(docs, name, task, reverse):
    target = target_of(docs[name], TaskValues.of(task), docs.get, {})
    assert isinstance(target, Target)
    offered = {s.param.name: set(s.values) for s in target.offered}
    assert offered.get("reverse") == reverse


def test_the_lookup_checker_reads_the_typed_methods_entries(docs, tmp_path):
    """`ask`'s checker reads only the entries the text's callees reach (check/lookup.py): ``text.count``
    reaches none, so the typed callee's (``str().count``) are read too."""
    write_lookup(tmp_path, [docs[n] for n in ("str.count", "list.count", "list.sort", "os.remove")])

    def whole() -> Validator:
        raise AssertionError("the lookup is complete: no whole-pool validator")

    checker = LookupChecker(tmp_path, None, whole)
    verdict = checker.check("text.count('the')", None, {"text": "str"})
    assert verdict.kind == "valid" and verdict.matched is not None and verdict.matched.api_name == "str.count"
    assert checker.check("scores.sort(reverse=True)", None, {"scores": "list"}).kind == "valid"
    assert checker.check("text.count('the')").kind == "hallucination"  # untyped: no pool callee
