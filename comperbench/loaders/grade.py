"""GRADE human judgements on ConvAI2, DailyDialog and EmpatheticDialogues (Huang et al., EMNLP 2020)."""

from __future__ import annotations

import json
from dataclasses import dataclass

from comperbench.common.textutil import slug
from comperbench.loaders.base import (
    BenchmarkLoader,
    Parsed,
    Record,
    SourceFiles,
    alternating,
    item_id,
)
from comperbench.metadata import Aspect, BenchmarkMetadata, SourceFile, github_source
from comperbench.schema import Rating, TurnRecord

GRADE_CITATION = """@inproceedings{huang-etal-2020-grade,
    title = "{GRADE}: Automatic Graph-Enhanced Coherence Metric for Evaluating Open-Domain Dialogue Systems",
    author = "Huang, Lishan and Ye, Zheng and Qin, Jinghui and Lin, Liang and Liang, Xiaodan",
    booktitle = "Proceedings of the 2020 Conference on Empirical Methods in Natural Language Processing (EMNLP)",
    month = nov,
    year = "2020",
    address = "Online",
    publisher = "Association for Computational Linguistics",
    url = "https://aclanthology.org/2020.emnlp-main.742",
    pages = "9230--9240"
}"""

GRADE_REPO, GRADE_COMMIT = "li3cmz/GRADE", "c6cec028e1b4495a388f1c181b10221e4d0c5955"
JUDGEMENTS = "evaluation/human_score/human_judgement.json"
JUDGEMENTS_SHA256 = "442ff57e0b980ebf820528e952b3e0722eed31fc97debeb88b61ea72efedc83b"
TURN_SEPARATOR = "|||"
EVAL_FILES = ("human_ctx.txt", "human_hyp.txt", "human_ref.txt")

RELEVANCE = Aspect(
    "relevance",
    "HumanScores",
    1,
    5,
    "Coherence/relevance of the response to its context (GRADE calls it coherence; DSTC10 "
    "calls the same ratings relevance).",
)

# sha256 of GRADE's eval_data/<dataset>/<model>/human_{ctx,hyp,ref}.txt, as listed in SOURCE.md.
EVAL_SHA256 = {
    ("convai2", "bert_ranker"): (
        "aef40be56ed921fcba68a71bfb8771d23164065f6273b44d6702e8ce3a0221f8",
        "38025574e09b368b12e1e281342ff8a6246b286f5e1554eb8a090e0a6a0b95b7",
        "52cb4f8a53f5ff26c652fd60a50ff284041b6004e77653816880c4232f5e9055",
    ),
    ("convai2", "dialogGPT"): (
        "62eb5ba5f4fbec1f6cd8a46534fa6b81b8b1f461cc99f42ee8e9de0e7493667f",
        "98441ae4d2fec627acf8768c44f9fbef31638fb0f91588f1f50d8b1a8856e10c",
        "b5cbb7fedf7f164737ecfb64ef87a8efec9a7768bcd4f8303e7645950b1fb7a1",
    ),
    ("convai2", "transformer_generator"): (
        "c25edd3a38c4a97b6eadaec650becf132b308aca886886deac53a63262116805",
        "c8983567ee23469746d13011d1a9c457a594f19210f230f408fe83ed2c8fbe79",
        "f1c2270cb2239dd27b207069b43f3b6e95a9ba362dc12b4c4e780f44ed8a5780",
    ),
    ("convai2", "transformer_ranker"): (
        "c25edd3a38c4a97b6eadaec650becf132b308aca886886deac53a63262116805",
        "1614140b9dc6fe85c4ae80724a660e129ad59ea435c26f1f68d9d2cbc0eab37f",
        "f1c2270cb2239dd27b207069b43f3b6e95a9ba362dc12b4c4e780f44ed8a5780",
    ),
    ("dailydialog", "transformer_generator"): (
        "63b9db6e913ab26250b11c7e4d5e8194d5a8a8ad226ab44b219a82fc63860afb",
        "8e8a10c16025b5e2883dbae38dad70e343af28facd8d3c7f66ff6bfdd2314745",
        "ec8a2a93422b021bfd3dd95c5440b256d78e3fb5a3a5b812d8a615d1d65ae8ec",
    ),
    ("dailydialog", "transformer_ranker"): (
        "63b9db6e913ab26250b11c7e4d5e8194d5a8a8ad226ab44b219a82fc63860afb",
        "ddbf2ac3fdefc56eca4082455e3e4fbe25b295c5b8f50bac19cbb727db97b781",
        "ec8a2a93422b021bfd3dd95c5440b256d78e3fb5a3a5b812d8a615d1d65ae8ec",
    ),
    ("empatheticdialogues", "transformer_generator"): (
        "9a66ed76abedf4e6daa14c926215424cf70218d01e86a8ce57fd57536196a119",
        "1d9cdbfb22b52c7d654879812f8ed6d12864d71e2763830baa1d832c2d4e9674",
        "b2c7347523ad2c2cc1abbb07f6008e1ae436c18ee81be0ac07ee5d859df24b00",
    ),
    ("empatheticdialogues", "transformer_ranker"): (
        "9a66ed76abedf4e6daa14c926215424cf70218d01e86a8ce57fd57536196a119",
        "bdbc54668f033a51a587b6dd84850aaa1a14a65c484d5f5e5bef61a7a0352cea",
        "b2c7347523ad2c2cc1abbb07f6008e1ae436c18ee81be0ac07ee5d859df24b00",
    ),
}


