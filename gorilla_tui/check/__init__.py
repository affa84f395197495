"""Validation: extract calls from text, match them against the API pool (AST sub-tree match) -> verdict."""
