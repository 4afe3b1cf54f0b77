"""What the n-gram metrics share: 13a tokens, n-gram overlap counts, the reference-based base."""
