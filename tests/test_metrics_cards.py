"""Metric cards and the metric table agree with each metric's MetricInfo."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from comperbench.cli import main
from comperbench.metrics import available, info
from comperbench.metrics.about import cards


@pytest.fixture(scope="module")
def infos() -> list:
    return [info(name) for name in available()]


def test_every_metric_has_a_card_that_agrees_with_the_code(infos: list) -> None:
    problems = cards.check_cards(infos)
    assert problems == [], "run `comperbench card --metrics --write` and review"


def test_a_stale_missing_or_extra_card_is_found(infos: list, tmp_path: Path) -> None:
    written = cards.write_cards(infos, tmp_path)
    assert len(written) == len(infos) + 1 and cards.check_cards(infos, tmp_path) == []
    changed = [dataclasses.replace(infos[0], description="Another description."), *infos[1:]]
    assert cards.check_cards(changed, tmp_path) == [
        f"{tmp_path / f'{infos[0].name}.md'}: differs from the code",
        f"{tmp_path / 'README.md'}: differs from the code",
    ]
    (tmp_path / "gone.md").write_text("# gone\n")
    (tmp_path / f"{infos[1].name}.md").unlink()
    problems = cards.check_cards(infos, tmp_path)
    assert f"{tmp_path / f'{infos[1].name}.md'}: missing" in problems
    assert f"{tmp_path / 'gone.md'}: no registered metric" in problems
    cards.write_cards(infos, tmp_path)
    assert not (tmp_path / "gone.md").exists() and cards.check_cards(infos, tmp_path) == []


def test_a_card_states_the_facts_of_its_info() -> None:
    card = cards.render_card(info("meteor"))
    assert card.startswith("# meteor\n\nHarmonic mean of unigram precision and recall")
    assert "| family | n-gram |" in card and "| reads | references, response |" in card
    assert "| library | `nltk==3.10.4` |" in card and "| implementation version | 3 |" in card
    assert "@inproceedings{banerjee-lavie-2005-meteor," in card
    assert "--benchmark fed-dialogue" in cards.render_card(info("dialogue-length"))
    assert "No paper defines this metric." in cards.render_card(info("length"))


def test_the_metric_table_has_a_row_per_metric_by_family(infos: list) -> None:
    table = cards.metric_table_markdown()
    rows = table.splitlines()
    assert rows[0].startswith("| metric | family | reads | higher is better |")
    assert len(rows) == 2 + len(infos)
    families = [row.split(" | ")[1] for row in rows[2:]]
    assert families == sorted(families, key=list(cards.FAMILY_NAMES.values()).index)
    assert "| `bleu-4` | n-gram | references, response | yes | Sentence BLEU up to 4-grams" in table
    linked = cards.metric_table_markdown(links="metric_cards/")
    assert "| [`chrf++`](metric_cards/chrf++.md) | n-gram |" in linked
    assert all(row.count(" | ") == 5 for row in [rows[0], *rows[2:]])


def test_the_card_command_checks_and_prints(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["card", "--metrics", "--check"]) == 0
    assert capsys.readouterr().out == f"{len(available())} metric card(s) agree with the code\n"
    assert main(["card", "--metrics"]) == 0
    assert capsys.readouterr().out == cards.metric_table_markdown()
