"""Results people can see: figures of an evaluation and a self-contained HTML report."""
