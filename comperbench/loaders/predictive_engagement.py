"""PredictiveEngagement human engagement ratings on DailyDialog (Ghazarian et al., AAAI 2020)."""

from __future__ import annotations

from collections import Counter, defaultdict

from comperbench.common.errors import DataFormatError
from comperbench.loaders.base import (
    BenchmarkLoader,
    Parsed,
    Record,
    SourceFiles,
    alternating,
    item_id,
)
from comperbench.metadata import Aspect, BenchmarkMetadata, github_source
from comperbench.schema import Rating, TurnRecord

ENGAGEMENT_CITATION = """@inproceedings{ghazarian-etal-2020-predictive,
    title = {Predictive Engagement: An Efficient Metric for Automatic Evaluation of Open-Domain Dialogue Systems},
    author = {Ghazarian, Sarik and Weischedel, Ralph and Galstyan, Aram and Peng, Nanyun},
    booktitle = {Proceedings of the AAAI Conference on Artificial Intelligence},
    volume = {34},
    number = {05},
    pages = {7789--7796},
    year = {2020},
    doi = {10.1609/aaai.v34i05.6283},
    url = {https://ojs.aaai.org/index.php/AAAI/article/view/6283}
}"""

ENGAGEMENT_REPO, ENGAGEMENT_COMMIT = (
    "PlusLabNLP/PredictiveEngagement",
    "214d3eb20901982d192b05b4d496420dfb273f8e",
)
RATINGS_FILE = "predictive_engagement/Eng_Scores_queries_gen_gtruth_replies.csv"
TRUTH_FILE = "predictive_engagement/DailyDialog_groungtruth_annotated.csv"
RATINGS_COLUMNS = ("query", "response", "human_score")
PAIRS_PER_HIT = 10
GROUND_TRUTH, GENERATED = "ground-truth", "generated"
ENGAGEMENT = Aspect("engagement", "human_score", 1, 5, "How engaging is the response?")

Pair = tuple[str, str]


def _require(row: dict[str | None, object], columns: tuple[str, ...], path: str, line: int) -> None:
    missing = [c for c in columns if row.get(c) is None]
    if missing:
        raise DataFormatError(f"no value for column(s) {', '.join(missing)}", file=path, line=line)


def _ratings_by_pair(files: SourceFiles) -> dict[Pair, list[tuple[float, int]]]:
    """Every rating of the main file by (query, response), in the order pairs first appear."""
    path = str(files.path(RATINGS_FILE))
    pairs: dict[Pair, list[tuple[float, int]]] = defaultdict(list)
    for line, row in files.csv_rows(RATINGS_FILE):
        assert isinstance(row, dict)
        _require(row, RATINGS_COLUMNS, path, line)
        pair = (row["query"].strip(), row["response"].strip())
        if not all(pair):
            raise DataFormatError("empty query or response", file=path, line=line)
        rec = Record(row, path, len(pairs), line)
        value = rec.rating(ENGAGEMENT, row[ENGAGEMENT.label], text=True, integer=True)
        pairs[pair].append((value, line))
    return pairs


def _worker_ratings(files: SourceFiles) -> dict[Pair, list[tuple[str, float]]]:
    """(worker id, rating) of every ground-truth pair in the raw Mechanical Turk batch."""
    path = str(files.path(TRUTH_FILE))
    columns = ["WorkerId"]
    for n in range(1, PAIRS_PER_HIT + 1):
        columns += [f"Input.query{n}", f"Input.response{n}", f"Answer.pair{n}"]
    workers: dict[Pair, list[tuple[str, float]]] = defaultdict(list)
    for hit, (line, row) in enumerate(files.csv_rows(TRUTH_FILE)):
        assert isinstance(row, dict)
        _require(row, tuple(columns), path, line)
        worker = row["WorkerId"].strip()
        rec = Record(row, path, f"HIT {hit}", line)
        for n in range(1, PAIRS_PER_HIT + 1):
            pair = (row[f"Input.query{n}"].strip(), row[f"Input.response{n}"].strip())
            answer = f"Answer.pair{n}"
            value = rec.rating(ENGAGEMENT, row[answer], answer, text=True, integer=True)
            workers[pair].append((worker, value))
    return workers


