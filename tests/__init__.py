"""Ponderosa's test suite as a package: a test imports the harnesses as `tests.uci_harness`,
`tests.xboard_harness`, `tests.wall_clock` and the shared helpers as `tests.conftest`, and the tools
it tests as the package beside it, `from tools.match import sprt` (pyproject.toml's pytest `pythonpath`
puts the repository's root on the path)."""
