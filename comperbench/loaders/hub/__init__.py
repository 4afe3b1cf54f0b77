"""Loaders of the benchmarks fetched from the Hugging Face Hub at a pinned revision."""
