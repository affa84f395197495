"""Break-it round 25 in filling: values the task writes whole stay one value each.

- R25-3: a time, an IPv6 or MAC address, host:port were cut at each colon ("12:30:45" gave 12, 30, 45;
  "::1" gave 1: ``socket.socket().connect(1)``).
- R25-5: a no-break space inside a path ("/tmp/my<U+00A0>file.txt" was the file 'file.txt') and a symbol in
  an e-mail address's local part ("bob<U+00B1>x@example.com" was 'x@example.com') cut the value.
"""

from __future__ import annotations

import pytest

from gorilla_tui.fill.addresses import addresses
from gorilla_tui.fill.call_grammar import TaskValues
from gorilla_tui.textsafe import clean_task


def _whole(task: str) -> list[object]:
    return [c.value for c in TaskValues.of(task).strings if c.atomic]


@pytest.mark.parametrize(
    ("task", "value"),
    [("sleep until 12:30:45 then print the time", "12:30:45"), ("wake me at 7:05 pm", "7:05 pm"),
     ("connect to ::1 port 8080", "::1"), ("ping fe80::1%eth0", "fe80::1%eth0"),
     ("ping 2001:db8::8a2e:370:7334 now", "2001:db8::8a2e:370:7334"),
     ("check aa:bb:cc:dd:ee:ff", "aa:bb:cc:dd:ee:ff"), ("connect to [::1]:8080", "[::1]:8080"),
     ("serve on localhost:8080", "localhost:8080"), ("fetch from example.com:443", "example.com:443")],
)  # fmt: skip
def test_a_value_joined_by_colons_is_one_string(task: str, value: str) -> None:
    values = TaskValues.of(task)
    assert value in _whole(task)
    digits = [c for c in values.numbers if any(c.start >= s.start and c.end <= s.end for s in values.strings
                                               if s.value == value)]  # fmt: skip
    assert digits == []  # none of its parts is a number of its own


def test_colons_that_join_no_such_value_are_read_as_before() -> None:
    assert [c.value for c in TaskValues.of("an aspect ratio of 16:9").numbers] == [16, 9]
    assert _whole("a:b:c is no address") == []  # ipaddress refuses it
    assert _whole("open C:\\data\\x.txt") == ["C:\\data\\x.txt"]
    assert addresses("connect to ::1 port 8080")[0].value == ("::1", 8080)
    assert addresses("at 12:30:45 connect to port 80") == []  # a time is no host


@pytest.mark.parametrize("blank", ["\u00a0", "\u3000", "\u202f", "\u2007"])
def test_a_no_break_space_inside_a_path_is_part_of_it(blank: str) -> None:
    task, _ = clean_task(f"read the text file /tmp/x/my{blank}file.txt{blank}")
    assert _whole(task) == [f"/tmp/x/my{blank}file.txt"]
    assert _whole(f"read /tmp/a.txt{blank}then b.txt") == ["/tmp/a.txt", "b.txt"]  # after it: a new word


@pytest.mark.parametrize("local", ["bob\u00b1x", "x\u20acy", "o'brien", "caf\u00e9", "a+b.c"])
def test_an_email_address_is_taken_whole(local: str) -> None:
    assert _whole(f"check if {local}@example.com is valid") == [f"{local}@example.com"]


def test_email_addresses_in_brackets_and_lists_stay_apart() -> None:
    assert _whole('send to <bob@example.com>, "al@x.org"') == ["bob@example.com", "al@x.org"]
    assert _whole("mail a@x.com,b@y.com") == ["a@x.com", "b@y.com"]
