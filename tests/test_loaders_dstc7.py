"""DSTC7 Task 2 loader against the counts in dstc7_task2/SOURCE.md and the official summaries."""

from __future__ import annotations

import dataclasses
import hashlib
import io
import tarfile
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest

from comperbench import load_benchmark
from comperbench.common.errors import DataFormatError
from comperbench.loaders.dstc7 import ARCHIVE, FOLDER, JUDGMENTS, OWN_REFERENCE, Dstc7

SYSTEMS = {
    "Baseline",
    "Constant",
    "Random",
    "Human",
    "TeamA",
    "TeamB",
    "TeamCE",
    "TeamD",
    "TeamF",
    "TeamG",
}
FIRST = "001b44fffd2e2208487824836dbc9594b06068defc9f5164e2c54fc7"


@pytest.fixture(scope="module")
def frame(data_root: Path) -> pd.DataFrame:
    return load_benchmark("dstc7").to_pandas().set_index("item_id")


def _member(data_root: Path, name: str) -> str:
    with tarfile.open(data_root / ARCHIVE, "r:gz") as tar:
        handle = tar.extractfile(f"{FOLDER}/{name}")
        assert handle is not None
        return handle.read().decode("utf-8-sig")


def test_counts_match_source(data_root: Path, frame: pd.DataFrame) -> None:
    bench = load_benchmark("dstc7")
    assert len(frame) == 10_000
    assert frame.index.is_unique
    assert frame.dialogue_id.nunique() == 1000
    assert set(frame.system) == SYSTEMS
    assert frame.groupby("system").size().eq(1000).all()
    ratings = bench.ratings()
    assert len(ratings) == 33_000 * 3
    assert ratings.annotator.nunique() == 317
    assert bench.skipped == {"empty reference field": 46, OWN_REFERENCE: 909}
    assert bench.metadata.default_aspect == "overall"


def test_scales(data_root: Path) -> None:
    ratings = load_benchmark("dstc7").ratings()
    for aspect in ("relevance", "informativeness"):
        assert set(ratings[ratings.aspect == aspect].value) == {1.0, 2.0, 3.0, 4.0, 5.0}
    overall = set(ratings[ratings.aspect == "overall"].value)
    assert overall == {1 + k / 2 for k in range(9)}


def test_team_ec_ratings_count_as_team_ce(data_root: Path) -> None:
    ratings = load_benchmark("dstc7").ratings()
    assert "TeamEC" not in set(ratings.system)
    judges = ratings[ratings.aspect == "relevance"].groupby("item_id").size()
    ce = judges[judges.index.str.endswith("/teamce")]
    assert len(ce) == 1000 and ce.eq(6).all()
    assert judges.drop(ce.index).eq(3).all()


def test_item_scores_equal_official_per_instance_scores(
    data_root: Path, frame: pd.DataFrame
) -> None:
    """dstc7-task2-human_evaluation.tsv: per instance and system, the mean of both aspects."""
    official = pd.read_csv(
        io.StringIO(_member(data_root, "dstc7-task2-human_evaluation.tsv")),
        sep="\t",
        index_col="InstanceID",
    ).drop(index="Average")
    ours = frame.assign(overall=[s["overall"] for s in frame.scores]).pivot(
        index="dialogue_id", columns="system", values="overall"
    )
    assert sorted(official.columns) == sorted(ours.columns)
    diff = (ours.loc[official.index, official.columns] - official).abs()
    assert diff.to_numpy().max() <= 0.005 + 1e-9


def test_system_means_equal_published_sheet(data_root: Path) -> None:
    derived = load_benchmark("dstc7").systems()
    published = Dstc7.published_system_scores()
    assert list(published.index) == sorted(SYSTEMS)
    for aspect in ("relevance", "informativeness", "overall"):
        assert (derived[aspect] - published[aspect]).abs().max() < 1e-6
        assert (published[f"{aspect}_ci_low"] < published[aspect]).all()
        assert (published[aspect] < published[f"{aspect}_ci_high"]).all()
    assert published.loc["TeamCE", "relevance_ci_low"] == 3.009


def test_items_by_hand(frame: pd.DataFrame) -> None:
    baseline = frame.loc[f"dstc7/{FIRST}/baseline"]
    assert baseline.response == "i think he is a good guy."
    assert len(baseline.context) == 0 and baseline.turn_index == 2
    assert baseline.grounding[0].startswith("lauda returned to running his airline, lauda air")
    assert baseline.scores["relevance"] == pytest.approx((3 + 4 + 3) / 3)
    assert baseline.scores["informativeness"] == pytest.approx((3 + 4 + 4) / 3)
    assert baseline.scores["overall"] == pytest.approx(3.5)
    assert sorted({r["annotator"] for r in baseline.ratings}) == ["anon0", "anon1", "anon2"]
    team_ce = frame.loc[f"dstc7/{FIRST}/teamce"]
    assert team_ce.scores["relevance"] == pytest.approx((3 + 4 + 3 + 4 + 4 + 5) / 6)
    assert team_ce.scores["informativeness"] == pytest.approx((4 + 1 + 3 + 4 + 3 + 4) / 6)


