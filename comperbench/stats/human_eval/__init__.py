"""Moved to comperbench.stats.human.judgments; the old module paths here work for one release,
with a DeprecationWarning."""
