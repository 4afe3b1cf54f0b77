"""Metrics on words and characters: n-gram metrics from the field's libraries and the dialogue papers' variants."""
