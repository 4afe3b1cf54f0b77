"""Every registry metric as an HF evaluate module (Hugging Face's library) defined in the package.

    from comperbench.metrics.hf_modules import load
    bleu = load("bleu-4")
    bleu.compute(predictions=["a cat"], references=["the cat"])
    # {"bleu-4": 0.37..., "scores": [0.37...], "nan_scores": 0, "scale": "0-1"}

A module is named after its metric (`bleu.name == "bleu-4"`, so `evaluate.combine` prefixes
clashing keys with the metric's name). Item metrics return the mean of the item scores that are
not NaN, every item score, and the NaN count; corpus metrics (corpus-bleu, distinct-n) return
their one corpus value. Metrics that declare a scale (BLEU, chrF: 0-1, where sacrebleu reports
0-100) state it in the description and in the output's `scale`; a module's description,
citation and homepage are its metric's `MetricInfo`. Inputs are `predictions`
(strings), `references` when the metric needs references (one string per prediction, or a list
of strings per prediction), and `contexts` (the previous turns' texts per prediction) when it
needs a context. `evaluate` is imported only when a module is built (it takes seconds to import).
"""

from __future__ import annotations

import math
import re
from functools import cache
from typing import Any

from comperbench.metrics.base import Metric, TurnItem
from comperbench.metrics.registry import get, info
from comperbench.schema import Utterance


def _safe_name(name: str) -> str:
    """The metric name with characters unsafe in a file path replaced (`bleu-4` stays)."""
    return re.sub(r"[^A-Za-z0-9._+-]+", "_", name)


def _description(metric: Metric) -> str:
    text = info(metric.spelling or metric.name).description
    scale = metric.config().get("scale")
    if scale:
        text += f"\n\nScores are on a {scale} scale (output key `scale`)."
    return text


def _features(metric: Metric) -> Any:
    """The input features; with references, one option per reference layout (flat or nested)."""
    import datasets

    base = {"predictions": datasets.Value("string")}
    if "context" in metric.needs:
        base["contexts"] = datasets.Sequence(datasets.Value("string"))
    if "references" not in metric.needs:
        return datasets.Features(base)
    return [
        datasets.Features({**base, "references": datasets.Sequence(datasets.Value("string"))}),
        datasets.Features({**base, "references": datasets.Value("string")}),
    ]


def _references(value: str | list[str]) -> tuple[str, ...]:
    return (value,) if isinstance(value, str) else tuple(value)


@cache
def _module_class() -> type:
    import evaluate

    class ComperbenchMetric(evaluate.Metric):
        """An `evaluate.Metric` that computes one comperbench registry metric."""

        def __init__(self, metric: Metric, **kwargs: Any) -> None:
            self.metric = metric
            kwargs.setdefault("keep_in_memory", True)
            kwargs.setdefault("config_name", _safe_name(metric.name))
            super().__init__(**kwargs)
            # `evaluate` names a module after its class; this one is its metric.
            self._module_info.module_name = _safe_name(metric.name)
            self.data_dir = self._build_data_dir()

        def _info(self) -> evaluate.MetricInfo:
            return evaluate.MetricInfo(
                description=_description(self.metric),
                citation=info(self.metric.spelling or self.metric.name).citation,
                features=_features(self.metric),
                inputs_description=(
                    "predictions: list of str; references (when needed): list of str, one per "
                    "prediction, or list of list of str; contexts (when needed): list of list "
                    "of str, the previous turns"
                ),
                homepage=info(self.metric.spelling or self.metric.name).link,
            )

        def _compute(
            self,
            predictions: list[str],
            references: list[str] | list[list[str]] | None = None,
            contexts: list[list[str]] | None = None,
        ) -> dict[str, Any]:
            items = [
                TurnItem(
                    item_id=str(k),
                    response=prediction,
                    references=_references(references[k]) if references is not None else (),
                    context=tuple(
                        Utterance("A" if (len(contexts[k]) - j) % 2 else "B", text)
                        for j, text in enumerate(contexts[k])
                    )
                    if contexts is not None
                    else (),
                )
                for k, prediction in enumerate(predictions)
            ]
            scale = self.metric.config().get("scale")
            stated = {"scale": scale} if scale else {}
            if self.metric.corpus:
                return {self.metric.name: self.metric.score_corpus(items), **stated}
            scores = [float(s) for s in self.metric.score(items)]
            valid = [s for s in scores if not math.isnan(s)]
            return {
                self.metric.name: math.fsum(valid) / len(valid) if valid else math.nan,
                "scores": scores,
                "nan_scores": len(scores) - len(valid),
                **stated,
            }

    return ComperbenchMetric


def load(name: str, **kwargs: Any) -> Any:
    """The registry metric `name` as an HF evaluate module (an `evaluate.Metric`).

    Args:
        name: a metric name, e.g. "bleu-4", "bertscore-f1[/my/model:L9]".
        **kwargs: passed to `evaluate.Metric` (in memory by default).

    Returns:
        The module, named after the metric.
    """
    return _module_class()(get(name), **kwargs)
