"""Matches: the gauntlet against other engines (gauntlet, with engines, games, openings and report),
the same through cutechess-cli (cutechess), SPRTs of a build against another (sprt), fixed-node matches
(node_match), the strength levels' calibration (calibrate_strength), a game of lichess-bot's code
(lichess_bot_game), and what reads the clocks back (clock_report, move_times)."""
