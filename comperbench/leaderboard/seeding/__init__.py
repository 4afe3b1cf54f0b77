"""Seeding the leaderboard with the package's own metrics, and what that costs."""
