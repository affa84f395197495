"""Widgets of the main screen; each talks upward with messages nested in its class."""
