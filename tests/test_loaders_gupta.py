"""DailyDialog-Gupta loader against the counts measured in dailydialog_gupta/SOURCE.md."""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import io
from collections.abc import Callable
from pathlib import Path

import pytest

from comperbench import load_benchmark
from comperbench.common.errors import DataFormatError
from comperbench.loaders.dailydialog_gupta import DailyDialogGupta

SYSTEMS = {"human", "hredf", "seq2seqf", "CVAEf", "dualencoder_train"}


def test_counts_match_source(data_root: Path) -> None:
    bench = load_benchmark("dailydialog-gupta")
    frame = bench.to_pandas()
    assert len(frame) == 500
    assert frame.item_id.is_unique
    assert frame.dialogue_id.nunique() == 100
    assert set(frame.system) == SYSTEMS
    assert frame.groupby("system").size().eq(100).all()
    assert bench.metadata.aspect_names == ("overall",)
    assert not bench.metadata.individual_ratings
    assert len(bench.ratings()) == 0
    scores = bench.human_scores()
    assert scores.min() == 1.0 and scores.max() == 5.0
    assert frame.references.map(len).eq(4).all()
    assert bench.skipped == {}


def test_item_by_hand(data_root: Path) -> None:
    frame = load_benchmark("dailydialog-gupta").to_pandas().set_index("item_id")
    row = frame.loc["dailydialog-gupta/73_4/human"]
    assert row.response == "great . why did you become a software engineer ?"
    assert row.scores["overall"] == 4.8
    assert len(row.context) == 5 and row.context[-1]["speaker"] == "A"
    assert row.context[0]["text"].startswith("excuse me . i have an appointment")
    assert list(row.references) == [
        "okay . what experience do you have ?",
        "how many years of software engineering do you have ?",
        "did you bring a resume ?",
        "then tell me something about your background .",
    ]
    assert frame.loc["dailydialog-gupta/73_4/dualencoder-train"].scores["overall"] == 1.2


def test_original_reply_is_a_reference_and_human_reply_is_not(data_root: Path) -> None:
    frame = load_benchmark("dailydialog-gupta").to_pandas()
    raw = data_root / DailyDialogGupta.metadata.sources[0].path
    originals = {r["context_id"]: r["prevgt"] for r in csv.DictReader(raw.open(newline=""))}
    assert all(originals[row.dialogue_id] in row.references for row in frame.itertuples())
    human = frame[frame.system == "human"]
    assert not any(row.response in row.references for row in human.itertuples())


def _patched_root(
    data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, edit: Callable[[str], str]
) -> Path:
    meta = DailyDialogGupta.metadata
    source = meta.sources[0]
    original = (data_root / source.path).read_text(encoding="utf-8")
    text = edit(original)
    assert text != original
    target = tmp_path / source.path
    target.parent.mkdir(parents=True)
    target.write_text(text, encoding="utf-8")
    digest = hashlib.sha256(target.read_bytes()).hexdigest()
    patched = dataclasses.replace(source, sha256=digest)
    monkeypatch.setattr(DailyDialogGupta, "metadata", dataclasses.replace(meta, sources=(patched,)))
    return tmp_path


def _set_cell(text: str, line: int, column: str, value: str) -> str:
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    rows[line - 2][column] = value
    out = io.StringIO(newline="")
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


@pytest.mark.parametrize("value", ["", "n/a", "5.4", "nan"])
def test_bad_rating_is_located_not_a_number(
    data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    root = _patched_root(
        data_root, tmp_path, monkeypatch, lambda t: _set_cell(t, 6, "human_average_rating", value)
    )
    with pytest.raises(DataFormatError) as info:
        load_benchmark("dailydialog-gupta", data_dir=root, cache=False)
    assert info.value.line == 6
    assert info.value.record == "73_4/dualencoder_train"
    assert info.value.field == "human_average_rating"


def test_empty_reference_is_located(
    data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _patched_root(
        data_root,
        tmp_path,
        monkeypatch,
        lambda t: _set_cell(t, 3, "all_references", "okay .\t\tdid you ?\tthen ."),
    )
    with pytest.raises(DataFormatError, match=r"line 3, record 73_4/hredf, field 'all_references'"):
        load_benchmark("dailydialog-gupta", data_dir=root, cache=False)


def test_missing_column_is_located(
    data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def truncate_line_4(text: str) -> str:
        lines = text.splitlines(keepends=True)
        lines[3] = lines[3].split(",", 2)[0] + ",73_4\n"
        return "".join(lines)

    root = _patched_root(data_root, tmp_path, monkeypatch, truncate_line_4)
    with pytest.raises(DataFormatError, match=r"line 4: expected 7 columns"):
        load_benchmark("dailydialog-gupta", data_dir=root, cache=False)
