"""Backends: llama.cpp streaming, stop, cancel, n_ctx boundary, KV prefix reuse; scripted; remote server."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time

import pytest

from gorilla_tui.errors import GorillaError
from gorilla_tui.model.backend import Backend, LlamaBackend, RemoteBackend, ScriptedBackend
from gorilla_tui.model.grammar import choice_grammar
from gorilla_tui.model.profiles import load_profiles, runtime_params
from gorilla_tui.model.remote import Deadlines
from tests.fixtures_model import free_port, llama_cpp_server

PROMPT = "Here is a list of fruits: apple, banana, cherry,"


def test_scripted_backend_streams_stops_and_cancels():
    be = ScriptedBackend(["one two three. four five", "second"])
    assert isinstance(be, Backend)
    assert "".join(be.complete("p", max_tokens=10, stop=["."])) == "one two three"
    assert list(be.complete("p", max_tokens=1)) == ["second"]
    cancel = threading.Event()
    got = []
    for piece in ScriptedBackend(["a b c d"]).complete("p", max_tokens=9, cancel=cancel):
        got.append(piece)
        cancel.set()
    assert got == ["a"]


@pytest.mark.model
def test_llama_streams_pieces_and_honours_stop(gemma_backend):
    pieces = list(gemma_backend.complete(PROMPT, max_tokens=8))
    assert len(pieces) >= 2 and gemma_backend.last_stats["generated_tokens"] <= 8
    text = "".join(gemma_backend.complete(PROMPT, max_tokens=8, stop=[","]))
    assert "," not in text and text.strip()


@pytest.mark.model
def test_llama_cancel_between_tokens(gemma_backend):
    cancel = threading.Event()
    got = []
    for piece in gemma_backend.complete(PROMPT, max_tokens=50, cancel=cancel):
        got.append(piece)
        if len(got) == 2:
            cancel.set()
    assert len(got) == 2 and gemma_backend.last_stats["cancelled"]
    assert gemma_backend.last_stats["generated_tokens"] <= 3


@pytest.mark.model
def test_n_ctx_exact_boundary(gemma_path):
    """A prompt 4 tokens short of n_ctx, max_tokens 4: the generation may fill the context exactly; one
    token more than n_ctx is refused in one line. On a backend of n_ctx 256 (the session's has 2048:
    decoding ~2,000 tokens to reach its boundary took minutes and tested the same thing)."""
    params = runtime_params(load_profiles()["cpu"], n_ctx=256)
    backend = LlamaBackend(gemma_path, params=params, name="gemma3-270m", family="fewshot")
    n = backend.n_ctx
    words = n - 4 - backend.count_tokens(PROMPT)
    while backend.count_tokens(PROMPT + " word" * words) > n - 4:
        words -= 1
    prompt = PROMPT + " word" * words
    max_tokens = n - backend.count_tokens(prompt)  # prompt + max_tokens == n_ctx exactly: allowed
    assert n == 256 and 4 <= max_tokens <= 8
    out = list(backend.complete(prompt, max_tokens=max_tokens))
    assert out and backend.last_stats["generated_tokens"] <= max_tokens
    too_long = "word " * n
    assert backend.count_tokens(too_long) > n
    with pytest.raises(GorillaError, match="does not fit"):
        list(backend.complete(too_long, max_tokens=4))


@pytest.mark.model
def test_second_prompt_reuses_the_kv_prefix(gemma_backend):
    prefix = "Fixed instructions that every task shares. " * 20
    list(gemma_backend.complete(prefix + "Task: one\nAnswer:", max_tokens=1))
    first = gemma_backend.last_stats["prompt_eval_tokens"]
    list(gemma_backend.complete(prefix + "Task: two\nAnswer:", max_tokens=1))
    second = gemma_backend.last_stats["prompt_eval_tokens"]
    assert first >= gemma_backend.count_tokens(prefix) - 2
    assert second < 10, (first, second)


@pytest.fixture(scope="module")
def llama_server(gemma_path):
    with llama_cpp_server(gemma_path, "--n_ctx", "1024", "--n_threads", "1") as url:
        yield url


@pytest.mark.model
@pytest.mark.slow
def test_remote_backend_against_llama_cpp_server(llama_server, gemma_backend):
    be = RemoteBackend(llama_server, n_ctx=1024)
    pieces = list(be.complete(PROMPT, max_tokens=6))
    assert len(pieces) >= 2
    assert "," not in "".join(be.complete(PROMPT, max_tokens=8, stop=[","]))
    options = ["zebra.stripes(count=3)", "quux_frobnicate('x')"]
    out = "".join(
        be.complete("The capital of France is", max_tokens=20, grammar=choice_grammar(options, " "))
    )
    assert out.strip() in options
    assert be.count_tokens(PROMPT) == gemma_backend.count_tokens(PROMPT)  # the server's own tokenizer
    with pytest.raises(GorillaError, match="cannot reach"):
        list(RemoteBackend(f"http://127.0.0.1:{free_port()}").complete("x", max_tokens=1))


@pytest.mark.parametrize(
    "url", ["notaurl", "localhost:8080", "file:///etc/passwd", "http://:80", "http://h:x"]
)
def test_remote_backend_refuses_a_bad_endpoint(url):
    from gorilla_tui.errors import UsageError

    with pytest.raises(UsageError, match="endpoint"):
        RemoteBackend(url)


def test_remote_backend_protocol_garbage_is_a_gorilla_error():
    """A server that answers with something that is not HTTP (http.client.BadStatusLine, neither OSError
    nor URLError) used to escape as a traceback; it is one line saying so (it was "cannot reach endpoint",
    though the server runs: break-it round 17, P1)."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(4)
    port = srv.getsockname()[1]

    def serve() -> None:
        for _ in range(3):  # complete, then count_tokens tries /extras/tokenize and /tokenize
            conn, _addr = srv.accept()
            conn.recv(65536)
            conn.sendall(b"NOT-HTTP garbage\r\n\r\n")
            conn.close()

    threading.Thread(target=serve, daemon=True).start()
    be = RemoteBackend(f"http://127.0.0.1:{port}", deadlines=Deadlines(5, 5, 5))
    with pytest.raises(GorillaError, match="answered with something that is not valid HTTP: NOT-HTTP"):
        list(be.complete("p", max_tokens=4))
    assert be.count_tokens("abcd") == 3  # the estimate, not an exception
    srv.close()


