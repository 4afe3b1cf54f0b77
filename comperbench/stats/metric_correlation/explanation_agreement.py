"""Moved to `comperbench.evaluation.explanation_agreement` (it scores explanations with the
package's metrics, which the statistics do not import); the old path keeps working for one
release with a DeprecationWarning."""

from comperbench.common.deprecation import moved_names

_HOME = "comperbench.evaluation.explanation_agreement"

__getattr__ = moved_names(
    __name__,
    dict.fromkeys(
        [
            "BLEU_SETTINGS",
            "ExplanationAgreement",
            "bleu4",
            "explanation_agreement",
            "paired",
            "semantic_score",
        ],
        _HOME,
    ),
)
