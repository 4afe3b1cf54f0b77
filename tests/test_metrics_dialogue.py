"""Dialogue-level metrics on the system's turns: by hand on small dialogues, and the default suite
on the real dialogue-level benchmarks."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from comperbench.cli import main
from comperbench.metrics import DialogueItem, TurnItem, available, get
from comperbench.metrics.runner import (
    DIALOGUE_SUITE,
    SYSTEM_SUITE,
    TURN_SUITE,
    default_suite,
    resolve_metrics,
)
from comperbench.schema import Utterance

NAMES = ["dialogue-distinct-1", "dialogue-distinct-2", "dialogue-length"]
CHEAP = [get(name) for name in NAMES]


def dialogue(*turns: tuple[str, str], item_id: str = "d") -> DialogueItem:
    return DialogueItem(item_id, tuple(Utterance(s, t) for s, t in turns), system="bot")


# The user's words never count: only the turns spoken by "System".
TALK = dialogue(
    ("User", "Zebras zebras zebras!"),
    ("System", "The cat, the dog"),
    ("User", "Why?"),
    ("System", "the cat"),
)
SILENT = dialogue(("User", "hello?"), ("User", "anyone?"), item_id="silent")
PERSONAS = dialogue(("A", "hi there"), ("B", "hello you"), item_id="personas")


def test_registered_and_in_the_dialogue_default_suite() -> None:
    assert {*NAMES, "dialogue-coherence"} <= set(available())
    assert default_suite("dialogue") == DIALOGUE_SUITE
    assert default_suite("turn") == TURN_SUITE and default_suite("system") == SYSTEM_SUITE
    names = [m.name for m in resolve_metrics("default", "dialogue")]
    assert names == [*NAMES, "dialogue-coherence[all-MiniLM-L6-v2]"]
    assert {m.level for m in resolve_metrics("default", "dialogue")} == {"dialogue"}


def test_distinct_pools_the_system_turns() -> None:
    # 13a tokens: [the, cat, ",", the, dog] and [the, cat]
    # unigrams: 7, distinct {the, cat, ",", dog} = 4; bigrams: 4 + 1 = 5, distinct 4
    assert get("dialogue-distinct-1").score([TALK]) == [pytest.approx(4 / 7)]
    assert get("dialogue-distinct-2").score([TALK]) == [pytest.approx(4 / 5)]


def test_length_is_the_mean_over_system_turns() -> None:
    assert get("dialogue-length").score([TALK]) == [3.5]
    blank = dialogue(("User", "hi"), ("System", "  "), ("User", "?"), ("System", "ok ok"))
    assert get("dialogue-length").score([blank]) == [1.0]


def test_no_system_turn_scores_nan() -> None:
    empty = dialogue(item_id="empty")
    for metric in CHEAP:
        scores = metric.score([SILENT, PERSONAS, empty, TALK])
        assert all(math.isnan(s) for s in scores[:3]) and not math.isnan(scores[3])


def test_distinct_without_ngrams_is_nan() -> None:
    one_word = dialogue(("User", "hi"), ("System", "yes"))
    assert get("dialogue-distinct-1").score([one_word]) == [1.0]
    assert math.isnan(get("dialogue-distinct-2").score([one_word])[0])


def test_config_and_versions_say_what_is_scored() -> None:
    config = get("dialogue-length").config()
    assert "'System'" in config["turns"] and config["no_system_turn"] == "NaN"
    assert config["turn_metric"] == "length (implementation 2)"
    assert get("dialogue-distinct-2").config()["n"] == 2
    assert get("dialogue-distinct-1").library_version().startswith("sacrebleu==")


def test_turn_items_are_refused() -> None:
    with pytest.raises(TypeError, match="scores dialogues"):
        get("dialogue-length").score([TurnItem("t", "hello")])


@pytest.mark.slow
def test_coherence_is_the_mean_cosine_of_system_turns_with_the_turn_before() -> None:
    metric = get("dialogue-coherence")
    texts = ["Do you like jazz?", "I love jazz, Miles Davis especially.", "What about rock?"]
    texts.append("Pizza is my favourite food.")
    vectors = metric.turn_metric.embed(texts)

    def cosine(a: int, b: int) -> float:
        x, y = vectors[a], vectors[b]
        return float(x @ y / np.linalg.norm(x) / np.linalg.norm(y))

    talk = dialogue(*zip(["User", "System", "User", "System"], texts, strict=True))
    # the system's first turn has nothing before it, and a blank user turn is left out
    lonely = dialogue(("System", texts[1]), ("User", " "), ("System", texts[3]))
    silent = dialogue(("User", texts[0]), ("System", ""))  # said nothing: 0
    scores = metric.score([talk, lonely, silent, SILENT])
    assert scores[0] == pytest.approx((cosine(0, 1) + cosine(2, 3)) / 2, abs=1e-6)
    assert math.isnan(scores[1]) and scores[2] == 0.0 and math.isnan(scores[3])
    assert metric.config()["model"] == "all-MiniLM-L6-v2"
    assert "transformers==" in metric.library_version()


@pytest.mark.slow
@pytest.mark.parametrize(("name", "sample"), [("dstc9", "44"), ("fed-dialogue", "30")])
def test_default_evaluate_prints_a_table(
    name: str,
    sample: str,
    data_root: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("COMPERBENCH_CACHE", str(tmp_path / "cache"))
    args = ["evaluate", "--benchmark", name, "--metrics", "default", "--sample", sample]
    args += ["--resamples", "0", "--out", str(tmp_path / "out"), "--data-dir", str(data_root)]
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "no metric could run" not in printed and "skipped" not in printed
    assert f"{4 * int(sample)} scores computed" in printed
    rows = json.loads((tmp_path / "out" / "table.json").read_text())["rows"]
    assert [r["metric"] for r in rows] == [m.name for m in resolve_metrics("default", "dialogue")]
    assert all(r["n"] == int(sample) and not math.isnan(r["spearman"]) for r in rows)
    for row in rows:
        assert f"\n{row['metric']} " in printed
