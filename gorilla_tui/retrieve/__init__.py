"""Retrieval: tokenizer, BM25 index and its store, constraint parsing and reranking, refresh."""
