"""BLEU, METEOR and ROUGE-L computed as the dialogue-metric papers of 2020-2021 computed them.

- `nltk-bleu-1`..`nltk-bleu-4`: NLTK `sentence_bleu`, cumulative uniform weights, no smoothing,
  whitespace tokens, case kept (the sentence BLEU that USR/GRADE-era papers report).
- `coco-bleu-1`..`coco-bleu-4`, `coco-meteor`, `coco-rouge-l`: the scorers of `pycocoevalcap` as
  nlg-eval 2.3 runs them one item at a time (`compute_individual_metrics`, used by DialEvalMetrics'
  `baseline_metric.py`; USR's METEOR is nlg-eval's): its BLEU with its 1e-15 floor for zero
  counts, the METEOR 1.5 jar (`-l en -norm`), and ROUGE-L F with beta 1.2 on tokens split at
  spaces.

Every non-blank reference of an item is used; an item without one scores NaN, and so does an item
whose response (or every reference) is in a script written without spaces, which these
whitespace tokenizers cannot segment.
"""

from __future__ import annotations

import math
import shutil
import subprocess
import warnings
import weakref
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import IO, Any

from comperbench.common.errors import ComperbenchError
from comperbench.common.version import distribution_version
from comperbench.metrics.about import citations
from comperbench.metrics.about.info import MetricInfo
from comperbench.metrics.base import Item, Metric, check_turn_items, nonblank_references
from comperbench.metrics.lexical.common.reference import ReferenceMetric, unreadable_item
from comperbench.metrics.lexical.scripts import has_unsegmented
from comperbench.metrics.registry import register_plain_metric

ORDERS = (1, 2, 3, 4)
WEIGHTS = tuple(tuple(1 / n for _ in range(n)) for n in ORDERS)
"""Cumulative uniform weights of BLEU-1..4: (1,), (1/2, 1/2), (1/3, 1/3, 1/3), (1/4, ...)."""


@lru_cache(maxsize=1 << 16)
def nltk_bleu_all(response: str, references: tuple[str, ...]) -> tuple[float, ...]:
    """NLTK sentence BLEU-1..4 without smoothing on whitespace tokens, in one nltk call.

    A zero n-gram count enters nltk's geometric mean as `sys.float_info.min` (with a warning,
    silenced here), so such a score is about 1e-77, not 0; no unigram match gives 0 exactly.
    """
    from nltk.translate.bleu_score import sentence_bleu

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        scores = sentence_bleu(
            [r.split() for r in references], response.split(), weights=list(WEIGHTS)
        )
    return tuple(float(s) for s in scores)


class _SpaceTokens(ReferenceMetric):
    """A metric on tokens split at spaces: text in a script written without spaces (Chinese,
    Japanese, Thai, ...) cannot be read that way, and its item scores NaN."""

    def unreadable(self, text: str) -> bool:
        return has_unsegmented(text)


class NltkBleu(_SpaceTokens):
    """Sentence BLEU-n by NLTK, no smoothing, whitespace tokens, case kept, every reference."""

    library = "nltk"
    implementation = 2  # one nltk call for the four orders; 2: unsegmented scripts NaN

    def __init__(self, order: int) -> None:
        self.order = order

    @property
    def name(self) -> str:
        return f"nltk-bleu-{self.order}"

    def config(self) -> dict[str, Any]:
        return {
            "implementation": "nltk.translate.bleu_score.sentence_bleu",
            "library": f"nltk=={distribution_version('nltk')}",
            "max_ngram_order": self.order,
            "weights": list(WEIGHTS[self.order - 1]),
            "smoothing": "none (method0, a zero n-gram count gives ~1e-77, no unigram match 0)",
            "tokenize": "str.split (whitespace)",
            "lowercase": False,
            "references": "all non-blank (clipped by the maximum count; closest length)",
            "scale": "0-1",
        }

    def score_one(self, response: str, references: list[str]) -> float:
        return nltk_bleu_all(response, tuple(references))[self.order - 1]


@lru_cache(maxsize=1 << 16)
def coco_bleu_all(response: str, references: tuple[str, ...]) -> tuple[float, ...]:
    """pycocoevalcap's BLEU-1..4 of one item, as nlg-eval's `compute_individual_metrics` gets
    them: stripped texts, a `BleuScorer` holding only this item, closest reference length."""
    from pycocoevalcap.bleu.bleu_scorer import BleuScorer

    scorer = BleuScorer(test=response.strip(), refs=[r.strip() for r in references], n=4)
    scores, _ = scorer.compute_score(option="closest", verbose=0)
    return tuple(float(s) for s in scores)


class _CocoMetric(_SpaceTokens):
    """A metric computed by one of pycocoevalcap's Python scorers."""

    library = "pycocoevalcap"
    implementation = 2  # pycocoevalcap's scorer per item; 2: unsegmented scripts NaN


