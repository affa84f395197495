"""Headless core of gorilla-tui: API pool, retrieval, inference, validation. Never imports textual."""
