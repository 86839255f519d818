"""OpenBench for Ponderosa: a local instance (server, worker, commit zips) on the loopback address,
run as `python -m tools.openbench.local up|test|datagen|status|pgns|down` (docs/OPENBENCH.md)."""