class PredictiveEngagement(BenchmarkLoader):
    metadata = BenchmarkMetadata(
        name="predictive-engagement",
        pretty_name="PredictiveEngagement",
        version="1.0.0",
        description=(
            "Ghazarian et al.'s engagement ratings on DailyDialog: 600 single-turn "
            "(query, response) pairs, half with the original reply and half with a generated "
            "one, each rated 1-5 for engagement by three Mechanical Turk workers."
        ),
        homepage=f"https://github.com/{ENGAGEMENT_REPO}",
        license="MIT",
        license_id="mit",
        citation=ENGAGEMENT_CITATION,
        sources=(
            github_source(
                RATINGS_FILE,
                "47c5a8a5b2b291373ae61072fed187592e28a5986a14ac73786cbdcdf25267a0",
                ENGAGEMENT_REPO,
                ENGAGEMENT_COMMIT,
                "data/Eng_Scores_queries_gen_gtruth_replies.csv",
            ),
            github_source(
                TRUTH_FILE,
                "ccdd7d12aeddb3392fa5c4e227b4df7b4f8fc5f43b19239e9271ec190098031c",
                ENGAGEMENT_REPO,
                ENGAGEMENT_COMMIT,
                "data/DailyDialog_groungtruth_annotated.csv",
            ),
        ),
        levels=("turn", "system"),
        aspects=(ENGAGEMENT,),
        default_aspect="engagement",
        notes=(
            "The ratings file has one row per rating; the three rows of a (query, response) pair "
            "are not consecutive (the file interleaves pairs in blocks of 5 or 10), so ratings "
            "are grouped by the exact pair. Items are numbered in order of first appearance.",
            "System: a pair is 'ground-truth' when it is one of the 300 pairs of the raw "
            "Mechanical Turk batch of DailyDialog ground-truth replies "
            "(DailyDialog_groungtruth_annotated.csv), else 'generated'. The ratings of every "
            "ground-truth pair in that batch equal its ratings in the main file (checked on "
            "load), so those ratings carry the batch's worker ids; ratings of generated replies "
            "have no annotator id. Which model generated the replies is not stated.",
            "The main file's other columns (Ruber_Unref_Score, CTX_Unref_Score, "
            "Eng_Score_MeanPooling, Eng_Score_MaxPooling) are the authors' automatic metric "
            "scores, not human judgments, and are not loaded.",
            "Context is the single query. dialogue_id numbers distinct query strings; the query "
            "'Thank you .' occurs in two DailyDialog dialogues and so groups four responses.",
            "No references are published with the ratings.",
        ),
    )

    def parse(self, files: SourceFiles, level: str) -> Parsed:
        parsed = Parsed()
        pairs = _ratings_by_pair(files)
        workers = _worker_ratings(files)
        truth_path = str(files.path(TRUTH_FILE))
        for pair, rated in workers.items():
            if pair not in pairs:
                raise DataFormatError(
                    f"ground-truth pair {pair!r} has no ratings in {files.path(RATINGS_FILE)}",
                    file=truth_path,
                )
            if Counter(v for _, v in rated) != Counter(v for v, _ in pairs[pair]):
                raise DataFormatError(
                    f"ratings of pair {pair!r} differ from those in the ratings file "
                    f"(lines {', '.join(str(line) for _, line in pairs[pair])})",
                    file=truth_path,
                )
        queries: dict[str, int] = {}
        for index, (pair, rated) in enumerate(pairs.items()):
            query, response = pair
            if pair in workers:
                system = GROUND_TRUTH
                ratings = [Rating(ENGAGEMENT.name, v, worker) for worker, v in workers[pair]]
            else:
                system = GENERATED
                ratings = [Rating(ENGAGEMENT.name, v) for v, _ in rated]
            parsed.turns.append(
                TurnRecord(
                    item_id=item_id(self.metadata.name, index),
                    dialogue_id=f"q{queries.setdefault(query, len(queries)):03d}",
                    system=system,
                    context=alternating([query]),
                    response=response,
                    ratings=ratings,
                )
            )
        return parsed
