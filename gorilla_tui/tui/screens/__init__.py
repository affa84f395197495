"""Screens: main (the task and its proposal), history, settings, help, confirm, doc, index setup, run."""
