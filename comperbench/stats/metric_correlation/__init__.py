"""How well does a metric agree with human scores? Correlations at each level, the statistic registry, contexts, exact permutations, influence."""
