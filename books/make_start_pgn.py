"""Write the start-book source PGN: the hand-written repertoire marks (start_flags.pgn) first,
then every named opening line of the CC0 lichess opening tables (eco/name/pgn TSV files).

    python books/make_start_pgn.py OPENINGS/[a-e].tsv > books/start.pgn

OPENINGS is a copy of the lichess-org/chess-openings repository (CC0-1.0; books/README.md names
the commit the shipped start.pgn was made from).

The TSV lines carry no marks: in the start book they only add named moves; the marks in
start_flags.pgn are what steer the engine (Crafty's `!`, `?` and `{play nn%}`)."""
from __future__ import annotations

import csv
import sys
from pathlib import Path

FLAGS_FILE = Path(__file__).with_name("start_flags.pgn")


def tsv_games(path: Path) -> list[str]:
    """One PGN game per TSV row; the name and ECO code become tags."""
    games = []
    with path.open(newline="", encoding="utf-8") as handle:
        for number, row in enumerate(csv.DictReader(handle, delimiter="\t"), 2):
            try:
                eco, name, moves = row["eco"], row["name"], row["pgn"]
            except KeyError as error:
                raise SystemExit(f"{path}:{number}: missing column {error}") from None
            name = name.replace("\\", "").replace('"', "'")
            games.append(f'[Event "{name}"]\n[ECO "{eco}"]\n[Result "*"]\n\n{moves} *\n')
    return games


def main(paths: list[str]) -> int:
    if not paths:
        print(__doc__, file=sys.stderr)
        return 2
    sys.stdout.write(FLAGS_FILE.read_text(encoding="utf-8").rstrip() + "\n\n")
    for path in paths:
        sys.stdout.write("\n".join(tsv_games(Path(path))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
