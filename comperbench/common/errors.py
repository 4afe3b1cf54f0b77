"""Exceptions raised by comperbench; every message says what is wrong and where."""

from __future__ import annotations


class ComperbenchError(Exception):
    """Base class of every error raised on purpose by comperbench."""


class UnknownNameError(ComperbenchError, KeyError):
    """A registry lookup for a name that is not registered."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


class DataMissingError(ComperbenchError, FileNotFoundError):
    """A raw data file is absent and could not be downloaded."""


class ChecksumError(ComperbenchError):
    """A raw data file does not have the sha256 its benchmark declares."""


class DataFormatError(ComperbenchError, ValueError):
    """A raw data file cannot be read as its benchmark's published format."""

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        record: str | int | None = None,
        field: str | None = None,
        line: int | None = None,
    ) -> None:
        self.file, self.record, self.field, self.line = file, record, field, line
        where = []
        if file is not None:
            where.append(f"file {file}")
        if line is not None:
            where.append(f"line {line}")
        if record is not None:
            where.append(f"record {record}")
        if field is not None:
            where.append(f"field {field!r}")
        prefix = ", ".join(where)
        super().__init__(f"{prefix}: {message}" if prefix else message)


class MetricOptionError(ComperbenchError, ValueError):
    """A metric name whose options (the text in brackets, or a judge option) are invalid."""
