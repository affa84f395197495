"""`python -m gorilla_tui` is the same as the `gorilla-tui` command."""

from gorilla_tui.cli import run

run()
