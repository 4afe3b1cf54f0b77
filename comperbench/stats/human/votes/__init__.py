"""What do A/B votes between systems say? Counts, tests, Bradley-Terry, Elo and TrueSkill
ratings, the ChatEval protocol, the votes' agreement."""
