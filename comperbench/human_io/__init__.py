"""The file formats of a user's own human evaluation: A/B votes (one per row, or counted per
pair of systems), per-turn selections, behaviour labels and ratings, each read with errors that
name the file, line and field, and each with a template. What the files say is computed in
`comperbench.stats.human`."""
