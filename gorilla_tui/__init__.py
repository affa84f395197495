"""gorilla-tui: a local terminal assistant that turns a task into a checked API call."""

__version__ = "0.1.0"
