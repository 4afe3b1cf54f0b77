"""LLM judges: what every judge shares, each judge, its prompts, its settings and the parsing of its verdicts."""
