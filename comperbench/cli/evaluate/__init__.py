"""`comperbench evaluate`: its arguments (`commands`), what it writes and prints for one
benchmark (`output`), and several benchmarks in one process (`many`)."""
