"""The one-file program: what `make` runs (build) and the start module it puts in the file (entry)."""
