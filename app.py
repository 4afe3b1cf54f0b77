"""Hugging Face Space entry point: the comperbench leaderboard (database: $COMPERBENCH_LEADERBOARD_DB)."""

from comperbench.leaderboard.web.app import serve

if __name__ == "__main__":
    serve(host="0.0.0.0")
