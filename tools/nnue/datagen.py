"""Labelled positions from Ponderosa's own play, for the tuner: self-play inside the process.

Usage (after `pip install -e .`):

    python -m tools.nnue.datagen OUT.txt [--games 4000] [--nodes 5000] [--workers 2] [--seed 1]

tools/tune/selfplay.py plays through the XBoard protocol at a fixed time a move, about 5 s a game;
here the core's search is called directly with a node limit, so a game takes well under a
second and a tuning set of tens of thousands of games is an evening's, not a week's, work.

Each game starts from an opening of tests/data/openings/noob_2moves.epd (drawn with --seed)
followed by --random-plies random legal moves (variety, so that games from the same opening
differ), then both sides search --nodes nodes a move (jittered by up to a quarter either way,
one fresh hash table and history per game). Games end by the rules (mate, stalemate,
threefold repetition, the 50-move rule, insufficient material), by adjudication (a win when
the mover's score has been beyond --win-cp for 8 plies running; a draw when it has stayed within
--draw-cp for 16 plies running after ply 80), or as a draw after --max-plies.

Positions kept: after --skip-plies plies (counted from the opening line's end), those that are
quiet by the tuner's rule (tools/tune/texel.py: not in check, no promotion, no capture winning
material by exchange) and whose searched best move is not a capture or promotion, at most
--per-game of them drawn at random. Each line is `FEN;result` with the game's result for White
(1, 0.5, 0), each game's lines after a line `# game`: the format of tools/tune/texel.py --positions,
which holds out whole games. The file is written atomically when the
run ends (also on Ctrl-C, with the games finished so far).
"""
from __future__ import annotations

import argparse
import multiprocessing
import random
import signal
import sys
import time
from pathlib import Path

import chess

from ponderosa.core_ext.core import Board, Evaluator, TranspositionTable
from ponderosa.core_ext.position_set import is_quiet
from ponderosa.engine.records import write_atomically
from ponderosa.engine.search import Searcher, SearchLimits

from tools import ROOT as REPO
from tools.nnue.packed_games import PackedGame, write_games

OPENINGS = REPO / "tests" / "data" / "openings" / "noob_2moves.epd"
HASH_BYTES = 16 * 1024 * 1024
WIN_PLIES = 8
DRAW_PLIES = 16
DRAW_FROM_PLY = 80


def read_openings(path: Path) -> list[str]:
    """The FENs of an EPD file (four fields; move counters added)."""
    fens = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            fields = line.split()
            if len(fields) >= 4:
                fens.append(" ".join(fields[:4]) + " 0 1")
    return fens


def random_start(fen: str, plies: int, rng: random.Random) -> chess.Board | None:
    """The opening followed by random legal moves; None when the game ended among them."""
    board = chess.Board(fen)
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves:
            return None
        board.push(rng.choice(moves))
    return None if board.is_game_over() else board


def rules_result(board: chess.Board) -> str | None:
    """The result when the rules end the game here (draws claimed at once), else None."""
    if board.is_checkmate():
        return "0-1" if board.turn == chess.WHITE else "1-0"
    if (board.is_stalemate() or board.is_insufficient_material() or board.halfmove_clock >= 100
            or board.is_repetition(3)):
        return "1/2-1/2"
    return None


def play_game(searcher: Searcher, start: chess.Board, args: argparse.Namespace,
              rng: random.Random) -> tuple[str, list[str], PackedGame]:
    """One self-play game from start: its result, the FENs of its candidate positions, and the
    whole game with every ply's score (for --packed)."""
    board = start.copy()
    packed = PackedGame(start.fen(), "1/2-1/2")
    core_board = Board(start.fen())
    candidates: list[str] = []
    win_run = draw_run = win_side = 0
    result = "1/2-1/2"
    for ply in range(args.max_plies):
        ended = rules_result(board)
        if ended is not None:
            result = ended
            break
        nodes = int(args.nodes * rng.uniform(0.75, 1.25))
        found = searcher.run(core_board, SearchLimits(nodes=nodes))
        if found.best_move is None:
            raise RuntimeError(f"no move in {board.fen()}")
        move = chess.Move.from_uci(found.best_move)
        white_score = found.score if board.turn == chess.WHITE else -found.score
        if (ply >= args.skip_plies and not board.is_capture(move) and move.promotion is None
                and is_quiet(core_board)):
            candidates.append(board.fen())
        # the same side ahead by win_cp in both sides' searches, 8 plies running
        ahead = 1 if white_score >= args.win_cp else -1 if white_score <= -args.win_cp else 0
        win_run = win_run + 1 if ahead and ahead == win_side else (1 if ahead else 0)
        win_side = ahead
        if win_run >= WIN_PLIES:
            result = "1-0" if ahead > 0 else "0-1"
            break
        draw_run = draw_run + 1 if abs(found.score) <= args.draw_cp and board.ply() >= DRAW_FROM_PLY else 0
        if draw_run >= DRAW_PLIES:
            break
        packed.moves.append(move)
        packed.scores.append(found.score)
        board.push(move)
        core_board.push_uci(found.best_move)
    rng.shuffle(candidates)
    packed.result = result
    return result, candidates[:args.per_game], packed