@dataclass(frozen=True)
class GradeSet:
    """One of GRADE's three evaluation sets."""

    name: str
    label: str
    """The `Dataset` value in human_judgement.json."""
    folder: str
    """The folder under eval_data/."""
    corpus: str
    models: tuple[str, ...]

    def eval_path(self, model: str, file: str) -> str:
        return f"grade/evaluation/eval_data/{self.folder}/{model}/{file}"


def _github(path: str, sha256: str) -> SourceFile:
    return github_source(path, sha256, GRADE_REPO, GRADE_COMMIT, path.removeprefix("grade/"))


def _sources(grade_set: GradeSet) -> tuple[SourceFile, ...]:
    sources = [_github(f"grade/{JUDGEMENTS}", JUDGEMENTS_SHA256)]
    for model in grade_set.models:
        digests = EVAL_SHA256[(grade_set.folder, model)]
        for file, digest in zip(EVAL_FILES, digests, strict=True):
            sources.append(_github(grade_set.eval_path(model, file), digest))
    return tuple(sources)


def _lines(files: SourceFiles, key: str) -> list[str]:
    """The lines of a GRADE text file (one item per line, the file ends with a newline)."""
    text = files.text(key)
    lines = text.split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


def _human_scores(rec: Record) -> list[float]:
    """`HumanScores` is a string holding a JSON list of 1-5 integers."""
    raw = rec.text("HumanScores")
    try:
        values = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise rec.error(f"not a JSON list ({exc.msg}): {raw!r}", "HumanScores") from exc
    if not isinstance(values, list) or not values:
        raise rec.error(f"expected a non-empty JSON list of ratings, found {raw!r}", "HumanScores")
    return [rec.rating(RELEVANCE, value) for value in values]


class _Aligned:
    """GRADE's eval_data lines of one system, checked against the judgements record by record."""

    def __init__(self, files: SourceFiles, grade_set: GradeSet, model: str) -> None:
        self.paths = [grade_set.eval_path(model, file) for file in EVAL_FILES]
        self.files = files
        self.contexts, self.responses, self.references = (_lines(files, p) for p in self.paths)
        for path, lines in zip(self.paths[1:], (self.responses, self.references), strict=True):
            if len(lines) != len(self.contexts):
                raise Record({}, files.path(path), "whole file").error(
                    f"{len(lines)} lines, but {self.paths[0]} has {len(self.contexts)}"
                )

    def reference(self, rec: Record, line: int, context: str, response: str) -> str:
        """The reference on `line`, after checking that context and response match the record."""
        if line >= len(self.contexts):
            raise rec.error(
                f"more judgements for this system than the {len(self.contexts)} "
                f"lines of {self.paths[0]}"
            )
        for path, lines, name, value in (
            (self.paths[0], self.contexts, "Context", context),
            (self.paths[1], self.responses, "Response", response),
        ):
            if lines[line] != value:
                raise rec.error(
                    f"does not match line {line + 1} of {self.files.path(path)} "
                    f"({lines[line]!r} != {value!r}): references cannot be aligned",
                    name,
                )
        return self.references[line]

    def check_complete(self, rec_count: int, grade_set: GradeSet, model: str) -> None:
        if rec_count != len(self.contexts):
            raise Record({}, self.files.path(self.paths[0]), "whole file").error(
                f"{len(self.contexts)} lines but {rec_count} judgements of {grade_set.label}/"
                f"{model} in {JUDGEMENTS}"
            )


