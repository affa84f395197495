"""Inference: the Backend protocol, llama.cpp / remote / scripted backends, model registry, kernel
profiles, prompts, GBNF grammars, likelihood selection."""
