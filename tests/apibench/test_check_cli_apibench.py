"""APIBench tier of tests/cli/test_check_cli.py: `gorilla-tui check`: verdict panel / JSON and exit codes (0
valid, 1 other verdicts, 2 bad usage)."""

from __future__ import annotations

from gorilla_tui.cli import main


def test_helper_call_panel(apibench, capsys):
    pool = str(apibench / "api" / "torchhub_api.jsonl")  # the NVIDIA helpers are not in the small pool
    call = "torch.hub.load('NVIDIA/DeepLearningExamples:torchhub', 'nvidia_convnets_processing_utils')"
    assert main(["check", call, "--pool", pool]) == 1
    out = capsys.readouterr().out
    assert "pre-processing helper" in out and "nvidia_resnet50" in out and "tacotron" not in out
