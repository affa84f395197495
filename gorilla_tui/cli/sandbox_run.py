"""The confirmed code of `run` and `ask --run` run in the sandbox, and what is said of the run: the run in a
worker thread that Ctrl+C, SIGTERM and SIGHUP stop (run_in_sandbox), then its outcome, limits hit, notes,
missing package and undefined names on stderr, or the whole --json document (report_run)."""

from __future__ import annotations

import argparse
import json
import signal
import threading
from typing import Any

from gorilla_tui.cli.output import HeldLoss, OutputLost, say
from gorilla_tui.cli.run_notebook import written_modules
from gorilla_tui.errors import GorillaError
from gorilla_tui.sandbox.requirements import missing_package
from gorilla_tui.sandbox.runner import SandboxRun
from gorilla_tui.sandbox.undefined import undefined_names
from gorilla_tui.textsafe import safe_text

#: Exit status after the run was stopped by a signal to the app: 128 + its number (Ctrl+C: 130).
STOPPED_BY = {signal.SIGINT: "Ctrl+C", signal.SIGTERM: "SIGTERM", signal.SIGHUP: "SIGHUP"}


def run_in_sandbox(
    code: str,
    limits: Any,
    *,
    stream: bool = True,
    keep: bool = False,
    allow_unisolated: bool = False,
    echo_last: bool = False,
    held: HeldLoss | None = None,
) -> tuple[Any, signal.Signals | None]:
    """Run `code` in the sandbox (echoing its lines, through safe_text, to stdout/stderr when stream) and
    return (RunResult, the signal that stopped it or None). The run happens in a worker thread; in the main
    thread Ctrl+C (SIGINT), SIGTERM and SIGHUP (a closed terminal) stop it instead of raising, and the
    previous handlers are restored after. echo_last: a final expression's repr is printed (SandboxRun).
    A stdout that refuses a write (OutputLost) is kept in `held` (a new HeldLoss when None) and the rest of
    the run's stdout lines are dropped: the run goes on to its own end.
    Raises IsolationError (see SandboxRun), GorillaError when the sandbox cannot start."""
    held = held if held is not None else HeldLoss()

    def echo(stream: str, line: str) -> None:
        if stream != "stdout":
            say(safe_text(line, newlines=True))
            return
        with held.catch():
            if not held.lost:
                print(safe_text(line, newlines=True), flush=True)

    run = SandboxRun(
        code,
        limits=limits,
        on_output=echo if stream else None,
        keep=keep,
        allow_unisolated=allow_unisolated,
        echo_last=echo_last,
    )
    box: dict[str, Any] = {}
    done = threading.Event()
    got: list[signal.Signals] = []

    def work() -> None:
        try:
            box["result"] = run.run()
        except BaseException as e:  # noqa: BLE001 - handed to the main thread
            box["error"] = e
        finally:
            done.set()

    def on_signal(signum: int, _frame: Any) -> None:
        got.append(signal.Signals(signum))
        run.stop()

    old: dict[signal.Signals, Any] = {}
    if threading.current_thread() is threading.main_thread():
        for sig in STOPPED_BY:
            old[sig] = signal.signal(sig, on_signal)
    thread = threading.Thread(target=work, name="gorilla-run", daemon=True)
    try:
        thread.start()
        while not done.wait(0.1):  # never Thread.join: an interrupted join can lose the thread's state
            pass
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)
    if "error" in box:
        if isinstance(box["error"], (GorillaError, OutputLost)):  # OutputLost: not the sandbox's fault
            raise box["error"]
        raise GorillaError(f"the sandbox could not start: {box['error']}")
    return box["result"], (got[0] if got else None)


def report_run(
    verdict: Any,
    requirements: list[str],
    result: Any,
    args: argparse.Namespace,
    extra: dict[str, Any],
    code: str,
) -> None:
    """Say what the run gave: with args.json one JSON document on stdout (`extra`'s keys, the verdict, the
    env requirements, the run, the missing package and the undefined names, each None when none), else on
    stderr its outcome, duration, limits hit, notes, the sandbox folder (args.keep), the package it missed
    and the NameError of a name it never defined, each through textsafe.safe_text."""
    missing = missing_package(result, verdict.matched)
    unwritten = None  # a module a skipped %%writefile would have made: no package to install
    if missing is not None and missing.module in written_modules(code):
        unwritten, missing = missing.module, None
    undefined = undefined_names(result, code, verdict.matched)
    if args.json:
        doc = {
            **extra,
            "verdict": verdict.to_dict(),
            "env_requirements": requirements,
            "run": result.to_dict(),
            "missing_package": None if missing is None else missing.__dict__,
            "unwritten_module": unwritten,
            "undefined_names": None if undefined is None else undefined.to_dict(),
        }
        print(json.dumps(doc, indent=1))
        return
    parts = [result.outcome(), f"{result.duration_s:.2f} s"]
    if result.limits_hit:
        parts.append("limits hit: " + ", ".join(result.limits_hit))
    if result.stopped:
        parts.append("stopped")
    if result.truncated:
        parts.append(f"output truncated ({result.dropped_bytes} bytes dropped)")
    say("run: " + "; ".join(parts))
    for note in result.notes:
        say("  " + safe_text(note))
    if args.keep:
        say(safe_text(f"  sandbox folder: {result.workdir}"))  # a path, as it is
    if missing is not None:
        say(safe_text(f"missing package: {missing.module}; to install it yourself: {missing.pip_line}"))
    if unwritten is not None:
        say(
            safe_text(
                f"missing module: {unwritten}: the notebook's %%writefile {unwritten}.py would have made it;"
                f" `run` does not run that cell (write {unwritten}.py yourself)"
            )
        )
    if undefined is not None:
        say(safe_text(f"NameError: {undefined.message()}"))
