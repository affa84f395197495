"""The Textual TUI (issue 5): `create_app(settings, backend=None, index=None)` builds the app."""
