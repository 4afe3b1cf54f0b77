"""The leaderboard: submission format and validation, scoring, the SQLite store, the Gradio app."""

from __future__ import annotations

from comperbench.leaderboard.submission import Submission, SubmissionError, SubmissionMeta

__all__ = ["Submission", "SubmissionError", "SubmissionMeta"]
