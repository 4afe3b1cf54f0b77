"""The actions of `comperbench human`: votes, selections, labels, ratings, templates and plans, and what they share."""
