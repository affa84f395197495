"""Searching an index: tokenize, BM25, dense vectors, fusion, source routing, fit and literals."""
