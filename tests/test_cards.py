"""Dataset cards and benchmark lists against the code, card regeneration, licenses, counts and
BibTeX."""

from __future__ import annotations

import dataclasses
import itertools
import re
from pathlib import Path

import pyarrow as pa
import pytest
from huggingface_hub import DatasetCard

from comperbench import __version__, get_metadata, list_benchmarks
from comperbench.report import cards
from comperbench.schema import Rating, TurnRecord, Utterance, turn_table

README = cards.CARDS_DIR.parent / "README.md"


@pytest.fixture(scope="module")
def all_counts(data_root: Path) -> dict[str, cards.CardCounts]:
    return {name: cards.load_counts(get_metadata(name)) for name in list_benchmarks()}


@pytest.mark.parametrize("name", list_benchmarks())
def test_every_benchmark_has_a_card_that_agrees_with_the_code(
    name: str, all_counts: dict[str, cards.CardCounts]
) -> None:
    text = cards.read_card(name)
    problems = cards.check(text, get_metadata(name), all_counts[name])
    assert problems == [], f"run `comperbench card {name} --write` and review: {problems}"


@pytest.mark.parametrize("name", list_benchmarks())
def test_card_metadata_blocks_agree_without_data(name: str) -> None:
    assert cards.check(cards.read_card(name), get_metadata(name), None) == []


def test_collection_card_lists_every_benchmark() -> None:
    text = (cards.CARDS_DIR / "README.md").read_text()
    metas = [get_metadata(name) for name in list_benchmarks()]
    assert cards.check_collection(text, metas) == []
    configs = DatasetCard(text).data.to_dict()["configs"]
    names = {c["config_name"] for c in configs}
    for meta in metas:
        for level in meta.stored_levels:
            assert f"{meta.name}-{level}" in names
    assert "## Versioning rules" in text


@pytest.mark.parametrize(
    ("path", "links"), [(cards.CARDS_DIR / "README.md", ""), (README, cards.README_LINKS)]
)
def test_readme_benchmark_lists_agree_with_the_registry(path: Path, links: str) -> None:
    text = path.read_text()
    metas = [get_metadata(name) for name in list_benchmarks()]
    assert cards.check_benchmark_list(text, metas, links) == [], (
        "run `comperbench card --all --write` and review"
    )
    for meta in metas:
        assert f"| [`{meta.name}`]({links}{meta.name}/README.md) | {meta.pretty_name}" in text
        assert (path.parent / links / meta.name / "README.md").is_file()
    fewer = metas[:-1]
    assert cards.check_benchmark_list(text, fewer, links) == [
        "benchmark list differs from the registered benchmarks"
    ]
    renamed = [*metas[:-1], dataclasses.replace(metas[-1], pretty_name="Another name")]
    assert cards.check_benchmark_list(text, renamed, links)
    fixed = cards.with_benchmark_list(text, renamed, links)
    assert "| Another name |" in fixed and cards.check_benchmark_list(fixed, renamed, links) == []


def test_benchmark_list_marks_hub_only_benchmarks_and_needs_its_markers() -> None:
    listing = cards.render_benchmark_list([get_metadata("soda-eval"), get_metadata("usr-topical")])
    assert (
        "| SODA-EVAL (Hugging Face Hub only) | turn, system | 11 (default `overall`) |" in listing
    )
    assert "| USR-TopicalChat | turn, system | 6 (default `overall`) | unknown |" in listing
    with pytest.raises(cards.CardError, match="benchmarks:start"):
        cards.with_benchmark_list("# no list here\n", [get_metadata("usr-topical")])
    assert cards.check_benchmark_list("# no list here\n", []) == [
        "no benchmark list between <!-- benchmarks:start --> and <!-- benchmarks:end -->"
    ]


def test_no_card_without_a_benchmark() -> None:
    folders = {p.name for p in cards.CARDS_DIR.iterdir() if p.is_dir()}
    assert folders == set(list_benchmarks())


@pytest.mark.parametrize("name", list_benchmarks())
def test_card_header_is_a_valid_dataset_card(name: str) -> None:
    meta = get_metadata(name)
    data = DatasetCard(cards.read_card(name)).data.to_dict()
    assert data["language"] == [meta.language]
    paths = {(f["split"], f["path"]) for config in data["configs"] for f in config["data_files"]}
    expected = {
        (split, f"{name}/{level}-{split}.parquet")
        for level in meta.stored_levels
        for split in meta.splits
    }
    assert paths == expected
    assert data["pretty_name"] == meta.pretty_name
    if data["license"] == "other":
        assert data["license_name"] == meta.license_id and data["license_details"] == meta.license
    else:
        assert data["license"] == meta.license_id


