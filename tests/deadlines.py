"""The one deadline every test waiting on state (a page, a server, a subprocess) uses:
generous, so that a loaded machine slows the suite down without failing it."""

DEADLINE_S = 180.0
DEADLINE_MS = int(DEADLINE_S * 1000)
