"""Moved to comperbench.stats.human.votes; the old module paths here work for one release, with
a DeprecationWarning."""
