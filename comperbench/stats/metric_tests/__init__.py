"""Is one metric better than another? Metric tests: significance tests between metrics,
sequential (early-stopping) testing, tests over contexts."""