def test_comperdial_card_states_license_and_hub() -> None:
    text = cards.read_card("comperdial")
    assert DatasetCard(text).data.license == "cc-by-nc-sa-4.0"
    assert "Sony/ComperDial" in text and "not part of comperbench" in text
    assert "10,395" in text and "As published by" in text
    # `export --all` includes ComperDial when its files are present: the card must not deny it
    assert "not in its release" not in text and "neither ships nor re-uploads" not in text
    assert "`comperbench export` includes ComperDial" in text


def test_dstc9_declares_no_data_license() -> None:
    """MIT covers the DialoFlow code, not the DSTC9 data, for which no license was published."""
    meta = get_metadata("dstc9")
    assert meta.license_id == "unknown" and "MIT" in meta.license
    assert cards.hf_license(meta.license_id) == ("other", "unknown")
    data = DatasetCard(cards.read_card("dstc9")).data
    assert data.license == "other" and data.license_name == "unknown"


def test_grade_convai2_card_states_how_contexts_are_shared(data_root: Path) -> None:
    folder = data_root / "grade" / "evaluation" / "eval_data" / "convai2"
    contexts = {
        d.name: set((d / "human_ctx.txt").read_text().splitlines()) for d in folder.iterdir()
    }
    assert len(set().union(*contexts.values())) == 258
    shared = [len(a & b) for a, b in itertools.combinations(contexts.values(), 2)]
    assert min(shared) == 65 and sorted(shared)[-2] == 80
    text = cards.read_card("grade-convai2")
    assert "one response per system for each" not in text
    assert "258 distinct contexts" in text and "65 to 80 shared" in text


@pytest.mark.parametrize(
    ("license_id", "expected"),
    [
        ("cc-by-nc-sa-4.0", ("cc-by-nc-sa-4.0", None)),
        ("cc-by-4.0", ("cc-by-4.0", None)),
        ("mit", ("mit", None)),
        ("o-uda-1.0", ("o-uda-1.0", None)),
        ("unknown", ("other", "unknown")),
        ("custom-research-terms", ("other", "custom-research-terms")),
    ],
)
def test_hf_license(license_id: str, expected: tuple[str, str | None]) -> None:
    assert cards.hf_license(license_id) == expected


@pytest.mark.parametrize(
    ("name", "license_id"),
    [
        ("comperdial", "cc-by-nc-sa-4.0"),
        ("soda-eval", "cc-by-4.0"),
        ("predictive-engagement", "mit"),
        ("dstc7", "o-uda-1.0"),
        ("usr-topical", "unknown"),
    ],
)
def test_declared_license_ids(name: str, license_id: str) -> None:
    assert get_metadata(name).license_id == license_id


@pytest.mark.parametrize(
    ("n", "label"),
    [(0, "n<1K"), (999, "n<1K"), (1000, "1K<n<10K"), (12237, "10K<n<100K"), (122648, "100K<n<1M")],
)
def test_size_category(n: int, label: str) -> None:
    assert cards.size_category(n) == label


def _tiny_table() -> pa.Table:
    ctx = [Utterance("A", "hi")]
    records = [
        TurnRecord(
            "t/0/a", "0", "sys-a", ctx, "x", [Rating("q", 1.0, "r1"), Rating("q", 3.0, "r2")]
        ),
        TurnRecord("t/0/b", "0", "sys-b", ctx, "y", [Rating("q", 2.0)]),
        TurnRecord("t/1/a", "1", "sys-a", ctx, "z", [], split="dev"),
    ]
    return turn_table("t", records, ["q"])


def test_measure_counts_by_hand() -> None:
    meta = dataclasses.replace(get_metadata("usr-topical"), splits=("dev", "test"))
    counts = cards.measure(meta, {"turn": _tiny_table()}, {"turn": {"N/A rating: q": 2}})
    assert counts.splits == (
        cards.SplitCounts("turn", "dev", 1, 1, 1, 0),
        cards.SplitCounts("turn", "test", 2, 1, 2, 3),
    )
    assert counts.per_system == {"turn": {"sys-a": {"dev": 1, "test": 1}, "sys-b": {"test": 1}}}
    assert counts.total_items == 3
    rendered = cards.render_counts(counts)
    assert "| turn | test | 2 | 1 | 2 | 3 |" in rendered
    assert "| sys-b | 0 | 1 |" in rendered
    assert "| N/A rating: q | 2 |" in rendered


def test_published_counts_come_from_the_metadata() -> None:
    published = {n for n in list_benchmarks() if get_metadata(n).published_counts is not None}
    assert published == {"comperdial", "soda-eval"}
    counts = cards.load_counts(get_metadata("soda-eval"))
    assert counts.total_items == 85876 + 24535 + 12237
    assert counts.published_by == "the Johndfm/soda_eval dataset card" and not counts.per_system
    assert "As published by the Johndfm/soda_eval dataset card" in cards.render_counts(counts)


