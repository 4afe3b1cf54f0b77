"""Learned metrics from local checkpoints: FED, USR-style scores, BLEURT- and UniEval-style checkpoints."""
