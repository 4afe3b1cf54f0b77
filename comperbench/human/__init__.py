"""The file formats of a user's own human evaluation: pairwise votes (one per row or counted per
pair), per-turn selections, behaviour labels and ratings, each read with errors that name the
file, line and field, and each with a template."""
