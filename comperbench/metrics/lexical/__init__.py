"""Metrics on words and characters, one module per metric: `bleu`, `corpus_bleu`, `chrf`,
`rouge`, `meteor`, `f1`, `distinct`, `length`, and `literature` (the dialogue papers' variants);
`common` holds their tokens, n-gram counts and reference-based base, `scripts` and `wordnet`
the text handling they share."""