class CocoBleu(_CocoMetric):
    """Sentence BLEU-n by pycocoevalcap (nlg-eval), whitespace tokens, case kept."""

    def __init__(self, order: int) -> None:
        self.order = order

    @property
    def name(self) -> str:
        return f"coco-bleu-{self.order}"

    def config(self) -> dict[str, Any]:
        return {
            "implementation": "pycocoevalcap BleuScorer, one item per scorer (nlg-eval)",
            "library": f"pycocoevalcap=={distribution_version('pycocoevalcap')}",
            "max_ngram_order": self.order,
            "weights": list(WEIGHTS[self.order - 1]),
            "smoothing": "none; each precision is (matches + 1e-15) / (n-grams + 1e-9)",
            "tokenize": "str.split (whitespace), texts stripped",
            "lowercase": False,
            "reference_length": "closest (the shorter on a tie)",
            "references": "all non-blank",
            "scale": "0-1",
        }

    def score_one(self, response: str, references: list[str]) -> float:
        return coco_bleu_all(response, tuple(references))[self.order - 1]


class CocoRougeL(_CocoMetric):
    """ROUGE-L F (beta 1.2) by pycocoevalcap (nlg-eval): tokens split at single spaces, no
    stemming, case kept; precision and recall are each the best over the references."""

    name = "coco-rouge-l"  # type: ignore[assignment]

    def config(self) -> dict[str, Any]:
        return {
            "implementation": "pycocoevalcap Rouge.calc_score (nlg-eval ROUGE_L)",
            "library": f"pycocoevalcap=={distribution_version('pycocoevalcap')}",
            "beta": 1.2,
            "tokenize": 'str.split(" "), texts stripped',
            "lowercase": False,
            "stemming": False,
            "references": "all non-blank, max precision and max recall, then F",
            "scale": "0-1",
        }

    def score_one(self, response: str, references: list[str]) -> float:
        from pycocoevalcap.rouge.rouge import Rouge

        return float(Rouge().calc_score([response.strip()], [r.strip() for r in references]))


METEOR_ARGS = ("-Xmx2G", "meteor-1.5.jar", "-", "-", "-stdio", "-l", "en", "-norm")
"""pycocoevalcap's (and nlg-eval's) command line after `java -jar`."""


def _one_line(text: str) -> str:
    """The text with line breaks as spaces: the jar reads one item per line."""
    return text.replace("\r", " ").replace("\n", " ")


