"""`comperbench submit` of hostile files: each refused with its message on standard error and
exit 2, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from bombs import csv_header, jsonl_malformed, zip_corrupt_lzma, zip_entries

from comperbench.cli import main


@pytest.mark.parametrize("build", [zip_corrupt_lzma, zip_entries, jsonl_malformed, csv_header])
def test_submit_refuses_a_hostile_file_without_a_traceback(
    build, tmp_path: Path, data_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name, data = build()
    (tmp_path / name).write_bytes(data)
    db = tmp_path / "lb.sqlite"
    assert main(["submit", str(tmp_path / name), "--name", "m", "--db", str(db), "--create"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"comperbench: error: submission {name} was rejected (")
    assert "Traceback" not in err