def test_a_changed_version_or_count_makes_the_check_fail(
    all_counts: dict[str, cards.CardCounts],
) -> None:
    meta = get_metadata("usr-persona")
    text = cards.read_card("usr-persona")
    bumped = dataclasses.replace(meta, version="2.0.0")
    assert "block 'summary' differs from the code" in cards.check(
        text, bumped, all_counts[meta.name]
    )
    first = all_counts[meta.name].splits[0]
    fewer = dataclasses.replace(
        all_counts[meta.name], splits=(dataclasses.replace(first, items=299),)
    )
    assert "block 'counts' differs from the code" in cards.check(text, meta, fewer)
    relicensed = dataclasses.replace(meta, license="MIT", license_id="mit")
    problems = cards.check(text, relicensed, all_counts[meta.name])
    assert "YAML header differs from the code" in problems
    renamed = dataclasses.replace(meta, pretty_name="USR on PersonaChat")
    assert "YAML header differs from the code" in cards.check(text, renamed, all_counts[meta.name])


def test_regenerate_fixes_facts_and_keeps_prose(all_counts: dict[str, cards.CardCounts]) -> None:
    meta = get_metadata("usr-topical")
    counts = all_counts[meta.name]
    text = cards.read_card(meta.name)
    stale = text.replace(meta.fingerprint, "0" * 16).replace("| 6,480 |", "| 1 |")
    assert cards.check(stale, meta, counts)
    fixed = cards.regenerate(stale, meta, counts)
    assert fixed == text
    assert cards.regenerate(fixed, meta, counts) == fixed


def test_check_demands_sections_and_prose(all_counts: dict[str, cards.CardCounts]) -> None:
    meta = get_metadata("usr-topical")
    counts = all_counts[meta.name]
    skeleton = cards.regenerate(cards.skeleton(meta), meta, counts)
    problems = cards.check(skeleton, meta, counts)
    assert "section '## License and terms' has no prose (0 words outside fact blocks)" in problems
    assert not any("differs" in p for p in problems)
    without = cards.read_card(meta.name).replace("## License and terms", "## Terms")
    assert "section '## License and terms' is missing" in cards.check(without, meta, counts)


def test_card_without_header_or_block_is_an_error(all_counts: dict[str, cards.CardCounts]) -> None:
    meta = get_metadata("usr-topical")
    text = cards.read_card(meta.name)
    with pytest.raises(cards.CardError, match="YAML header"):
        cards.regenerate(text.split("---", 2)[2], meta, all_counts[meta.name])
    no_block = re.sub(r"<!-- facts:(start|end) aspects -->", "", text)
    with pytest.raises(cards.CardError, match="no block <!-- facts:start aspects -->"):
        cards.regenerate(no_block, meta, all_counts[meta.name])
    with pytest.raises(cards.CardError, match=r"comperbench card usr-x --write"):
        cards.read_card("usr-x")


def _bibtex_entries(text: str) -> list[tuple[str, str, dict[str, str]]]:
    """(type, key, fields) of every entry; fails on unbalanced braces (an independent reader)."""
    entries = []
    for match in re.finditer(r"@(\w+)\{([^,\s]+),", text):
        depth, i = 1, match.end()
        while depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        body = text[match.end() : i - 1]
        fields = dict(re.findall(r"^\s*(\w+)\s*=\s*(.+?),?\s*$", body, flags=re.MULTILINE))
        entries.append((match.group(1), match.group(2), fields))
    return entries


def test_cite_usr_topical() -> None:
    text = cards.citations([get_metadata("usr-topical")])
    entries = _bibtex_entries(text)
    assert [(t, k) for t, k, _ in entries] == [
        ("inproceedings", "mehri-eskenazi-2020-usr"),
        ("software", "comperbench"),
    ]
    usr = entries[0][2]
    assert usr["author"] == '"Mehri, Shikib and Eskenazi, Maxine"'
    assert usr["year"] == '"2020"' and usr["pages"] == '"681--707"'
    assert "2020.acl-main.64" in usr["url"]
    assert entries[1][2]["version"] == "{" + __version__ + "}"
    assert text.count("{") == text.count("}")


def test_cite_shares_one_entry_between_benchmarks_of_one_paper() -> None:
    text = cards.citations([get_metadata("usr-topical"), get_metadata("usr-persona")])
    assert text.count("@inproceedings{mehri-eskenazi-2020-usr,") == 1


@pytest.mark.parametrize("name", list_benchmarks())
def test_every_citation_is_well_formed_bibtex(name: str) -> None:
    citation = get_metadata(name).citation
    entries = _bibtex_entries(citation)
    assert len(entries) == citation.count("\n@") + 1
    for _, key, fields in entries:
        assert key and {"title", "year"} <= set(fields)
