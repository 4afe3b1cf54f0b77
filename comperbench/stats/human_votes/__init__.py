"""What do pairwise human votes between systems say? Counts, tests, Bradley-Terry, Elo and TrueSkill ratings, the ChatEval protocol."""
