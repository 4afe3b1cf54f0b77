"""USR-TopicalChat and USR-PersonaChat (Mehri and Eskenazi, ACL 2020)."""

from __future__ import annotations

from comperbench.common.textutil import slug
from comperbench.loaders.base import (
    BenchmarkLoader,
    Parsed,
    Record,
    SourceFiles,
    alternating,
    item_id,
)
from comperbench.metadata import Aspect, BenchmarkMetadata, EvaluationProtocol, github_source
from comperbench.schema import Rating, TurnRecord

USR_CITATION = """@inproceedings{mehri-eskenazi-2020-usr,
    title = "{USR}: An Unsupervised and Reference Free Evaluation Metric for Dialog Generation",
    author = "Mehri, Shikib and Eskenazi, Maxine",
    booktitle = "Proceedings of the 58th Annual Meeting of the Association for Computational Linguistics",
    year = "2020",
    publisher = "Association for Computational Linguistics",
    url = "https://aclanthology.org/2020.acl-main.64",
    pages = "681--707"
}"""

USR_REPO, USR_COMMIT = (
    "SmartDataAnalytics/proxy_indicators",
    "5017317f0d03cdbc64a3a52c09fc0a6bf5c492b3",
)

GROUND_TRUTH = "Original Ground Truth"

USR_PROTOCOL = EvaluationProtocol(
    source="Mehri & Eskenazi (ACL 2020): 'The annotations for the original ground-truth are not "
    "used for evaluation' (that response is the reference); Yeh et al. (2021), "
    "exe1023/DialEvalMetrics data/usr_data/data_loader.py, likewise",
    reference_excluded_systems=(GROUND_TRUTH,),
    reason="its response is the reference, so every reference-based metric scores it perfectly",
)

USR_ASPECTS = (
    Aspect("understandable", "Understandable", 0, 1, "Is the response understandable in context?"),
    Aspect("natural", "Natural", 1, 3, "Is the response naturally written?"),
    Aspect("maintains_context", "Maintains Context", 1, 3, "Does it continue the dialogue?"),
    Aspect("engaging", "Engaging", 1, 3, "Is the response dull or interesting?"),
    Aspect("uses_knowledge", "Uses Knowledge", 0, 1, "Does it use the given fact or persona?"),
    Aspect("overall", "Overall", 1, 5, "Overall impression of the response."),
)


def parse_usr(files: SourceFiles, key: str, benchmark: str) -> Parsed:
    """Contexts with several rated responses each; one rating per listed annotator."""
    parsed = Parsed()
    path = files.path(key)
    contexts = files.json(key)
    if not isinstance(contexts, list):
        raise Record({}, path, "top level").error("expected a JSON array of contexts")
    for c_index, raw in enumerate(contexts):
        ctx = Record(raw, path, c_index)
        texts = [t.strip() for t in ctx.text("context").split("\n") if t.strip()]
        grounding = [t.strip() for t in ctx.text("fact").split("\n") if t.strip()]
        annotators = ctx.get("annotators", list)
        dialogue_id = f"{c_index:04d}"
        responses = ctx.get("responses", list)
        gold = [
            Record(r, path, f"{c_index}.responses[{r_index}]").text("response").strip()
            for r_index, r in enumerate(responses)
            if isinstance(r, dict) and r.get("model") == GROUND_TRUTH
        ]
        for r_index, raw_response in enumerate(responses):
            resp = Record(raw_response, path, f"{c_index}.responses[{r_index}]")
            system = resp.text("model")
            ratings: list[Rating] = []
            for aspect in USR_ASPECTS:
                values = resp.get(aspect.label, list)
                if len(values) != len(annotators):
                    raise resp.error(
                        f"{len(values)} scores for {len(annotators)} annotators", aspect.label
                    )
                for annotator, value in zip(annotators, values, strict=True):
                    ratings.append(Rating(aspect.name, resp.rating(aspect, value), str(annotator)))
            parsed.turns.append(
                TurnRecord(
                    item_id=item_id(benchmark, c_index, slug(system)),
                    dialogue_id=dialogue_id,
                    system=system,
                    context=alternating(texts),
                    response=resp.text("response").strip(),
                    ratings=ratings,
                    grounding=grounding,
                    references=gold,
                )
            )
    return parsed


def _usr_metadata(
    name: str, pretty_name: str, corpus: str, file: str, sha256: str, systems: str
) -> BenchmarkMetadata:
    grounding = "knowledge facts" if corpus == "Topical-Chat" else "persona lines"
    return BenchmarkMetadata(
        name=name,
        pretty_name=pretty_name,
        version="1.0.0",
        description=(
            f"USR human annotations on {corpus}: 60 contexts, each with responses from {systems}, "
            f"rated by three annotators on six qualities. Grounding holds the {grounding}."
        ),
        homepage="http://shikib.com/usr",
        license="unknown (not stated by the authors)",
        license_id="unknown",
        citation=USR_CITATION,
        sources=(github_source(f"usr/{file}", sha256, USR_REPO, USR_COMMIT, f"data/{file}"),),
        levels=("turn", "system"),
        aspects=USR_ASPECTS,
        default_aspect="overall",
        has_references=True,
        has_grounding=True,
        annotator_ids=True,
        protocol=USR_PROTOCOL,
        notes=(
            "The reference of every item is the original ground-truth reply of its context, as in "
            "the USR paper and DSTC10; that reply is also one of the rated systems, so its own "
            "reference-based scores are trivially perfect.",
            "The DSTC10 Track 5 copies (topical-usr, persona-usr) hold the same annotations and "
            "are not loaded separately.",
        ),
    )


class UsrTopical(BenchmarkLoader):
    metadata = _usr_metadata(
        "usr-topical",
        "USR-TopicalChat",
        "Topical-Chat",
        "usr_topical_chat.json",
        "8e4e6961585f58edb573c0153766547442bde69577e8df6ba9e24a84dc9483e5",
        "6 systems (ground truth, new human reply, argmax and nucleus decoding at p=0.3/0.5/0.7)",
    )

    def parse(self, files: SourceFiles, level: str) -> Parsed:
        return parse_usr(files, self.metadata.sources[0].path, self.metadata.name)


class UsrPersona(BenchmarkLoader):
    metadata = _usr_metadata(
        "usr-persona",
        "USR-PersonaChat",
        "PersonaChat",
        "usr_percona_chat.json",
        "7acf3ff80c02e791138bc9a0db440a36d07d700fe1457066adbf73b8f0c64a4b",
        "5 systems (ground truth, new human reply, KV-MemNN, Seq2Seq, language model)",
    )

    def parse(self, files: SourceFiles, level: str) -> Parsed:
        return parse_usr(files, self.metadata.sources[0].path, self.metadata.name)
