"""Release export: parquet files, cards, manifest, round trip through `datasets`, Hub push errors."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import huggingface_hub
import pyarrow.parquet as pq
import pytest

from comperbench import __version__, get_metadata, load_benchmark
from comperbench.common.errors import DataMissingError, UnknownNameError
from comperbench.data import sha256_file
from comperbench.report import cards
from comperbench.report.release import (
    ReleaseError,
    check_redistribution,
    export_release,
    push_release,
    verify_release,
)

NAMES = ["usr-persona", "fed-dialogue", "predictive-engagement"]
UNKNOWN_LICENCE = ["usr-persona", "fed-dialogue"]


@pytest.fixture(scope="module")
def release(data_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("release")
    export_release(NAMES, out)
    return out


def test_manifest_lists_every_file_with_its_sha256(release: Path) -> None:
    manifest = json.loads((release / "manifest.json").read_text())
    assert manifest["comperbench_version"] == __version__
    assert set(manifest["benchmarks"]) == set(NAMES)
    for name, entry in manifest["benchmarks"].items():
        meta = get_metadata(name)
        assert entry["version"] == meta.version and entry["fingerprint"] == meta.fingerprint
        paths = {f["path"] for f in entry["files"]}
        expected = {
            f"{name}/{level}-{split}.parquet"
            for level in meta.stored_levels
            for split in meta.splits
        }
        assert paths == expected
        for f in [*entry["files"], entry["card"]]:
            assert sha256_file(release / f["path"]) == f["sha256"]
    assert manifest["card"]["path"] == "README.md"
    assert verify_release(release) == []


def test_release_holds_cards_and_collection_card(release: Path) -> None:
    for name in NAMES:
        assert (release / name / "README.md").read_text() == cards.read_card(name)
    top = huggingface_hub.DatasetCard((release / "README.md").read_text()).data.to_dict()
    names = sorted(c["config_name"] for c in top["configs"])
    assert names == ["fed-dialogue-dialogue", "predictive-engagement-turn", "usr-persona-turn"]
    for config in top["configs"]:
        for f in config["data_files"]:
            assert (release / f["path"]).is_file()


def test_parquet_round_trips_through_datasets(release: Path, tmp_path: Path) -> None:
    import datasets

    for name, level in [("usr-persona", "turn"), ("fed-dialogue", "dialogue")]:
        path = release / name / f"{level}-test.parquet"
        loaded = datasets.load_dataset(
            "parquet", data_files={"test": str(path)}, cache_dir=str(tmp_path / "hf")
        )["test"]
        expected = load_benchmark(name, level).table.to_pylist()
        assert loaded.num_rows == len(expected)
        assert loaded.to_list() == expected


def test_exported_file_metadata_names_benchmark_and_fingerprint(release: Path) -> None:
    meta = get_metadata("fed-dialogue")
    schema = pq.read_schema(release / "fed-dialogue" / "dialogue-test.parquet")
    assert schema.metadata[b"comperbench.fingerprint"].decode() == meta.fingerprint
    skipped = json.loads(schema.metadata[b"comperbench.skipped"])
    assert skipped == load_benchmark("fed-dialogue").skipped and skipped


def test_export_is_byte_for_byte_reproducible(release: Path, tmp_path: Path) -> None:
    export_release(NAMES, tmp_path)
    assert (tmp_path / "manifest.json").read_text() == (release / "manifest.json").read_text()


def test_tampered_file_is_found(release: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(release, copy)
    with (copy / "usr-persona" / "turn-test.parquet").open("ab") as handle:
        handle.write(b"x")
    (copy / "fed-dialogue" / "README.md").unlink()
    assert sorted(verify_release(copy)) == [
        "fed-dialogue/README.md: missing",
        "usr-persona/turn-test.parquet: sha256 differs from the manifest",
    ]


def test_stale_card_stops_the_export(data_root: Path, tmp_path: Path) -> None:
    cards_dir = tmp_path / "cards"
    shutil.copytree(cards.CARDS_DIR, cards_dir)
    card = cards_dir / "usr-persona" / "README.md"
    card.write_text(card.read_text().replace("| 5,400 |", "| 5,401 |"))
    with pytest.raises(ReleaseError, match=r"block 'counts' differs.*card usr-persona --write"):
        export_release(["usr-persona"], tmp_path / "out", cards_dir=cards_dir)


def test_hub_only_benchmark_is_named_when_left_out(data_root: Path, tmp_path: Path) -> None:
    with pytest.raises(DataMissingError, match="Sony/ComperDial"):
        export_release(["comperdial"], tmp_path / "strict")
    result = export_release(["comperdial", "usr-persona"], tmp_path / "out", skip_missing=True)
    assert set(result.missing) == {"comperdial"}
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert "comperdial" in manifest["missing"] and list(manifest["benchmarks"]) == ["usr-persona"]
    assert not (tmp_path / "out" / "comperdial").exists()
    assert str(data_root) in result.missing["comperdial"]
    assert "$COMPERBENCH_DATA/comperdial/" in manifest["missing"]["comperdial"]


def _strings(value: object) -> list[str]:
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return [value] if isinstance(value, str) else []


def test_manifest_holds_no_local_path(data_root: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    export_release(["comperdial", "usr-persona"], out, skip_missing=True)
    text = (out / "manifest.json").read_text()
    assert str(data_root) not in text and str(tmp_path) not in text
    for value in _strings(json.loads(text)):
        assert not value.startswith("/") and " /" not in value, value


def test_jsonl_export(data_root: Path, tmp_path: Path) -> None:
    export_release(["usr-persona"], tmp_path, fmt="jsonl", with_cards=False)
    lines = (tmp_path / "usr-persona" / "turn-test.jsonl").read_text().splitlines()
    assert len(lines) == 300
    assert json.loads(lines[0])["item_id"] == load_benchmark("usr-persona").item_ids[0]


def test_export_of_one_benchmark_extends_a_release(release: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(release, copy)
    before = json.loads((copy / "manifest.json").read_text())["benchmarks"]
    export_release(["usr-topical"], copy)
    export_release(["usr-persona"], copy)
    manifest = json.loads((copy / "manifest.json").read_text())
    assert set(manifest["benchmarks"]) == {*NAMES, "usr-topical"}
    for name in NAMES:
        assert manifest["benchmarks"][name] == before[name]
    top = huggingface_hub.DatasetCard((copy / "README.md").read_text()).data.to_dict()
    configs = {c["config_name"] for c in top["configs"]}
    assert configs == {
        "fed-dialogue-dialogue",
        "predictive-engagement-turn",
        "usr-persona-turn",
        "usr-topical-turn",
    }
    assert verify_release(copy) == []


def test_export_in_another_format_leaves_a_release_alone(release: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(release, copy)
    manifest = (copy / "manifest.json").read_text()
    with pytest.raises(
        ReleaseError, match=r"holds another release \(format 'parquet', not 'jsonl'"
    ):
        export_release(["usr-topical"], copy, fmt="jsonl")
    assert (copy / "manifest.json").read_text() == manifest
    assert not (copy / "usr-topical").exists()


@pytest.fixture
def online(monkeypatch: pytest.MonkeyPatch) -> None:
    """Undo the offline switches of conftest for one test (nothing here reaches a network)."""
    for name in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "COMPERBENCH_OFFLINE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)


def test_push_offline_says_so(release: Path) -> None:
    with pytest.raises(ReleaseError, match="cannot push to me/bench: offline mode is set"):
        push_release(release, "me/bench", token="hf_x", allow_redistribution=UNKNOWN_LICENCE)


def test_push_refuses_unknown_licences_before_any_upload(
    release: Path, online: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_hub(*args: object, **kwargs: object) -> None:
        raise AssertionError("the Hub was contacted")

    monkeypatch.setattr(huggingface_hub, "HfApi", no_hub)
    monkeypatch.setattr(huggingface_hub, "get_token", no_hub)
    with pytest.raises(ReleaseError, match="refusing to push to me/bench") as info:
        push_release(release, "me/bench", token="hf_x")
    message = str(info.value)
    assert "usr-persona: its licence is unknown" in message
    assert "fed-dialogue: its licence is unknown" in message
    assert "predictive-engagement" not in message  # MIT
    assert "--allow-redistribution NAME" in message
    with pytest.raises(ReleaseError, match=r"refusing(?s:.*)fed-dialogue") as info:
        push_release(release, "me/bench", token="hf_x", allow_redistribution=["usr-persona"])
    assert "usr-persona" not in str(info.value)


def test_non_commercial_licence_is_refused_unless_allowed() -> None:
    with pytest.raises(ReleaseError, match=r"comperdial: its licence cc-by-nc-sa-4.0 is non-comm"):
        check_redistribution(["comperdial", "predictive-engagement"])
    check_redistribution(["comperdial", "predictive-engagement"], ["comperdial"])
    with pytest.raises(UnknownNameError, match="comperdail"):
        check_redistribution(["comperdial"], ["comperdail"])


def test_push_without_token_says_so(
    release: Path, online: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(huggingface_hub, "get_token", lambda: None)
    with pytest.raises(ReleaseError, match=r"no Hugging Face token.*HF_TOKEN"):
        push_release(release, "me/bench", allow_redistribution=UNKNOWN_LICENCE)


def test_push_with_opt_in_goes_on_to_the_hub(release: Path, online: None) -> None:
    with pytest.raises(ReleaseError, match=r"cannot reach the Hugging Face Hub \(http://127"):
        push_release(
            release,
            "me/bench",
            token="hf_x",
            endpoint="http://127.0.0.1:9",
            allow_redistribution=UNKNOWN_LICENCE,
        )


def test_cli_push_refusal_names_the_option(
    data_root: Path, tmp_path: Path, online: None, capsys: pytest.CaptureFixture[str]
) -> None:
    from comperbench.cli import main

    argv = ["export", "usr-persona", "--out", str(tmp_path), "--push", "me/bench"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "usr-persona: its licence is unknown" in err and "--allow-redistribution" in err
    assert main(["export", "usr-persona", "--allow-redistribution", "usr-persona"]) == 2
    assert "--allow-redistribution applies to --push only" in capsys.readouterr().err


def test_push_needs_a_release_folder(tmp_path: Path) -> None:
    with pytest.raises(ReleaseError, match="not a release folder"):
        push_release(tmp_path, "me/bench", token="hf_x")


def test_hub_only_benchmark_with_files_exports_against_its_published_card(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ComperDial's card states the published counts; files the card's pin cannot identify are
    refused, and released only when allowed, marked unpinned."""
    monkeypatch.setenv("COMPERBENCH_CACHE", str(tmp_path / "cache"))
    fixtures = Path(__file__).parent / "fixtures"
    pin = get_metadata("comperdial").fingerprint
    with pytest.raises(ReleaseError, match=rf"not the card's pinned fingerprint {pin}"):
        export_release(["comperdial"], tmp_path / "refused", data_dir=fixtures)
    assert not (tmp_path / "refused" / "comperdial").exists()
    result = export_release(
        ["comperdial"], tmp_path / "out", data_dir=fixtures, allow_unpinned=True
    )
    entry = result.manifest["benchmarks"]["comperdial"]
    assert entry["pinned"] is False and entry["fingerprint"] != pin
    assert pin in entry["unpinned"]
    assert [f["path"] for f in entry["files"]] == [
        "comperdial/turn-test.parquet",
        "comperdial/dialogue-test.parquet",
    ]
    assert (tmp_path / "out" / "comperdial" / "README.md").read_text() == cards.read_card(
        "comperdial"
    )
    assert verify_release(tmp_path / "out") == []


