"""The shared loader helpers: the one rating parser and automatic registration."""

from __future__ import annotations

import math
from typing import Any

import pytest

from comperbench import get_metadata, list_benchmarks
from comperbench.common.errors import DataFormatError
from comperbench.loaders import BENCHMARKS, BenchmarkLoader
from comperbench.loaders.base import Parsed, Record, SourceFiles
from comperbench.metadata import Aspect

LIKERT = Aspect("overall", "Overall", 1, 5)


def _record() -> Record:
    return Record({}, "ratings.json", 7, line=3)


@pytest.mark.parametrize(
    ("value", "options", "expected"),
    [
        (4, {}, 4.0),
        (2.5, {}, 2.5),
        (5, {"integer": True}, 5.0),
        ("3", {"text": True, "integer": True}, 3.0),
        ("3.25", {"text": True}, 3.25),
        ("4", {"text": True}, 4.0),
        (1, {}, 1.0),
    ],
)
def test_rating_accepts_numbers_of_the_declared_kind(
    value: Any, options: dict[str, bool], expected: float
) -> None:
    assert _record().rating(LIKERT, value, **options) == expected


@pytest.mark.parametrize(
    ("value", "options", "message"),
    [
        ("3", {}, "rating '3' is not a number from 1 to 5"),
        (True, {}, "rating True is not a number from 1 to 5"),
        (None, {}, "rating None is not a number from 1 to 5"),
        (3.0, {"integer": True}, "rating 3.0 is not an integer from 1 to 5"),
        ("3.5", {"text": True, "integer": True}, "rating '3.5' is not an integer from 1 to 5"),
        (" 3", {"text": True, "integer": True}, "rating ' 3' is not an integer from 1 to 5"),
        ("", {"text": True}, "rating '' is not a number from 1 to 5"),
        ("nan", {"text": True}, "rating 'nan' is not a number from 1 to 5"),
        ("1e0", {"text": True}, "rating '1e0' is not a number from 1 to 5"),
        ("٣", {"text": True, "integer": True}, "rating '٣' is not an integer from 1 to 5"),
        (6, {}, "rating 6 is outside the scale 1-5"),
        ("0", {"text": True, "integer": True}, "rating '0' is outside the scale 1-5"),
        (math.nan, {}, "rating nan is outside the scale 1-5"),
    ],
)
def test_rating_errors_name_file_line_record_and_field(
    value: Any, options: dict[str, bool], message: str
) -> None:
    with pytest.raises(DataFormatError) as info:
        _record().rating(LIKERT, value, **options)
    assert str(info.value) == f"file ratings.json, line 3, record 7, field 'Overall': {message}"


def test_rating_field_defaults_to_the_aspect_label() -> None:
    with pytest.raises(DataFormatError) as info:
        _record().rating(LIKERT, 9, "s3")
    assert info.value.field == "s3"


def test_unusable_values_are_none_only_when_the_format_says_so() -> None:
    def not_applicable(value: Any) -> bool:
        return isinstance(value, str) and value.startswith("N/A")

    record = _record()
    assert record.rating(LIKERT, "N/A (no errors)", unusable=not_applicable) is None
    assert record.rating(LIKERT, 2, unusable=not_applicable) == 2.0
    with pytest.raises(DataFormatError, match="rating 'n/a' is not a number"):
        record.rating(LIKERT, "n/a", unusable=not_applicable)
    with pytest.raises(DataFormatError, match="rating 'N/A' is not a number"):
        record.rating(LIKERT, "N/A")


def test_every_loader_class_is_registered_under_its_metadata_name() -> None:
    def subclasses(cls: type[BenchmarkLoader]) -> list[type[BenchmarkLoader]]:
        return [c for sub in cls.__subclasses__() for c in (sub, *subclasses(sub))]

    loaders = {c.metadata.name: c for c in subclasses(BenchmarkLoader)}
    assert sorted(loaders) == list_benchmarks()
    for name, cls in loaders.items():
        assert BENCHMARKS.get(name) is cls and get_metadata(name) is cls.metadata


def test_a_subclass_without_its_own_metadata_is_not_registered() -> None:
    count = len(BENCHMARKS)

    class Helper(BenchmarkLoader):
        def parse(self, files: SourceFiles, level: str) -> Parsed:
            return Parsed()

    assert len(BENCHMARKS) == count and Helper.__name__ not in BENCHMARKS
