"""Files of the repository that a script makes: the logo (logo), the 5,000-ply game of tests/data/games
(long_game), the Chess960 perft table of tests/data (chess960_perft)."""