class MeteorJar:
    """METEOR 1.5, the jar shipped by pycocoevalcap, in a Java process spoken to as pycocoevalcap's
    `Meteor.compute_score` does: a SCORE line per item, then one EVAL line for the batch."""

    def __init__(self) -> None:
        self._process: subprocess.Popen[bytes] | None = None

    def _started(self) -> subprocess.Popen[bytes]:
        if self._process is None or self._process.poll() is not None:
            java = shutil.which("java")
            if java is None:
                raise ComperbenchError(
                    "coco-meteor runs METEOR 1.5 in Java, and no `java` is on the PATH: install "
                    "one with `sudo apt-get install default-jre-headless` (or `make java` as root)"
                )
            import pycocoevalcap.meteor.meteor as wrapper

            self._process = subprocess.Popen(
                [java, "-jar", *METEOR_ARGS],
                cwd=Path(wrapper.__file__).parent,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
            weakref.finalize(self, self._process.kill)
        return self._process

    def scores(self, pairs: Sequence[tuple[str, Sequence[str]]]) -> list[float]:
        """The METEOR score of each (hypothesis, references) pair."""
        if not pairs:
            return []
        process = self._started()
        stdin, stdout = process.stdin, process.stdout
        assert stdin is not None and stdout is not None
        try:
            stats = []
            for hypothesis, references in pairs:
                hyp = _one_line(hypothesis.strip()).replace("|||", "").replace("  ", " ")
                refs = [_one_line(r.strip()) for r in references]
                stats.append(_ask(stdin, stdout, " ||| ".join(("SCORE", " ||| ".join(refs), hyp))))
            _send(stdin, " ||| ".join(("EVAL", *stats)))
            scores = [float(_answer(stdout)) for _ in pairs]
            _answer(stdout)  # the score of the whole batch
        except (OSError, ValueError) as error:
            raise _failure(process, error) from error
        return scores


def _failure(process: subprocess.Popen[bytes], error: Exception) -> ComperbenchError:
    """The error to raise when the jar stops answering, with the end of its stderr."""
    process.kill()
    stderr = process.stderr.read().decode(errors="replace")[-500:] if process.stderr else ""
    return ComperbenchError(f"METEOR 1.5 (java) failed: {error} {stderr}".strip())


def _send(stdin: IO[bytes], line: str) -> None:
    stdin.write(f"{line}\n".encode())
    stdin.flush()


def _answer(stdout: IO[bytes]) -> str:
    line = stdout.readline()
    if not line:
        raise ValueError("the METEOR process ended")
    return line.decode().strip()


def _ask(stdin: IO[bytes], stdout: IO[bytes], line: str) -> str:
    _send(stdin, line)
    return _answer(stdout)


class CocoMeteor(Metric):
    """METEOR 1.5 (Java) from pycocoevalcap's jar, as nlg-eval runs it: `-l en -norm` (lowercased,
    tokenized and punctuation-normalised by METEOR), exact, stem, synonym and paraphrase
    matches, best reference."""

    family = "ngram"
    needs = ReferenceMetric.needs
    name = "coco-meteor"  # type: ignore[assignment]
    implementation = 2  # batched SCORE/EVAL lines; 2: unsegmented scripts NaN

    def __init__(self) -> None:
        self._jar = MeteorJar()

    def library_version(self) -> str:
        return f"pycocoevalcap=={distribution_version('pycocoevalcap')};meteor-1.5.jar"

    def config(self) -> dict[str, Any]:
        return {
            "implementation": "METEOR 1.5 jar from pycocoevalcap, SCORE/EVAL lines (nlg-eval)",
            "library": f"pycocoevalcap=={distribution_version('pycocoevalcap')}",
            "command": " ".join(("java -jar", *METEOR_ARGS)),
            "language": "en",
            "normalize": "-norm (lowercase, tokenize, punctuation)",
            "lowercase": True,
            "modules": "METEOR 1.5 defaults for en (no -t, -m or -p)",
            "references": "all non-blank (METEOR keeps the best)",
            "line_breaks": "replaced by spaces",
            "scale": "0-1",
        }

    def unreadable_item(self, item: Item) -> bool:
        return unreadable_item(item, has_unsegmented)

    def score(self, items: Sequence[Item]) -> list[float]:
        pairs = [
            (t.response, () if self.unreadable_item(t) else nonblank_references(t))
            for t in check_turn_items(items, self.needs)
        ]
        scored = iter(self._jar.scores([(h, refs) for h, refs in pairs if refs]))
        return [next(scored) if refs else math.nan for _, refs in pairs]


def _register() -> None:
    for order in ORDERS:
        nltk = MetricInfo(
            name=f"nltk-bleu-{order}",
            description=(
                f"Sentence BLEU up to {order}-grams as nltk's `sentence_bleu` computes it "
                "without smoothing on whitespace tokens, case kept: the BLEU of many dialogue "
                "papers of 2018-2021 (a zero n-gram count gives about 1e-77, not 0)."
            ),
            family="ngram",
            needs=ReferenceMetric.needs,
            citation=citations.BLEU,
            link="https://www.nltk.org/api/nltk.translate.bleu_score.html",
            implementation=NltkBleu.implementation,
            library="nltk==3.10.4",
        )
        register_plain_metric(nltk.name, lambda order=order: NltkBleu(order), nltk)
        coco = MetricInfo(
            name=f"coco-bleu-{order}",
            description=(
                f"Sentence BLEU up to {order}-grams by pycocoevalcap's scorer, one item at a "
                "time as nlg-eval runs it (its 1e-15 floor for zero counts, whitespace tokens): "
                "the BLEU of the USR and GRADE papers' tables."
            ),
            family="ngram",
            needs=ReferenceMetric.needs,
            citation=citations.BLEU,
            link="https://github.com/salaniz/pycocoevalcap",
            implementation=CocoBleu.implementation,
            library="pycocoevalcap==1.2",
        )
        register_plain_metric(coco.name, lambda order=order: CocoBleu(order), coco)
    register_plain_metric(
        "coco-rouge-l",
        CocoRougeL,
        MetricInfo(
            name="coco-rouge-l",
            description=(
                "ROUGE-L F-measure (beta 1.2) of the longest common subsequence by "
                "pycocoevalcap's scorer as nlg-eval runs it: tokens split at spaces, no "
                "stemming, precision and recall each the best over the references."
            ),
            family="ngram",
            needs=ReferenceMetric.needs,
            citation=citations.ROUGE,
            link="https://github.com/salaniz/pycocoevalcap",
            implementation=CocoRougeL.implementation,
            library="pycocoevalcap==1.2",
        ),
    )
    register_plain_metric(
        "coco-meteor",
        CocoMeteor,
        MetricInfo(
            name="coco-meteor",
            description=(
                "METEOR 1.5 by the Java jar pycocoevalcap ships, run as nlg-eval runs it "
                "(`-l en -norm`: exact, stem, synonym and paraphrase matches, best reference); "
                "the METEOR of the USR paper. Needs `java`."
            ),
            family="ngram",
            needs=CocoMeteor.needs,
            citation=citations.METEOR_UNIVERSAL,
            link="https://github.com/salaniz/pycocoevalcap",
            implementation=CocoMeteor.implementation,
            library="pycocoevalcap==1.2",
        ),
    )


_register()
