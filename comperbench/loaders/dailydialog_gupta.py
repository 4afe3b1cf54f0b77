"""DailyDialog multi-reference ratings (Gupta et al., SIGDIAL 2019)."""

from __future__ import annotations

from comperbench.common.errors import DataFormatError
from comperbench.common.textutil import slug
from comperbench.loaders.base import (
    BenchmarkLoader,
    Parsed,
    Record,
    SourceFiles,
    alternating,
    item_id,
)
from comperbench.metadata import Aspect, BenchmarkMetadata, github_source
from comperbench.schema import TurnRecord

GUPTA_CITATION = """@inproceedings{gupta-etal-2019-investigating,
    title = "Investigating Evaluation of Open-Domain Dialogue Systems With Human Generated Multiple References",
    author = "Gupta, Prakhar and Mehri, Shikib and Zhao, Tiancheng and Pavel, Amy and Eskenazi, Maxine and Bigham, Jeffrey",
    booktitle = "Proceedings of the 20th Annual SIGdial Meeting on Discourse and Dialogue",
    year = "2019",
    publisher = "Association for Computational Linguistics",
    url = "https://aclanthology.org/W19-5944",
    doi = "10.18653/v1/W19-5944",
    pages = "379--391"
}"""

GUPTA_REPO, GUPTA_COMMIT = "prakharguptaz/multirefeval", "2a4b5440e21dba518dffd6d535dfb1450ab9c4a7"
COLUMNS = (
    "model",
    "context_id",
    "human_average_rating",
    "response",
    "prevgt",
    "all_references",
    "context",
)
TURN_SEPARATOR = "||||"
OVERALL = Aspect("overall", "human_average_rating", 1, 5, "Overall quality of the response.")


class DailyDialogGupta(BenchmarkLoader):
    metadata = BenchmarkMetadata(
        name="dailydialog-gupta",
        pretty_name="DailyDialog multi-reference (Gupta et al.)",
        version="1.0.0",
        description=(
            "Gupta et al.'s DailyDialog ratings: 500 responses to 100 test contexts from 5 systems "
            "(a new human reply, HRED, seq2seq, CVAE and a retrieval dual encoder), each with the "
            "mean overall score of its crowd raters on a 1-5 scale and four references "
            "(three collected for the multi-reference test set plus the original reply)."
        ),
        homepage=f"https://github.com/{GUPTA_REPO}",
        license="unknown (not stated by the authors)",
        license_id="unknown",
        citation=GUPTA_CITATION,
        sources=(
            github_source(
                "dailydialog_gupta/mturk_rating_processed_output.csv",
                "55a7c5c01b22ebfed631b28eb0e658eaa9a300a05ef95c09a26853ba6eb45c37",
                GUPTA_REPO,
                GUPTA_COMMIT,
                "multiref-dataset/mturk_rating_processed_output.csv",
            ),
        ),
        levels=("turn", "system"),
        aspects=(OVERALL,),
        default_aspect="overall",
        has_references=True,
        individual_ratings=False,
        notes=(
            "Only the mean rating of each response is published (neither the individual ratings "
            "nor the number of raters): scores come from `human_average_rating`, `ratings` is "
            "empty, and inter-annotator agreement cannot be computed.",
            "References are the four TAB-separated `all_references` of the ratings file. The "
            "original ground-truth reply (`prevgt`) is always one of them (the last), so it is not "
            "added twice; were it missing it would be appended. The multi-reference test set "
            "(multireftest.json) holds one more collected reply for each of these contexts, which "
            "the ratings file does not carry and this loader does not add.",
            "The rated 'human' system is a newly written reply, not one of the references.",
            "The context is the full dialogue history (turns joined by '||||' in the file); "
            "dialogue_id is the file's context_id (<dialogue>_<turn> in the DailyDialog test set).",
        ),
    )

    def parse(self, files: SourceFiles, level: str) -> Parsed:
        parsed = Parsed()
        key = self.metadata.sources[0].path
        path = str(files.path(key))
        for line, row in files.csv_rows(key):
            assert isinstance(row, dict)
            if None in row or any(row.get(c) is None for c in COLUMNS):
                raise DataFormatError(
                    f"expected {len(COLUMNS)} columns named {', '.join(COLUMNS)}",
                    file=path,
                    line=line,
                )
            context_id = row["context_id"].strip()
            system = row["model"].strip()
            rec = Record(row, path, f"{context_id}/{system}", line)
            turns = [t.strip() for t in row["context"].split(TURN_SEPARATOR)]
            references = [r.strip() for r in row["all_references"].split("\t")]
            for field, texts in (("context", turns), ("all_references", references)):
                if not all(texts):
                    raise rec.error("empty entry", field)
            original = row["prevgt"].strip()
            if original and original not in references:
                references.append(original)
            value = rec.rating(OVERALL, row[OVERALL.label], text=True)
            parsed.turns.append(
                TurnRecord(
                    item_id=item_id(self.metadata.name, context_id, slug(system)),
                    dialogue_id=context_id,
                    system=system,
                    context=alternating(turns),
                    response=row["response"].strip(),
                    ratings=[],
                    references=references,
                    published_scores={OVERALL.name: value},
                )
            )
        return parsed
