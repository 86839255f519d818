"""The figures of docs/BENCHMARKS.md, one script each: perft, search, evaluate, smp, peers, startup,
uci, resize, book, book_export, syzygy, and binary (the one-file program beside the pip install)."""
