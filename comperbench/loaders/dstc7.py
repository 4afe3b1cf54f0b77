"""DSTC7 Task 2 human evaluation: grounded Reddit responses (Galley et al., 2019)."""

from __future__ import annotations

import os
import re
import tarfile
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING

from comperbench import data
from comperbench.common.errors import DataFormatError
from comperbench.common.textutil import slug
from comperbench.loaders.base import (
    BenchmarkLoader,
    Parsed,
    Record,
    SourceFiles,
    item_id,
)
from comperbench.metadata import Aspect, BenchmarkMetadata, github_source
from comperbench.schema import Rating, TurnRecord

if TYPE_CHECKING:
    import pandas as pd

DSTC7_CITATION = """@inproceedings{galley-etal-2019-grounded,
    title = "Grounded Response Generation Task at {DSTC7}",
    author = "Galley, Michel and Brockett, Chris and Gao, Xiang and Gao, Jianfeng and Dolan, Bill",
    booktitle = "AAAI Dialog System Technology Challenges Workshop (DSTC7)",
    year = "2019",
    url = "http://workshop.colips.org/dstc7/papers/DSTC7_Task_2_overview_paper.pdf"
}"""

DSTC7_REPO, DSTC7_COMMIT = (
    "mgalley/DSTC7-End-to-End-Conversation-Modeling",
    "e2b50e535e10fc07c55946c20571ced972c6c059",
)
ARCHIVE = "dstc7_task2/dstc7-task2-human_eval.tgz"
SCORES_XLSX = "dstc7_task2/dstc7-task2-scores.xlsx"
FOLDER = "dstc7-task2-human_eval"
CONTEXTS = f"{FOLDER}/dstc7-task2-context.tsv"
RESPONSES = f"{FOLDER}/dstc7-task2-system_responses.tsv"
GOLD = f"{FOLDER}/dstc7-task2-gold_responses.tsv"
JUDGMENTS = f"{FOLDER}/dstc7-task2-human-eval-per-judge.tsv"

HUMAN = "Human"
OWN_REFERENCE = "reference equal to the rated Human response (removed from that item only)"
MERGED_SYSTEMS = {"TeamEC": "TeamCE"}
"""Team E's primary system was identical to Team C's; the organisers rated it twice and combined
the ratings under TeamCE (footnote of the published results). The per-judge file keeps the
second batch under the label TeamEC."""

RELEVANCE = Aspect(
    "relevance", "Relevance", 1, 5, "Agreement that the response is relevant and appropriate."
)
INFORMATIVENESS = Aspect(
    "informativeness",
    "Informativeness",
    1,
    5,
    "Agreement that the response is interesting and informative.",
)
OVERALL = Aspect(
    "overall",
    "Overall",
    1,
    5,
    "Derived: each judge's mean of relevance and informativeness (the official ranking score).",
)
PUBLISHED_TEAMS = {
    "Baseline S2S": "Baseline",
    "Constant": "Constant",
    "Random": "Random",
    "Human": "Human",
    "Team A": "TeamA",
    "Team B": "TeamB",
    "Team C/E*": "TeamCE",
    "Team D": "TeamD",
    "Team F": "TeamF",
    "Team G": "TeamG",
}
PUBLISHED_ASPECTS = {"Relevance": "relevance", "Interest": "informativeness", "Overall": "overall"}
_CI = re.compile(r"^\(\s*([0-9.]+),\s*([0-9.]+)\s*\)$")
_NOT_ALNUM = bytes(sorted(set(range(256)) - set(b"0123456789abcdefghijklmnopqrstuvwxyz")))


