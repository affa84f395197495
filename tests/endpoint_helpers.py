"""Shared by the tests of a misbehaving `--endpoint` server (tests/unit/test_endpoint_hostile.py,
test_endpoint_reads.py, test_endpoint_retry_total.py): a hang guard and a Torch Hub pool line."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any


def in_time(fn: Callable[[], Any], guard_s: float) -> tuple[Any, float]:
    """(what fn() returned or raised, seconds it took): fn runs in a daemon thread, and one still running
    after `guard_s` seconds fails the test (a safety net for hangs, not a timing assertion)."""
    box: list[Any] = []

    def run() -> None:
        try:
            box.append(fn())
        except BaseException as e:  # noqa: BLE001 - the test looks at it
            box.append(e)

    start = time.monotonic()
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(guard_s)
    assert not thread.is_alive(), f"still running after {guard_s:g} s"
    return box[0], time.monotonic() - start


def apibench_line(name: str, functionality: str) -> dict:
    """One Torch Hub APIBench pool line for a made-up model `name` of repo zoo/vision."""
    call = f"torch.hub.load(repo_or_dir='zoo/vision', model='{name}', pretrained=True)"
    return {"domain": "Image Classification", "framework": "PyTorch", "functionality": functionality,
            "api_name": name, "api_call": call, "api_arguments": {"pretrained": "True"},
            "python_environment_requirements": ["torch"], "example_code": [],
            "description": f"{functionality} pretrained on images."}  # fmt: skip
