"""Moved to comperbench.stats.human.planning; the old module paths here work for one release,
with a DeprecationWarning."""