def _load_folder(path: Path, cache: Path, config: str | None = None) -> object:
    import datasets

    return datasets.load_dataset(str(path), config, cache_dir=str(cache))["test"]


def test_each_benchmark_folder_loads_on_its_own(release: Path, tmp_path: Path) -> None:
    for name in NAMES:
        meta = get_metadata(name)
        loaded = _load_folder(release / name, tmp_path / "hf")
        assert loaded.to_list() == load_benchmark(name, meta.stored_levels[0]).table.to_pylist()


def test_folder_of_a_two_level_benchmark_loads_each_level(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COMPERBENCH_CACHE", str(tmp_path / "cache"))
    fixtures = Path(__file__).parent / "fixtures"
    out = tmp_path / "out"
    export_release(
        ["comperdial"], out, fmt="jsonl", data_dir=fixtures, with_cards=False, allow_unpinned=True
    )
    for level in ("turn", "dialogue"):
        expected = load_benchmark("comperdial", level, data_dir=fixtures)
        loaded = _load_folder(out / "comperdial", tmp_path / "hf", level)
        assert loaded["item_id"] == expected.item_ids
    assert _load_folder(out / "comperdial", tmp_path / "hf").num_rows == len(
        load_benchmark("comperdial", "turn", data_dir=fixtures)
    )


def test_usage_snippet_of_a_card_runs_in_the_release(
    release: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(release)
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf"))
    text = (release / "usr-persona" / "README.md").read_text()
    code = text.split("<!-- facts:start usage -->\n```python\n")[1].split("```")[0]
    namespace: dict[str, object] = {}
    exec(compile(code, "usage", "exec"), namespace)
    assert len(namespace["scores"]) == 300 and len(namespace["ratings"]) == 5400
    assert namespace["ds"]["test"].num_rows == 300


def test_release_from_pinned_files_is_marked_pinned(release: Path) -> None:
    manifest = json.loads((release / "manifest.json").read_text())
    assert all(entry["pinned"] is True for entry in manifest["benchmarks"].values())
    assert not any("unpinned" in entry for entry in manifest["benchmarks"].values())


def test_data_read_at_a_branch_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SODA-EVAL is read at the branch 'main' (no commit hash is known): never a silent release."""
    monkeypatch.setenv("COMPERBENCH_CACHE", str(tmp_path / "cache"))
    fixtures = Path(__file__).parent / "fixtures"
    with pytest.raises(ReleaseError, match=r"read at a branch.*Johndfm/soda_eval@main"):
        export_release(["soda-eval"], tmp_path / "out", data_dir=fixtures)


def test_cli_export_refuses_unpinned_data_naming_the_option(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from comperbench.cli import main

    monkeypatch.setenv("COMPERBENCH_CACHE", str(tmp_path / "cache"))
    fixtures = str(Path(__file__).parent / "fixtures")
    argv = ["export", "comperdial", "--data-dir", fixtures, "--no-cards", "--out"]
    assert main([*argv, str(tmp_path / "a")]) == 2
    assert "--allow-unpinned" in capsys.readouterr().err
    assert main([*argv, str(tmp_path / "b"), "--allow-unpinned"]) == 0
    manifest = json.loads((tmp_path / "b" / "manifest.json").read_text())
    assert manifest["benchmarks"]["comperdial"]["pinned"] is False
