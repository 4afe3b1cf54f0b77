"""What does a human evaluation say, and how large must it be?

- `votes`: A/B votes between two systems: comparisons, win/tie/loss, WMT scores, their tests,
  Bradley-Terry, Elo and TrueSkill ratings, the ChatEval protocol, the votes' agreement;
- `judgments`: labels, ratings and selections of systems: rates per system, tests, issue
  detection, predictive validity;
- `planning`: how many judgments a human evaluation needs (power, sample size).
"""