def test_human_item_does_not_have_its_own_reply_as_reference(frame: pd.DataFrame) -> None:
    human = frame.loc[f"dstc7/{FIRST}/human"]
    baseline = frame.loc[f"dstc7/{FIRST}/baseline"]
    copy = (
        "To me , born in 72 , Lauda is a superhero , just epic ! What he has done in and with "
        "his life is just amazing , no other champion compares to that ."
    )
    assert human.response.startswith("to me, born in 72, lauda is a superhero")
    assert copy in list(baseline.references) and copy not in list(human.references)
    assert len(human.references) == len(baseline.references) - 1 == 16
    assert "Selling forehead DM me" in list(human.references)
    systems_refs = frame.groupby("dialogue_id").references.apply(lambda s: len(s.iloc[0]))
    assert (systems_refs == 0).sum() == 46
    others = frame[frame.system != "Human"]
    same = others.groupby("dialogue_id").references.apply(lambda s: len({tuple(r) for r in s}))
    assert same.eq(1).all()
    shorter = frame[frame.system == "Human"].references.map(len).to_numpy() < (
        others[others.system == "Baseline"].references.map(len).to_numpy()
    )
    assert shorter.sum() == 893


def _patched_archive(
    data_root: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    edit: Callable[[dict[str, bytes]], None],
) -> Path:
    """A data root whose tgz holds `edit(members)`, the declared sha256 matched to it."""
    with tarfile.open(data_root / ARCHIVE, "r:gz") as tar:
        members = {m.name: tar.extractfile(m).read() for m in tar if m.isfile()}  # type: ignore[union-attr]
    edit(members)
    target = tmp_path / ARCHIVE
    target.parent.mkdir(parents=True)
    with tarfile.open(target, "w:gz") as tar:
        for name, content in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(content)
            tar.addfile(info, io.BytesIO(content))
    meta = Dstc7.metadata
    sources = []
    for source in meta.sources:
        if source.path == ARCHIVE:
            source = dataclasses.replace(
                source, sha256=hashlib.sha256(target.read_bytes()).hexdigest()
            )
        else:
            (tmp_path / source.path).write_bytes((data_root / source.path).read_bytes())
        sources.append(source)
    monkeypatch.setattr(Dstc7, "metadata", dataclasses.replace(meta, sources=tuple(sources)))
    return tmp_path


def _edit_judgment_line(line: int, new: Callable[[str], str]) -> Callable[[dict[str, bytes]], None]:
    def edit(members: dict[str, bytes]) -> None:
        lines = members[JUDGMENTS].decode("utf-8-sig").split("\n")
        lines[line - 1] = new(lines[line - 1])
        members[JUDGMENTS] = ("\ufeff" + "\n".join(lines)).encode()

    return edit


def test_out_of_scale_rating_is_located(
    data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    edit = _edit_judgment_line(5, lambda text: text.rsplit("\t", 2)[0] + "\t6\t2")
    root = _patched_archive(data_root, tmp_path, monkeypatch, edit)
    with pytest.raises(DataFormatError) as info:
        load_benchmark("dstc7", data_dir=root, cache=False)
    assert "dstc7-task2-human-eval-per-judge.tsv], line 5, field 'Relevance'" in str(info.value)
    assert "rating '6' is outside the scale 1-5" in str(info.value)


def test_unknown_system_is_located(
    data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    edit = _edit_judgment_line(24002, lambda text: text.replace("TeamEC", "TeamXY"))
    root = _patched_archive(data_root, tmp_path, monkeypatch, edit)
    with pytest.raises(DataFormatError, match=r"line 24002: TeamXY has no response to instance"):
        load_benchmark("dstc7", data_dir=root, cache=False)


def test_short_row_is_located(
    data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    edit = _edit_judgment_line(3, lambda text: text.rsplit("\t", 1)[0])
    root = _patched_archive(data_root, tmp_path, monkeypatch, edit)
    with pytest.raises(DataFormatError, match=r"line 3: expected 5 TAB-separated fields, found 4"):
        load_benchmark("dstc7", data_dir=root, cache=False)


def test_missing_member_is_named(
    data_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _patched_archive(
        data_root, tmp_path, monkeypatch, lambda members: members.pop(JUDGMENTS)
    )
    with pytest.raises(DataFormatError, match=r"the archive has no member .*per-judge\.tsv"):
        load_benchmark("dstc7", data_dir=root, cache=False)