def parse_grade(files: SourceFiles, grade_set: GradeSet, benchmark: str) -> Parsed:
    """The judgements of one evaluation set, each with its reference from GRADE's eval_data.

    Within a system, the n-th judgement (in file order) is line n of human_ctx/hyp/ref.txt;
    context and response are checked against those lines before the reference is attached.
    """
    parsed = Parsed()
    key = f"grade/{JUDGEMENTS}"
    path = files.path(key)
    records = files.json(key)
    if not isinstance(records, list):
        raise Record({}, path, "top level").error("expected a JSON array of judgements")
    known = {s.label for s in GRADE_SETS}
    aligned = {model: _Aligned(files, grade_set, model) for model in grade_set.models}
    seen = dict.fromkeys(grade_set.models, 0)
    dialogue_ids: dict[tuple[str, ...], str] = {}
    for index, raw in enumerate(records):
        rec = Record(raw, path, index)
        dataset = rec.text("Dataset")
        if dataset not in known:
            raise rec.error(f"unknown dataset; expected one of {sorted(known)}", "Dataset")
        if dataset != grade_set.label:
            continue
        rec = Record(raw, path, f"{index} (ID {rec.get('ID', int)})")
        model = rec.text("DialogModel")
        if model not in aligned:
            raise rec.error(
                f"unknown model for {dataset}; expected {grade_set.models}", "DialogModel"
            )
        context, response = rec.text("Context"), rec.text("Response")
        line = seen[model]
        reference = aligned[model].reference(rec, line, context, response)
        seen[model] += 1
        texts = tuple(t.strip() for t in context.split(TURN_SEPARATOR))
        dialogue_id = dialogue_ids.setdefault(texts, f"{len(dialogue_ids):04d}")
        parsed.turns.append(
            TurnRecord(
                item_id=item_id(benchmark, slug(model), line),
                dialogue_id=dialogue_id,
                system=model,
                context=alternating(texts),
                response=response.strip(),
                references=[reference.strip()],
                ratings=[Rating(RELEVANCE.name, v) for v in _human_scores(rec)],
            )
        )
    for model, count in seen.items():
        aligned[model].check_complete(count, grade_set, model)
    return parsed


def _grade_metadata(grade_set: GradeSet, pretty_name: str, sizes: str) -> BenchmarkMetadata:
    return BenchmarkMetadata(
        name=grade_set.name,
        pretty_name=pretty_name,
        version="1.0.0",
        description=(
            f"GRADE human judgements on {grade_set.corpus}: {sizes} Each context (two turns) "
            "and response was rated 1-5 for coherence/relevance by 8-11 annotators; every "
            "individual rating is kept, and the corpus reference reply is attached."
        ),
        homepage="https://github.com/li3cmz/GRADE",
        license="unknown (not stated by the authors)",
        license_id="unknown",
        citation=GRADE_CITATION,
        sources=_sources(grade_set),
        levels=("turn", "system"),
        aspects=(RELEVANCE,),
        default_aspect="relevance",
        has_references=True,
        notes=(
            "Read from GRADE's own release (human_judgement.json, where HumanScores is a string "
            "holding a JSON list). The DSTC10 Track 5 copy holds the same ratings and is not "
            "loaded separately.",
            "References come from eval_data/<set>/<model>/human_ref.txt. The loader checks, for "
            "every item, that line n of human_ctx.txt and human_hyp.txt equals the record's "
            "context and response (all items of the release align); a mismatch is an error.",
            "GRADE names the quality coherence; the aspect is called relevance as in DSTC10. "
            "Annotator ids are not published (annotator None).",
            "Contexts are two turns and speakers are not named in the source: they alternate "
            "B, A (A spoke last), as in the other loaders; the response is B's reply.",
        ),
    )


CONVAI2 = GradeSet(
    "grade-convai2",
    "convai2",
    "convai2",
    "ConvAI2 (PersonaChat)",
    ("bert_ranker", "dialogGPT", "transformer_generator", "transformer_ranker"),
)
DAILYDIALOG = GradeSet(
    "grade-dailydialog",
    "dailydialog_EVAL",
    "dailydialog",
    "DailyDialog",
    ("transformer_generator", "transformer_ranker"),
)
EMPATHETIC = GradeSet(
    "grade-empathetic",
    "empatheticdialogues",
    "empatheticdialogues",
    "EmpatheticDialogues",
    ("transformer_generator", "transformer_ranker"),
)
GRADE_SETS = (CONVAI2, DAILYDIALOG, EMPATHETIC)


class GradeConvai2(BenchmarkLoader):
    metadata = _grade_metadata(
        CONVAI2, "GRADE-ConvAI2", "600 responses (150 from each of 4 systems)."
    )

    def parse(self, files: SourceFiles, level: str) -> Parsed:
        return parse_grade(files, CONVAI2, self.metadata.name)


class GradeDailydialog(BenchmarkLoader):
    metadata = _grade_metadata(
        DAILYDIALOG, "GRADE-DailyDialog", "300 responses (150 from each of 2 systems)."
    )

    def parse(self, files: SourceFiles, level: str) -> Parsed:
        return parse_grade(files, DAILYDIALOG, self.metadata.name)


class GradeEmpathetic(BenchmarkLoader):
    metadata = _grade_metadata(
        EMPATHETIC, "GRADE-EmpatheticDialogues", "300 responses (150 from each of 2 systems)."
    )

    def parse(self, files: SourceFiles, level: str) -> Parsed:
        return parse_grade(files, EMPATHETIC, self.metadata.name)