@pytest.mark.model
def test_llama_cancel_during_prompt_evaluation_aborts_it(gemma_backend):
    """cancel set while llama_decode evaluates a long prompt stops it within ~a graph node (abort callback),
    and the next call still works (the KV cache is left consistent)."""
    prompt = "Long instructions that take a while to read. " * 150  # ~1500 tokens, ~2-5 s on 2 cores
    cancel = threading.Event()
    threading.Timer(0.2, cancel.set).start()
    start = time.perf_counter()
    got = list(gemma_backend.complete(prompt, max_tokens=20, cancel=cancel))
    elapsed = time.perf_counter() - start
    assert got == [] and gemma_backend.last_stats["cancelled"]
    assert gemma_backend.count_tokens(prompt) > 1000 and elapsed < 1.5, elapsed  # the whole prompt: >= 2 s
    assert "".join(gemma_backend.complete(PROMPT, max_tokens=8)).strip()  # still usable afterwards


def test_sigint_during_model_loading_is_raised_after_it():
    """Under Python's default SIGINT handler, Ctrl+C during Llama() (C code calling our ctypes log
    callback, where ctypes drops a KeyboardInterrupt) is recorded and raised once loading returns."""
    import os
    import signal

    from gorilla_tui.model import llama_callbacks

    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    loaded = []
    with pytest.raises(KeyboardInterrupt):
        with llama_callbacks.sigint_after_load():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)  # the handler runs here and only records the signal
            loaded.append(True)  # "loading" carries on to the end
    assert loaded == [True] and signal.getsignal(signal.SIGINT) is signal.default_int_handler
    llama_callbacks.PENDING_INTERRUPT.set()  # what the log callback does when the interrupt lands inside it
    with pytest.raises(KeyboardInterrupt):
        with llama_callbacks.sigint_after_load():
            pass
    assert not llama_callbacks.PENDING_INTERRUPT.is_set()


#: Hand-written bad GBNF grammars: llama_sampler_init_grammar returns NULL for each, and llama-cpp-python
#: 0.3.x hands that NULL on to the sampler chain (a SIGSEGV of the whole process).
BAD_GRAMMARS = {
    'root ::= foo "("': "Undefined rule identifier 'foo'",
    'root ::= "a" [': "unexpected end of input",
    'root ::= root "a"': "llama.cpp rejected it",  # left recursion
    'call ::= "a"': "llama.cpp rejected it",  # no root rule
}

_RAW_BAD_GRAMMAR = """
import sys, llama_cpp
llm = llama_cpp.Llama(sys.argv[1], n_ctx=256, verbose=False)
llm.create_completion("x = ", max_tokens=4, grammar=llama_cpp.LlamaGrammar.from_string(sys.argv[2]))
"""


@pytest.mark.model
def test_bad_grammar_would_crash_llama_cpp_python(gemma_path):
    # why the check below exists: plain llama-cpp-python dies by a signal on a bad grammar
    proc = subprocess.run([sys.executable, "-c", _RAW_BAD_GRAMMAR, str(gemma_path), 'root ::= foo "("'],
                          capture_output=True, timeout=120)  # fmt: skip
    assert proc.returncode < 0, proc.stderr[-500:]  # killed by a signal: SIGSEGV, or SIGILL on some CPUs


@pytest.mark.model
@pytest.mark.parametrize("grammar", list(BAD_GRAMMARS))
def test_bad_grammar_is_a_one_line_error_not_a_crash(gemma_backend, grammar, capfd):
    with pytest.raises(GorillaError) as info:
        list(gemma_backend.complete(PROMPT, max_tokens=4, grammar=grammar))
    assert str(info.value).startswith("invalid GBNF grammar: ") and BAD_GRAMMARS[grammar] in str(info.value)
    assert "\n" not in str(info.value)
    assert capfd.readouterr().err == ""  # llama.cpp's parse error is captured, not printed
    options = ["zebra.stripes(count=3)", "quux_frobnicate('x')"]  # and the backend still works
    out = "".join(gemma_backend.complete(PROMPT, max_tokens=20, grammar=choice_grammar(options, " ")))
    assert out.strip() in options


@pytest.mark.model
def test_huge_n_batch_is_a_one_line_error(gemma_path):
    from gorilla_tui.model.backend import LlamaBackend

    # llama-cpp-python allocates an n_batch x n_vocab (262k) float32 logits array: ~1 TB here
    with pytest.raises(GorillaError, match="not enough memory to load this model") as info:
        LlamaBackend(gemma_path, params={"n_ctx": 4096, "n_batch": 1_000_000})
    assert "\n" not in str(info.value) and info.value.hint == "lower n_ctx / n_batch in config.toml"
