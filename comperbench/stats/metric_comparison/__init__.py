"""Is one metric better than another? Significance tests between metrics, sequential (early-stopping) testing, tests over contexts."""
