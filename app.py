"""Hugging Face Space entry point: the comperbench leaderboard (database: $COMPERBENCH_LEADERBOARD_DB)."""

from comperbench.stats.blas import one_thread_by_default

one_thread_by_default()  # before numpy is loaded

from comperbench.leaderboard.web.app import serve  # noqa: E402

if __name__ == "__main__":
    serve(host="0.0.0.0")
