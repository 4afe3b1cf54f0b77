"""Does a metric order pairs the way the humans do? WMT's pairwise accuracy, soft pairwise accuracy, Kendall-like tau and pairwise difference."""
