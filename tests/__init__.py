"""Ponderosa's test suite as a package: a test imports the harnesses as `tests.uci_harness`,
`tests.xboard_harness`, `tests.wall_clock` and the shared helpers as `tests.conftest` (pytest puts the
repository's root on the path). The tools it tests are scripts of tools/, which pyproject.toml's
`pythonpath` puts on the path."""
