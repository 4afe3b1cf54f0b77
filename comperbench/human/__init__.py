"""Moved to comperbench.human_io and comperbench.stats.human.votes.vote_agreement; the old
module paths here work for one release, with a DeprecationWarning."""
