"""HolisticEval context coherence and fluency ratings (Pang et al., ACL 2020)."""

from __future__ import annotations

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

HOLISTIC_CITATION = """@inproceedings{pang-etal-2020-towards,
    title = "Towards Holistic and Automatic Evaluation of Open-Domain Dialogue Generation",
    author = "Pang, Bo and Nijkamp, Erik and Han, Wenjuan and Zhou, Linqi and Liu, Yixian and Tu, Kewei",
    booktitle = "Proceedings of the 58th Annual Meeting of the Association for Computational Linguistics",
    year = "2020",
    publisher = "Association for Computational Linguistics",
    url = "https://aclanthology.org/2020.acl-main.333",
    doi = "10.18653/v1/2020.acl-main.333",
    pages = "3619--3629"
}"""

HOLISTIC_REPO, HOLISTIC_COMMIT = (
    "alexzhou907/dialogue_evaluation",
    "d7f08e0e1d2ce9cdd422b3a6c6c02adccfbfea27",
)
RATERS = 10
UNKNOWN_SYSTEM = "unknown"


def parse_holistic(
    files: SourceFiles, key: str, benchmark: str, aspect: Aspect, with_query: bool
) -> Parsed:
    """Rows `id, [query,] response, s1..s10` without a header; one rating per s-column."""
    parsed = Parsed()
    path = str(files.path(key))
    width = (3 if with_query else 2) + RATERS
    for line, row in files.csv_rows(key, header=False):
        assert isinstance(row, list)
        if len(row) != width:
            raise DataFormatError(
                f"expected {width} columns, found {len(row)}", file=path, line=line
            )
        row_id = row[0].strip()
        if not (row_id.isascii() and row_id.isdigit()):
            raise DataFormatError(
                f"id {row_id!r} is not an integer", file=path, line=line, field="id"
            )
        texts = row[1:-RATERS]
        rec = Record({}, path, row_id, line)
        ratings = [
            Rating(aspect.name, rec.rating(aspect, cell, f"s{n}", text=True, integer=True))
            for n, cell in enumerate(row[-RATERS:], start=1)
        ]
        context = alternating([texts[0].strip()]) if with_query else []
        parsed.turns.append(
            TurnRecord(
                item_id=item_id(benchmark, int(row_id)),
                dialogue_id=row_id,
                system=UNKNOWN_SYSTEM,
                context=context,
                response=texts[-1].strip(),
                ratings=ratings,
            )
        )
    return parsed


def _holistic_metadata(
    name: str, pretty_name: str, file: str, sha256: str, aspect: Aspect
) -> BenchmarkMetadata:
    context = (
        "a DailyDialog query and a generated response"
        if aspect.name == "context_coherence"
        else "a generated response shown without its context"
    )
    return BenchmarkMetadata(
        name=name,
        pretty_name=pretty_name,
        version="1.0.0",
        description=(
            f"HolisticEval human ratings of {aspect.label.lower()}: 200 items, each {context}, "
            f"rated 1-5 by ten crowd workers."
        ),
        homepage=f"https://github.com/{HOLISTIC_REPO}",
        license="unknown (not stated by the authors)",
        license_id="unknown",
        citation=HOLISTIC_CITATION,
        sources=(
            github_source(f"holistic_eval/{file}", sha256, HOLISTIC_REPO, HOLISTIC_COMMIT, file),
        ),
        levels=("turn", "system"),
        aspects=(aspect,),
        default_aspect=aspect.name,
        notes=(
            "The release names neither the systems that produced the responses nor the raters: "
            "every item has system 'unknown' (so the system level has a single row) and ratings "
            "have no annotator id. The ten rating columns s1..s10 are not documented as fixed "
            "raters.",
            "No references are released. Item ids are the row ids of the file; the two files "
            "number the same responses differently.",
        ),
    )


class HolisticContext(BenchmarkLoader):
    metadata = _holistic_metadata(
        "holistic-context",
        "HolisticEval context coherence",
        "context_data_release.csv",
        "05456ad4832238c7f60b248b6485af41b5184735c996406fdf40635b688d9cde",
        Aspect(
            "context_coherence",
            "Context coherence",
            1,
            5,
            "Is the response coherent with the query it answers?",
        ),
    )

    def parse(self, files: SourceFiles, level: str) -> Parsed:
        meta = self.metadata
        return parse_holistic(files, meta.sources[0].path, meta.name, meta.aspects[0], True)


class HolisticFluency(BenchmarkLoader):
    metadata = _holistic_metadata(
        "holistic-fluency",
        "HolisticEval fluency",
        "fluency_data_release.csv",
        "6bc3c4795104e9d8af7bfb75cfcd3fee7889d1e5a4d174f39fcb72259fc5469c",
        Aspect("fluency", "Fluency", 1, 5, "Is the response fluent language?"),
    )

    def parse(self, files: SourceFiles, level: str) -> Parsed:
        meta = self.metadata
        return parse_holistic(files, meta.sources[0].path, meta.name, meta.aspects[0], False)
