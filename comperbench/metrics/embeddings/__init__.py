"""Metrics on a sentence encoder's embeddings: embedding similarity and BERTScore."""
