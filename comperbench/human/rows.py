"""Moved to `comperbench.human_io.rows`; this path works for one release, with a
DeprecationWarning."""

from comperbench.common.deprecation import moved_names

__getattr__ = moved_names(
    "comperbench.human.rows",
    {
        "Located": "comperbench.human_io.rows",
        "read_errors": "comperbench.human_io.rows",
        "csv_rows": "comperbench.human_io.rows",
        "jsonl_rows": "comperbench.human_io.rows",
        "parquet_rows": "comperbench.human_io.rows",
        "read_rows": "comperbench.human_io.rows",
        "MAX_ROWS": "comperbench.human_io.rows",
        "check_size": "comperbench.human_io.rows",
        "text": "comperbench.human_io.rows",
        "FirstSeen": "comperbench.human_io.rows",
    },
)
