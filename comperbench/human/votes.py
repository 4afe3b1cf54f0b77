"""Moved to `comperbench.human_io.vote_rows`; this path works for one release, with a
DeprecationWarning."""

from comperbench.common.deprecation import renamed_names

__getattr__ = renamed_names(
    "comperbench.human.votes",
    {
        "VOTE_ROW_COLUMNS": "comperbench.human_io.vote_rows.VOTE_ROW_COLUMNS",
        "OUTCOMES": "comperbench.human_io.vote_rows.OUTCOMES",
        "vote_rows_table": "comperbench.human_io.vote_rows.vote_rows_table",
        "read_vote_rows": "comperbench.human_io.vote_rows.read_vote_rows",
        "comparisons_from_vote_rows": "comperbench.human_io.vote_rows.comparisons_from_vote_rows",
        "AGREEMENT": "comperbench.stats.human.votes.vote_agreement.AGREEMENT",
        "agreement_breakdown": "comperbench.stats.human.votes.vote_agreement.agreement_breakdown",
        "vote_rows_from_judgments": "comperbench.human_io.vote_rows.vote_rows_from_rating_votes",
    },
)
