"""Break-it round 10, R10-7 (issue 42): endpoint secrets in shapes textsafe.redact_url missed were printed.
A token as the user part with an empty password (`http://sk_live_X:@host`, curl's `-u TOKEN:`), a password
holding "/", "?" or "#" that was not percent-encoded (urllib's netloc ends there: the URL was shown whole in
"is not a valid URL", urllib's "Port could not be cast ... as 'pa'" too) and a fragment's `#access_token=`.
Each message path: check_endpoint's errors, RemoteBackend's (a refused connection) and doctor (config.toml).
"""

from __future__ import annotations

import json

import pytest

from gorilla_tui.cli import main
from gorilla_tui.errors import GorillaError, UsageError
from gorilla_tui.model.endpoint_url import check_endpoint
from gorilla_tui.model.remote import RemoteBackend
from gorilla_tui.textsafe import redact_url

#: (endpoint, its secret): port 9 (discard) of 127.0.0.1 refuses the connection.
HOSTILE = [
    ("http://sk_live_SECRET1:@127.0.0.1:9/v1", "SECRET1"),
    ("http://user:pa/SECRET2@127.0.0.1:9/v1", "SECRET2"),
    ("http://user:pa?SECRET3@127.0.0.1:9/v1", "SECRET3"),
    ("http://user:pa#SECRET5@127.0.0.1:9/v1", "SECRET5"),
    ("http://user:SECRET6/x@127.0.0.1:9/v1", "SECRET6"),
    ("http://127.0.0.1:9/v1#access_token=SECRET4", "SECRET4"),
    ("http://127.0.0.1:9/v1#x=1&id_token=SECRET7", "SECRET7"),
]


@pytest.mark.parametrize(
    "url, shown",
    [
        ("http://sk_live_S:@h/v1", "http://***@h/v1"),
        ("http://user:pa/ss@h:8/v1", "http://user:***@h:8/v1"),
        ("http://user:p?a#s@h/v1?api_key=k", "http://user:***@h/v1?api_key=***"),
        ("http://h/v1#access_token=T&state=1", "http://h/v1#access_token=***&state=1"),
        ("http://user:pw@h/v1?email=a@b", "http://user:***@h/v1?email=a@b"),  # the netloc's last "@"
        ("http://h:8080/v1", "http://h:8080/v1"),
        ("http://h/v1/a@b", "http://h/v1/a@b"),  # no user information: an "@" in the path stays
        ("user:s3cret@h:8080", "user:***@h:8080"),
    ],
)
def test_redact_url_reads_the_user_information_as_urllib_does(url: str, shown: str) -> None:
    assert redact_url(url) == shown


@pytest.mark.parametrize("url, secret", HOSTILE)
def test_no_message_shows_the_secret(url: str, secret: str) -> None:
    try:  # check_endpoint refuses most: "is not a valid URL", "has a fragment"
        check_endpoint(url)
        backend = RemoteBackend(url, n_ctx=2048)
        "".join(backend.complete("task: x\ncall:", max_tokens=4))
    except GorillaError as e:
        message = str(e) + (e.hint or "")
    else:
        pytest.fail("no error")
    assert secret not in message and "***" in message, message
    assert "pa'" not in message, message  # urllib's port error quotes the password's start


@pytest.mark.parametrize("url, secret", HOSTILE)
def test_doctor_never_shows_the_secret(gorilla_home, capsys, url: str, secret: str) -> None:
    cfg = gorilla_home / "config" / "config.toml"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text(f"endpoint = {json.dumps(url)}\n")
    main(["doctor", "--no-hash", "--no-inference", "--json"])
    out, err = capsys.readouterr()
    assert secret not in out + err, out + err
    main(["doctor", "--no-hash", "--no-inference"])
    out, err = capsys.readouterr()
    assert secret not in out + err, out + err


def test_a_usage_error_for_a_bad_port_hides_the_password() -> None:
    with pytest.raises(UsageError) as caught:
        check_endpoint("http://u:pa/ss@h/v1")
    assert "pa" not in str(caught.value).replace("parse", ""), caught.value
