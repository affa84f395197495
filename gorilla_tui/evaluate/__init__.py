"""Evaluation on APIBench: scoring (strict and the paper's gorilla metric) and eval runs."""