class _Tsv:
    """The rows of one TSV member of the archive (no quoting), with errors naming member and line."""

    def __init__(self, archive: Path, member: str, text: str, header: tuple[str, ...]) -> None:
        self.where = f"{archive}[{member}]"
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        found = tuple(lines[0].split("\t")) if lines else ()
        if found[: len(header)] != header:
            raise DataFormatError(
                f"header {found} does not start with {header}", file=self.where, line=1
            )
        self.lines = lines

    def rows(self, width: int | None) -> list[tuple[int, list[str]]]:
        """(line number, fields) of every data row; `width` None allows any number >= 2."""
        out = []
        for number, line in enumerate(self.lines[1:], start=2):
            fields = line.split("\t")
            if (width is not None and len(fields) != width) or len(fields) < 2:
                expected = width if width is not None else "at least 2"
                raise DataFormatError(
                    f"expected {expected} TAB-separated fields, found {len(fields)}",
                    file=self.where,
                    line=number,
                )
            out.append((number, fields))
        return out

    def error(self, message: str, line: int, field: str | None = None) -> DataFormatError:
        return self.record(line).error(message, field)

    def record(self, line: int) -> Record:
        """A handle on `line` for located errors (the rows of a TSV member are not objects)."""
        return Record({}, self.where, None, line)


def _read_members(archive: Path) -> dict[str, _Tsv]:
    headers = {
        CONTEXTS: ("InstanceID", "Depth", "Context"),
        RESPONSES: ("SystemID", "InstanceID", "Response"),
        GOLD: ("InstanceID", "Reference1"),
        JUDGMENTS: ("JudgeID", "InstanceID", "SystemID", "Relevance", "Informativeness"),
    }
    tables = {}
    try:
        with tarfile.open(archive, "r:gz") as tar:
            for member, header in headers.items():
                handle = tar.extractfile(member)
                if handle is None:
                    raise DataFormatError(
                        f"member {member} is not a regular file", file=str(archive)
                    )
                raw = handle.read()
                try:
                    text = raw.decode("utf-8-sig")
                except UnicodeDecodeError as exc:
                    raise DataFormatError(
                        f"not valid UTF-8 at byte {exc.start}", file=f"{archive}[{member}]"
                    ) from exc
                tables[member] = _Tsv(archive, member, text, header)
    except KeyError as exc:
        raise DataFormatError(
            f"the archive has no member {exc.args[0]}", file=str(archive)
        ) from exc
    except (tarfile.TarError, EOFError, OSError) as exc:
        raise DataFormatError(f"not a readable .tgz archive ({exc})", file=str(archive)) from exc
    return tables


def _comparable(text: str) -> bytes:
    """`text` lower-cased, reduced to ASCII letters and digits (punctuation-only text: without
    spaces). The Human responses are detokenised, lower-cased copies of references; deleting bytes
    is ~10x faster than a regex here."""
    lowered = text.lower()
    return lowered.encode().translate(None, _NOT_ALNUM) or "".join(lowered.split()).encode()


