"""How many judgments does a human evaluation need? Power and sample size per test and per
setting."""
