"""Does a metric order pairs the way the humans do? Pair accuracy (WMT's pairwise accuracy),
soft pairwise accuracy, Kendall-like tau and pair difference."""