def worker(job: tuple[int, list[str], argparse.Namespace]) -> list[tuple[str, list[str], PackedGame]]:
    """Play the games of one chunk; returns each game's result and positions."""
    chunk_seed, fens, args = job
    evaluator = Evaluator()
    if args.net is not None:
        from ponderosa.engine import nnue
        nnue.load(evaluator, args.net)   # the searches of this chunk evaluate with it
    rng = random.Random(chunk_seed)
    tt = TranspositionTable(HASH_BYTES)
    searcher = Searcher(tt, evaluator)
    games = []
    for fen in fens:
        start = random_start(fen, args.random_plies, rng)
        if start is None:
            continue
        tt.clear()
        searcher.core.clear()
        games.append(play_game(searcher, start, args, rng))
    return games


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("out", type=Path, help="the `FEN;result` file to write (with --packed: packed games)")
    parser.add_argument("--packed", action="store_true",
                        help="write whole games with every ply's score (tools/nnue/packed_games.py), "
                             "the neural evaluation's training data, instead of FEN;result lines")
    parser.add_argument("--net", type=Path, help="search with this network (the next round of NNUE data) "
                        "instead of the hand-written evaluation")
    parser.add_argument("--games", type=int, default=4000)
    parser.add_argument("--nodes", type=int, default=5000, help="nodes a move (default 5000)")
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--openings", type=Path, default=OPENINGS)
    parser.add_argument("--random-plies", type=int, default=2)
    parser.add_argument("--skip-plies", type=int, default=8, help="plies after the start before positions are kept")
    parser.add_argument("--per-game", type=int, default=12)
    parser.add_argument("--max-plies", type=int, default=400)
    parser.add_argument("--win-cp", type=int, default=1000)
    parser.add_argument("--draw-cp", type=int, default=10)
    parser.add_argument("--chunk", type=int, default=25, help="games per job (default 25)")
    args = parser.parse_args(argv)
    if args.games < 1 or args.nodes < 1 or args.workers < 1 or args.chunk < 1:
        parser.error("--games, --nodes, --workers and --chunk must be positive")
    if args.net is not None:
        from ponderosa.engine import nnue
        try:
            nnue.read_network(args.net)   # a file that cannot be used stops the run before any game
        except nnue.NetworkFileError as error:
            parser.error(str(error))
    return args


STOPPED_EXIT = 128   # + the signal's number, as a shell reports a process a signal ended


class Stopped(KeyboardInterrupt):
    """The run was told to stop by this signal."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _interrupt(signum: int, frame: object) -> None:
    raise Stopped(signum)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        openings = read_openings(args.openings)
    except OSError as error:
        print(f"{args.openings}: {error.strerror}", file=sys.stderr)
        return 1
    if not openings:
        print(f"{args.openings}: no positions", file=sys.stderr)
        return 1
    rng = random.Random(args.seed)
    starts = [rng.choice(openings) for _ in range(args.games)]
    jobs = [(rng.getrandbits(63), starts[i:i + args.chunk], args) for i in range(0, len(starts), args.chunk)]
    lines: list[str] = []
    packed_games: list[PackedGame] = []
    results = {"1-0": 0, "1/2-1/2": 0, "0-1": 0}
    began = time.monotonic()
    stopped_by = 0   # the signal that stopped the run early, 0 if it ran to the end
    pool = multiprocessing.Pool(args.workers)
    # Stop the same way on SIGTERM (kill, a scheduler's timeout) and on SIGINT even when the run
    # was started in the background, where the shell ignores SIGINT: the workers are already
    # forked, so only this process turns the signal into KeyboardInterrupt.
    previous = {number: signal.signal(number, _interrupt) for number in (signal.SIGTERM, signal.SIGINT)}
    try:
        for chunk in pool.imap_unordered(worker, jobs):
            for result, positions, packed in chunk:
                results[result] += 1
                if args.packed:
                    packed_games.append(packed)
                    continue
                value = {"1-0": "1", "0-1": "0"}.get(result, "0.5")
                lines.append("# game")   # the tuner holds out whole games
                lines.extend(f"{fen};{value}" for fen in positions)
            games = sum(results.values())
            kept = sum(len(game.moves) for game in packed_games) if args.packed else len(lines) - games
            print(f"{games} games ({results['1-0']} / {results['1/2-1/2']} / {results['0-1']}), "
                  f"{kept} positions, {time.monotonic() - began:.0f} s", file=sys.stderr)
        pool.close()
    except KeyboardInterrupt as stop:
        stopped_by = stop.signum if isinstance(stop, Stopped) else signal.SIGINT
        pool.terminate()
        print("stopped: writing the games finished so far", file=sys.stderr)
    finally:
        pool.join()
        for number, handler in previous.items():
            signal.signal(number, handler)
    # A stopped run's file is written but short: the exit status says so (datagen_round must not
    # take it for a whole file).
    status = STOPPED_EXIT + stopped_by if stopped_by else 0
    if args.packed:
        write_games(args.out, packed_games)
        print(f"{args.out}: {len(packed_games)} games, {sum(len(game.moves) for game in packed_games)} positions",
              file=sys.stderr)
        return status
    header = (f"# Ponderosa self-play: {sum(results.values())} games at {args.nodes} nodes a move "
              f"(White wins / draws / Black wins {results['1-0']} / {results['1/2-1/2']} / {results['0-1']}), "
              f"seed {args.seed}")
    write_atomically(args.out, "".join(line + "\n" for line in [header, *lines]))
    print(f"{args.out}: {len(lines) - sum(results.values())} positions", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