class Dstc7(BenchmarkLoader):
    metadata = BenchmarkMetadata(
        name="dstc7",
        pretty_name="DSTC7 Task 2 human evaluation",
        version="1.0.0",
        description=(
            "Human evaluation of the DSTC7 grounded response generation task (Reddit): 1,000 "
            "test instances, each with a focal snippet of the web document the thread is about "
            "and the responses of 10 systems (6 team systems, a seq2seq baseline, constant and "
            "random baselines, and a held-out human reply), rated by three crowd judges each "
            "(six for TeamCE) on relevance and informativeness (1-5); multiple Reddit references "
            "per instance."
        ),
        homepage=f"https://github.com/{DSTC7_REPO}",
        license="O-UDA-1.0 (Open Use of Data Agreement v1.0)",
        license_id="o-uda-1.0",
        citation=DSTC7_CITATION,
        sources=(
            github_source(
                ARCHIVE,
                "ae78081cdb426d5de0d49d09776f346ce924f66d7f56249a58d6887e2b94cb4f",
                DSTC7_REPO,
                DSTC7_COMMIT,
                "evaluation/dstc7-task2-human_eval.tgz",
            ),
            github_source(
                SCORES_XLSX,
                "2f36de4458c57484a1b88e1a281482b2e53f8a20d2fffc36d029357e213c958b",
                DSTC7_REPO,
                DSTC7_COMMIT,
                "evaluation/old/dstc7-task2-scores.xlsx",
            ),
        ),
        levels=("turn", "system"),
        aspects=(RELEVANCE, INFORMATIVENESS, OVERALL),
        default_aspect="overall",
        has_references=True,
        has_grounding=True,
        annotator_ids=True,
        notes=(
            "The release's Context column holds only the grounding: the focal snippet of the web "
            "document the Reddit thread discusses (400 snippets end in '[...]', cut by the "
            "organisers). The conversation turns that preceded the response are not released, so "
            "`context` is empty, `grounding` holds the snippet, and turn_index is the release's "
            "Depth column (2-7).",
            "overall is derived, not rated: every judge's (relevance + informativeness) / 2, so "
            "that its item mean is the official per-instance score of "
            "dstc7-task2-human_evaluation.tsv and its system mean the published Overall.",
            "The per-judge file has an 11th SystemID, TeamEC, with no responses: 3,000 ratings "
            "(1,000 instances x 3 judges). The published results state that the primary systems "
            "of Teams C and E were identical and their ratings combined; the official "
            "per-instance scores of TeamCE are the mean over both batches. The loader therefore "
            "counts TeamEC ratings as TeamCE ratings: TeamCE items have 6 judges, others 3.",
            "References are the Reddit replies of the gold file (tokenised, cased), while system "
            "responses are lower-cased and detokenised; 46 instances have no reference (an empty "
            "Reference1 field, counted in `skipped`).",
            "The rated Human response is a held-out reference: in 893 instances it equals one of "
            "the gold references up to case, spacing and punctuation. Those copies are removed "
            "from the Human item's own references (909 strings, counted in `skipped`) so that its "
            "reference-based scores are not trivially perfect; other systems keep every "
            "reference. Near copies (e.g. with a 'TIL' prefix or Markdown escapes) are kept.",
            "Published system-level scores with bootstrap 95% confidence intervals (the "
            "'human evaluation' sheet of dstc7-task2-scores.xlsx) are available from "
            "`Dstc7.published_system_scores()`.",
        ),
    )

    def parse(self, files: SourceFiles, level: str) -> Parsed:
        parsed = Parsed()
        archive = files.path(ARCHIVE)
        tables = _read_members(archive)

        snippets: dict[str, tuple[int, str]] = {}
        contexts = tables[CONTEXTS]
        for line, (instance, depth, snippet) in contexts.rows(3):
            if not (depth.isascii() and depth.isdigit()):
                raise contexts.error(f"depth {depth!r} is not an integer", line, "Depth")
            if instance in snippets:
                raise contexts.error(f"instance {instance} listed twice", line, "InstanceID")
            snippets[instance] = (int(depth), snippet.strip())

        gold = tables[GOLD]
        references: dict[str, list[str]] = {}
        for line, (instance, *texts) in gold.rows(None):
            if instance not in snippets:
                raise gold.error(f"instance {instance} has no context", line, "InstanceID")
            kept = [t.strip() for t in texts if t.strip()]
            if len(kept) < len(texts):
                parsed.skipped["empty reference field"] += len(texts) - len(kept)
            references[instance] = kept

        responses: dict[tuple[str, str], str] = {}
        answers = tables[RESPONSES]
        for line, (system, instance, response) in answers.rows(3):
            if instance not in snippets:
                raise answers.error(f"instance {instance} has no context", line, "InstanceID")
            if (system, instance) in responses:
                raise answers.error(f"second response of {system} to {instance}", line)
            if not response.strip():
                raise answers.error("empty response", line, "Response")
            responses[system, instance] = response.strip()

        ratings: dict[tuple[str, str], list[Rating]] = defaultdict(list)
        judged: dict[tuple[str, str, str], tuple[Rating, Rating, Rating]] = {}
        judgments = tables[JUDGMENTS]
        for line, (judge, instance, label, relevance, informativeness) in judgments.rows(5):
            system = MERGED_SYSTEMS.get(label, label)
            if (system, instance) not in responses:
                raise judgments.error(f"{label} has no response to instance {instance}", line)
            # a judge gives few distinct pairs: sharing the frozen records saves ~90k objects
            triple = judged.get((judge, relevance, informativeness))
            if triple is None:
                rec = judgments.record(line)
                rel = rec.rating(RELEVANCE, relevance, text=True, integer=True)
                inf = rec.rating(INFORMATIVENESS, informativeness, text=True, integer=True)
                triple = judged[judge, relevance, informativeness] = (
                    Rating(RELEVANCE.name, rel, judge),
                    Rating(INFORMATIVENESS.name, inf, judge),
                    Rating(OVERALL.name, (rel + inf) / 2, judge),
                )
            ratings[system, instance].extend(triple)

        for (system, instance), response in responses.items():
            depth, snippet = snippets[instance]
            refs = references.get(instance, [])
            if system == HUMAN:
                key = _comparable(response)
                own = [r for r in refs if _comparable(r) != key]
                if len(own) < len(refs):
                    parsed.skipped[OWN_REFERENCE] += len(refs) - len(own)
                refs = own
            parsed.turns.append(
                TurnRecord(
                    item_id=item_id(self.metadata.name, instance, slug(system)),
                    dialogue_id=instance,
                    system=system,
                    context=[],
                    response=response,
                    ratings=ratings.get((system, instance), []),
                    references=refs,
                    grounding=[snippet] if snippet else [],
                    turn_index=depth,
                )
            )
        return parsed

    @classmethod
    def published_system_scores(
        cls, data_dir: str | os.PathLike[str] | None = None
    ) -> pd.DataFrame:
        """The organisers' system-level means and 95% bootstrap intervals, indexed by SystemID.

        Columns: `<aspect>`, `<aspect>_ci_low`, `<aspect>_ci_high` for relevance, informativeness
        (the sheet's "Interest") and overall.
        """
        import openpyxl
        import pandas as pd

        source = next(s for s in cls.metadata.sources if s.path == SCORES_XLSX)
        path = data.resolve(cls.metadata, source, data.data_root(data_dir))
        book = openpyxl.load_workbook(path, read_only=True, data_only=True)
        try:
            rows = list(book["human evaluation"].iter_rows(values_only=True))
        finally:
            book.close()
        where = f"{path}[human evaluation]"
        heads = [h for h in rows[0][1:] if h is not None]
        if heads != list(PUBLISHED_ASPECTS):
            raise DataFormatError(
                f"aspect headers {heads}, expected {list(PUBLISHED_ASPECTS)}", file=where, line=1
            )
        table: dict[str, dict[str, float]] = {}
        for number, row in enumerate(rows[2:], start=3):
            label = row[0]
            if label == "Notes:":
                break
            if all(cell is None for cell in row):
                continue
            if label not in PUBLISHED_TEAMS:
                raise DataFormatError(f"unknown team {label!r}", file=where, line=number)
            values: dict[str, float] = {}
            for position, aspect in enumerate(PUBLISHED_ASPECTS.values()):
                mean, interval = row[1 + 2 * position], row[2 + 2 * position]
                match = _CI.match(str(interval).strip())
                if not isinstance(mean, float | int) or match is None:
                    raise DataFormatError(
                        f"expected a mean and a '( low, high )' interval, found {mean!r}, {interval!r}",
                        file=where,
                        line=number,
                        field=aspect,
                    )
                values[aspect] = float(mean)
                values[f"{aspect}_ci_low"] = float(match.group(1))
                values[f"{aspect}_ci_high"] = float(match.group(2))
            table[PUBLISHED_TEAMS[label]] = values
        missing = sorted(set(PUBLISHED_TEAMS.values()) - set(table))
        if missing:
            raise DataFormatError(f"no published scores for {', '.join(missing)}", file=where)
        frame = pd.DataFrame.from_dict(table, orient="index").sort_index()
        frame.index.name = "system"
        return frame
