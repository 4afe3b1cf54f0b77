"""ComperDial (Wakaki et al. 2024): human-scored responses of 97 CPD-challenge agents and 2 humans.

Published only on the Hugging Face Hub (`Sony/ComperDial`, pinned revision below) as four JSON
files; the loader reads all of them. What is known of them: their names and sizes at the pinned
revision (Hub file listing), what each holds (the dataset card and the paper), and the layout of
`ComperDial_data.json`. The inner layouts of the three others were NOT seen: they are ASSUMED as
below, every record is checked against them, and a mismatch fails with the expected fields named.

- `ComperDial_data.json` (435 kB): the dialogue dataset, 100 base dialogues
  `{"dialogue_id": int, "persona": {speaker: [str]}, "dialogue": [{"persona_id", "text"}]}`.
- `ComperDial_dialogue_data.json` (66.5 kB): the 15 base dialogues the annotated sets use (card:
  "15 dialogues of the 100"), ASSUMED in the layout of `ComperDial_data.json` (4.4 kB a dialogue
  against 4.35 kB there); each must be the dialogue of the same id in `ComperDial_data.json`, and
  the evaluation records may refer only to these.
- `ComperDial_turn_level_evaluation.json` (3.71 MB, 357 bytes a response): a JSON array of
  `{"dialogue_id": int, "model": str, "turn_index": int, "response": str, "scores": [1-5 | null]}`;
  `turn_index` is the 0-based position, in the base dialogue, of the utterance the response
  replaces (static evaluation: the context is the base dialogue before it).
- `ComperDial_dialogue_level_evaluation.json` (21.1 MB, 14.2 kB a conversation): the paper's
  static multi-turn format (Appendix A.7.2: "for each dialogue, there are seven dialogue flows and
  corresponding final responses"), ASSUMED as a JSON array of `{"dialogue_id": int, "model": str,
  "flows": [{"context": [{"persona_id", "text"}], "response": str}], "scores": [1-5 | null]}`; each
  flow's context is a prefix of the base dialogue, longer than the previous flow's, and its
  response replaces the next utterance. The conversation is the base dialogue with each flow's
  response in place of that utterance, up to the last flow.

`scores` holds one rating per annotator (annotator identities unknown); null is a missing rating.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from comperbench.common.textutil import slug
from comperbench.loaders.base import (
    BenchmarkLoader,
    Parsed,
    Record,
    SourceFiles,
    item_id,
)
from comperbench.metadata import (
    Aspect,
    BenchmarkMetadata,
    HubFile,
    PublishedCounts,
    SourceFile,
    SplitCounts,
)
from comperbench.schema import DialogueRecord, Rating, TurnRecord, Utterance

NAME = "comperdial"
REPO_ID = "Sony/ComperDial"
REVISION = "c4884b9c81f3eedd9e93790e454009f87204d1fe"
DIALOGUES = "ComperDial_data.json"
ANNOTATED = "ComperDial_dialogue_data.json"
TURN_EVAL = "ComperDial_turn_level_evaluation.json"
DIALOGUE_EVAL = "ComperDial_dialogue_level_evaluation.json"

TURN_FIELDS = ("dialogue_id", "model", "turn_index", "response", "scores")
DIALOGUE_FIELDS = ("dialogue_id", "model", "flows", "scores")
FLOW_FIELDS = ("context", "response")
BASE_FIELDS = ("dialogue_id", "persona", "dialogue")
UTTERANCE_FIELDS = ("persona_id", "text")

CITATION = """@misc{wakaki2024comperdial,
    title = {{ComperDial}: Commonsense Persona-grounded Dialogue Dataset and Benchmark},
    author = {Hiromi Wakaki and Yuki Mitsufuji and Yoshinori Maeda and Yukiko Nishimura and Silin Gao and Mengjie Zhao and Keiichi Yamada and Antoine Bosselut},
    year = {2024},
    eprint = {2406.11228},
    archivePrefix = {arXiv},
    primaryClass = {cs.CL},
    url = {https://arxiv.org/abs/2406.11228}
}"""

OVERALL = Aspect(
    "overall",
    "scores",
    1,
    5,
    "Human rating of the response (turn level) or of the whole dialogue (dialogue level) on the "
    "1-5 scale of the CPD challenge human evaluation (assumed: the evaluation files were not seen).",
)


def _hub_source(filename: str) -> SourceFile:
    return SourceFile(
        path=f"{NAME}/{filename}",
        sha256=None,
        hub=HubFile(repo_id=REPO_ID, filename=filename, revision=REVISION),
    )


def _checked(raw: Any, file: Path, where: str | int, fields: Sequence[str], what: str) -> Record:
    """A record that has every expected field, else an error that names them all."""
    record = Record(raw, file, where)
    missing = [f for f in fields if f not in record.data]
    if missing:
        present = ", ".join(sorted(map(str, record.data))) or "none"
        raise record.error(
            f"{what} record lacks {', '.join(missing)}. Expected fields: {', '.join(fields)} "
            f"({_layout(Path(file).name)} of {Path(file).name}); fields present: {present}",
            field=missing[0],
        )
    return record


def _layout(name: str) -> str:
    """Whether the layout of a published file was seen or is assumed."""
    return "layout" if name == DIALOGUES else "assumed layout"


def _array(files: SourceFiles, key: str) -> list[Any]:
    data = files.json(key)
    if not isinstance(data, list):
        raise Record({}, files.path(key), "top level").error(
            f"expected a JSON array of records, found {type(data).__name__}"
        )
    return data


def _int(record: Record, name: str) -> int:
    value = record.get(name, int)
    if isinstance(value, bool):
        raise record.error("expected int, found bool", field=name)
    return value


def _utterances(record: Record, name: str) -> list[Utterance]:
    raw = record.get(name, list)
    out = []
    for index, item in enumerate(raw):
        utt = _checked(item, record.file, f"{record.where}.{name}[{index}]", UTTERANCE_FIELDS, name)
        out.append(Utterance(utt.text("persona_id"), utt.text("text").strip()))
    return out


def _null(value: Any) -> bool:
    """A missing rating is written as null."""
    return value is None


def _ratings(record: Record, skipped: Counter[str]) -> list[Rating]:
    ratings = []
    for value in record.get(OVERALL.label, list):
        rating = record.rating(OVERALL, value, unusable=_null)
        if rating is None:
            skipped["rating missing (null)"] += 1
        else:
            ratings.append(Rating(OVERALL.name, rating))
    return ratings


class _Base:
    """A base dialogue of `ComperDial_data.json`: its utterances and each speaker's persona."""

    def __init__(self, record: Record) -> None:
        self.turns = _utterances(record, "dialogue")
        personas = record.get("persona", Mapping)
        self.persona: dict[str, list[str]] = {}
        for speaker, lines in personas.items():
            if not isinstance(lines, list) or not all(isinstance(x, str) for x in lines):
                raise record.error(f"persona {speaker!r} is not a list of strings", "persona")
            self.persona[str(speaker)] = [x.strip() for x in lines if x.strip()]


def _bases(files: SourceFiles, name: str) -> dict[int, tuple[_Base, Record]]:
    """The base dialogues of one file, by id, each with its record."""
    path = files.path(f"{NAME}/{name}")
    bases: dict[int, tuple[_Base, Record]] = {}
    for index, raw in enumerate(_array(files, f"{NAME}/{name}")):
        record = _checked(raw, path, index, BASE_FIELDS, "dialogue")
        dialogue_id = _int(record, "dialogue_id")
        if dialogue_id in bases:
            raise record.error(f"dialogue_id {dialogue_id} appears twice", "dialogue_id")
        bases[dialogue_id] = (_Base(record), record)
    return bases


def annotated_bases(files: SourceFiles) -> dict[int, _Base]:
    """The base dialogues of the annotated sets (`ComperDial_dialogue_data.json`), each checked
    to be the dialogue of the same id in `ComperDial_data.json`."""
    every = _bases(files, DIALOGUES)
    annotated = {}
    for dialogue_id, (base, record) in _bases(files, ANNOTATED).items():
        if dialogue_id not in every:
            raise record.error(
                f"dialogue_id {dialogue_id} is not a dialogue of {DIALOGUES}", "dialogue_id"
            )
        known = every[dialogue_id][0]
        if (base.turns, base.persona) != (known.turns, known.persona):
            raise record.error(
                f"dialogue {dialogue_id} differs from the dialogue of that id in {DIALOGUES}",
                "dialogue",
            )
        annotated[dialogue_id] = base
    return annotated


def _base_of(record: Record, bases: Mapping[int, _Base]) -> tuple[int, _Base]:
    dialogue_id = _int(record, "dialogue_id")
    if dialogue_id not in bases:
        raise record.error(
            f"dialogue_id {dialogue_id} is not an annotated dialogue of {ANNOTATED}",
            "dialogue_id",
        )
    return dialogue_id, bases[dialogue_id]


def parse_turns(files: SourceFiles) -> Parsed:
    parsed = Parsed()
    bases = annotated_bases(files)
    path = files.path(f"{NAME}/{TURN_EVAL}")
    for index, raw in enumerate(_array(files, f"{NAME}/{TURN_EVAL}")):
        record = _checked(raw, path, index, TURN_FIELDS, "turn evaluation")
        dialogue_id, base = _base_of(record, bases)
        turn = _int(record, "turn_index")
        if not 0 < turn < len(base.turns):
            raise record.error(
                f"turn_index {turn} is outside 1..{len(base.turns) - 1} "
                f"(dialogue {dialogue_id} has {len(base.turns)} utterances)",
                "turn_index",
            )
        speaker = base.turns[turn].speaker
        if speaker not in base.persona:
            raise record.error(
                f"speaker {speaker!r} of turn {turn} has no persona in dialogue {dialogue_id}",
                "turn_index",
            )
        system = record.text("model")
        parsed.turns.append(
            TurnRecord(
                item_id=item_id(NAME, str(dialogue_id), turn, slug(system)),
                dialogue_id=str(dialogue_id),
                system=system,
                context=base.turns[:turn],
                response=record.text("response").strip(),
                ratings=_ratings(record, parsed.skipped),
                references=[base.turns[turn].text],
                grounding=base.persona[speaker],
                turn_index=turn,
            )
        )
    return parsed


def flow_turns(record: Record, base: _Base, dialogue_id: int) -> list[Utterance]:
    """The conversation of a dialogue-level record: the base dialogue with each flow's response
    in place of the utterance after the flow's context, up to the last flow."""
    turns: list[Utterance] = []
    for index, raw in enumerate(record.get("flows", list)):
        where = f"{record.where}.flows[{index}]"
        flow = _checked(raw, record.file, where, FLOW_FIELDS, "flow")
        context = _utterances(flow, "context")
        at = len(context)
        if not len(turns) <= at < len(base.turns) or context != base.turns[:at]:
            raise flow.error(
                f"context is not a prefix of base dialogue {dialogue_id} longer than the "
                f"previous flow's and shorter than the dialogue ({len(base.turns)} utterances)",
                "context",
            )
        turns += base.turns[len(turns) : at]
        turns.append(Utterance(base.turns[at].speaker, flow.text("response").strip()))
    return turns


def parse_dialogues(files: SourceFiles) -> Parsed:
    parsed = Parsed()
    bases = annotated_bases(files)
    path = files.path(f"{NAME}/{DIALOGUE_EVAL}")
    for index, raw in enumerate(_array(files, f"{NAME}/{DIALOGUE_EVAL}")):
        record = _checked(raw, path, index, DIALOGUE_FIELDS, "dialogue evaluation")
        dialogue_id, base = _base_of(record, bases)
        system = record.text("model")
        parsed.dialogues.append(
            DialogueRecord(
                item_id=item_id(NAME, str(dialogue_id), slug(system)),
                dialogue_id=str(dialogue_id),
                system=system,
                turns=flow_turns(record, base, dialogue_id),
                ratings=_ratings(record, parsed.skipped),
            )
        )
    return parsed


class ComperDial(BenchmarkLoader):
    metadata = BenchmarkMetadata(
        name=NAME,
        pretty_name="ComperDial",
        version="1.0.0",
        description=(
            "ComperDial: responses of 97 Commonsense Persona-grounded Dialogue challenge agents and "
            "2 humans on 15 persona-grounded base dialogues, scored by people at turn level "
            "(10,395 responses, static single-turn evaluation) and dialogue level (1,485 "
            "conversations). Grounding holds the persona lines of the responding speaker; the "
            "reference is the base dialogue's original utterance at that turn."
        ),
        homepage="https://huggingface.co/datasets/Sony/ComperDial",
        license="CC-BY-NC-SA-4.0",
        license_id="cc-by-nc-sa-4.0",
        citation=CITATION,
        sources=tuple(_hub_source(f) for f in (DIALOGUES, ANNOTATED, TURN_EVAL, DIALOGUE_EVAL)),
        levels=("turn", "dialogue", "system"),
        aspects=(OVERALL,),
        default_aspect="overall",
        has_references=True,
        has_grounding=True,
        annotator_ids=False,
        published_counts=PublishedCounts(
            source=(
                "the Sony/ComperDial dataset card (15 base dialogues; 97 challenge agents and "
                "2 human subjects)"
            ),
            splits=(
                SplitCounts("turn", "test", 10395, 15, 99, None),
                SplitCounts("dialogue", "test", 1485, 15, 99, None),
            ),
        ),
        notes=(
            "All four published files are read. Their names and sizes at the pinned revision are "
            "known from the Hub listing; the layout of ComperDial_data.json was seen, those of "
            "ComperDial_dialogue_data.json, ComperDial_turn_level_evaluation.json and "
            "ComperDial_dialogue_level_evaluation.json were not: they are assumed (the dialogue-"
            "level file as the paper's seven dialogue flows per conversation, Appendix A.7.2, "
            "which its 14 kB a record supports; see the module docstring of "
            "comperbench.loaders.hub.comperdial), and a file that does not match fails with the "
            "expected fields named.",
            "1.0.0 (major): the loader reads ComperDial_dialogue_data.json, and the dialogue-level "
            "file as seven dialogue flows per conversation; 0.1.0 assumed one whole dialogue per "
            "record, a layout the published file's size rules out.",
            "ComperDial_dialogue_data.json is taken for the 15 annotated base dialogues; each must "
            "equal the dialogue of the same id in ComperDial_data.json, and every evaluation "
            "record must refer to one of them.",
            "The aspect is assumed to be the single 1-5 human score of the CPD challenge evaluation "
            "(the paper reports one human score per response and per dialogue).",
            "Files are addressed by the pinned Hub revision c4884b9c81f3eedd9e93790e454009f87204d1fe; "
            "their sha256 was never seen, so the revision is their identity.",
        ),
    )

    def parse(self, files: SourceFiles, level: str) -> Parsed:
        return parse_dialogues(files) if level == "dialogue" else parse_turns(files)
