"""Static evaluation: colour symmetry, the breakdown, endgame knowledge, single terms and scales."""
from __future__ import annotations

import random

import chess
import pytest

from ponderosa.core_ext.core import Board, Evaluator, get_weights, set_weights

from tests.conftest import data_file

TERMS = [
    "material", "piece squares", "pawn structure", "blocked pawns", "passed pawns", "mobility",
    "king safety", "tropism", "rooks", "bishop pair", "outposts", "trapped pieces", "endgame", "threats",
    "tempo",
    "draw scaling",
]


def wac_fens() -> list[str]:
    fens = []
    for line in data_file("suites", "wac.epd").read_text().splitlines():
        if line.strip():
            fens.append(chess.Board.from_epd(line)[0].fen())
    return fens


def white_view(evaluator: Evaluator, fen: str) -> int:
    board = Board(fen)
    score = evaluator.evaluate(board)
    return score if board.white_to_move else -score


def rows(evaluator: Evaluator, fen: str) -> dict[str, tuple[int, int, int]]:
    return {name: (white, black, net) for name, white, black, net in evaluator.breakdown(Board(fen))}


@pytest.fixture(scope="module")
def fens() -> list[str]:
    fens = wac_fens()
    assert len(fens) == 300
    return fens


# ---------------------------------------------------------------- symmetry and bookkeeping


def test_colour_flip_symmetry_on_wac(fens: list[str]) -> None:
    evaluator = Evaluator()
    broken = []
    for fen in fens:
        mirrored = chess.Board(fen).mirror().fen()
        if evaluator.evaluate(Board(fen)) != evaluator.evaluate(Board(mirrored)):
            broken.append(fen)
    assert broken == []


def test_mirrored_breakdown_swaps_colours(fens: list[str]) -> None:
    evaluator = Evaluator()
    for fen in fens[:100]:
        original = evaluator.breakdown(Board(fen))
        flipped = evaluator.breakdown(Board(chess.Board(fen).mirror().fen()))
        for (name, white, black, _), (name2, white2, black2, _) in zip(original, flipped):
            assert (name, white, black) == (name2, black2, white2), fen


def test_breakdown_adds_up_to_white_view_total(fens: list[str]) -> None:
    evaluator = Evaluator()
    for fen in fens:
        breakdown = evaluator.breakdown(Board(fen))
        assert [row[0] for row in breakdown] == TERMS
        assert sum(row[3] for row in breakdown) == white_view(evaluator, fen), fen
        # Each net is the term's White part minus Black's part, give or take the tapering's rounding.
        for name, white, black, net in breakdown[:-1]:
            assert abs(net - (white - black)) <= 2, (fen, name)


def test_scores_stay_in_range(fens: list[str]) -> None:
    evaluator = Evaluator()
    for fen in fens + ["QQQQQQQQ/QQQQQQQQ/8/8/8/8/8/k1K5 w - - 0 1", "k7/8/8/8/8/8/qqqqqqqq/qqqqqqqK b - - 0 1"]:
        assert abs(evaluator.evaluate(Board(fen))) < 10000


def test_pawn_hash_does_not_change_scores(fens: list[str]) -> None:
    big, tiny = Evaluator(), Evaluator(0)
    assert tiny.pawn_hash_entries == 1
    assert big.pawn_hash_entries & (big.pawn_hash_entries - 1) == 0
    for _ in range(2):
        for fen in fens:
            assert big.evaluate(Board(fen)) == tiny.evaluate(Board(fen)), fen
    probes, hits = big.pawn_hash_stats
    # The second pass is answered by the evaluation cache (bar a few slot collisions), so the
    # pawn table is asked about once a position.
    assert len(fens) <= probes < len(fens) + 30
    big.clear()
    assert big.pawn_hash_stats == (0, 0)


def test_the_pawn_table_serves_positions_with_the_same_pawns() -> None:
    evaluator = Evaluator()
    evaluator.evaluate(Board("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"))
    evaluator.evaluate(Board("rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1"))
    assert evaluator.pawn_hash_stats == (2, 1)


def test_the_evaluation_cache_answers_only_for_the_same_position_and_settings() -> None:
    """A second evaluation of a position comes from the cache (the pawn table is not asked
    again); after a scale changes, the position is evaluated afresh with the new scale."""
    fen = "r1bq1rk1/pp2ppbp/2np1np1/8/3NP3/2N1BP2/PPPQ2PP/R3KB1R w KQ - 3 9"
    evaluator = Evaluator()
    first = evaluator.evaluate(Board(fen))
    assert evaluator.evaluate(Board(fen)) == first and evaluator.pawn_hash_stats[0] == 1
    evaluator.set_scale("kscale", 300)
    changed = evaluator.evaluate(Board(fen))
    assert evaluator.pawn_hash_stats[0] == 2
    fresh = Evaluator()
    fresh.set_scale("kscale", 300)
    assert changed == fresh.evaluate(Board(fen))
    evaluator.set_scale("kscale", 100)
    assert evaluator.evaluate(Board(fen)) == first


def test_made_moves_evaluate_like_fresh_positions(fens: list[str]) -> None:
    """Positions reached by make/unmake (incremental pawn key, shared pawn table) score as from FEN."""
    evaluator, fresh = Evaluator(), Evaluator()
    rng = random.Random(2024)
    for fen in fens[::5]:
        board = Board(fen)
        for _ in range(12):
            moves = board.legal_moves()
            if not moves:
                break
            board.push_uci(rng.choice(sorted(moves)))
            assert evaluator.evaluate(board) == fresh.evaluate(Board(board.fen())), board.fen()
            fresh.clear()


def test_side_to_move_view_and_tempo() -> None:
    evaluator = Evaluator()
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    white_to_move = Board(fen)
    black_to_move = Board(fen.replace(" w ", " b "))
    start = Board()
    tempo = get_weights()["TEMPO_MG"]                         # the opening's tempo (the start is all opening)
    assert tempo > 0
    assert evaluator.evaluate(start) == tempo                 # only the tempo differs
    assert rows(evaluator, chess.STARTING_FEN)["tempo"] == (tempo, 0, tempo)
    assert evaluator.evaluate(white_to_move) != evaluator.evaluate(black_to_move)
    assert -evaluator.evaluate(black_to_move) == evaluator.evaluate(white_to_move) - 2 * tempo


# ---------------------------------------------------------------- endgame knowledge


@pytest.mark.parametrize("fen", [
    "8/8/4k3/8/8/3K4/8/8 w - - 0 1",
    "8/8/4k3/8/8/3K4/8/8 b - - 0 1",
    "8/8/4k3/8/8/3KN3/8/8 w - - 0 1",
    "8/8/4k3/8/8/3KN3/8/8 b - - 0 1",
    "8/8/4kb2/8/8/3K4/8/8 w - - 0 1",
    "8/8/4k3/8/8/3KB3/8/8 b - - 0 1",
    "8/8/4k3/8/8/2NKN3/8/8 w - - 0 1",
    "8/8/2nkn3/8/8/3K4/8/8 b - - 0 1",
])
def test_insufficient_material_is_a_draw(fen: str) -> None:
    evaluator = Evaluator()
    assert evaluator.evaluate(Board(fen)) == 0
    assert sum(row[3] for row in evaluator.breakdown(Board(fen))) == 0


def test_queen_against_bare_king_is_large() -> None:
    evaluator = Evaluator()
    assert evaluator.evaluate(Board("8/8/4k3/8/8/3KQ3/8/8 w - - 0 1")) > 900
    assert evaluator.evaluate(Board("8/8/4k3/8/8/3KQ3/8/8 b - - 0 1")) < -900
    assert evaluator.evaluate(Board("8/8/3kq3/8/8/4K3/8/8 w - - 0 1")) < -900


def test_kbn_drives_the_king_to_the_bishops_corner() -> None:
    evaluator = Evaluator()
    # Light-squared bishop on d3: a8 and h1 are its corners, h8 and a1 are not.
    right = white_view(evaluator, "k7/8/8/8/3K4/3BN3/8/8 b - - 0 1")
    wrong = white_view(evaluator, "7k/8/8/8/3K4/3BN3/8/8 b - - 0 1")
    assert right > wrong + 50
    # The same with a dark-squared bishop and colours reversed: now a1 is the right corner.
    right = white_view(evaluator, "8/8/3bn3/3k4/8/8/8/K7 w - - 0 1")
    wrong = white_view(evaluator, "8/8/3bn3/3k4/8/8/8/7K w - - 0 1")
    assert right < wrong - 50


def test_rook_against_minor_is_scaled_down() -> None:
    evaluator = Evaluator()
    assert 0 < evaluator.evaluate(Board("8/8/4k3/4b3/8/3K4/8/4R3 w - - 0 1")) < 80
    assert 0 < evaluator.evaluate(Board("8/8/4k3/4n3/8/3K4/8/4R3 w - - 0 1")) < 80
    assert evaluator.evaluate(Board("8/8/4k3/8/8/3K4/8/4R3 w - - 0 1")) > 500
    assert 0 < evaluator.evaluate(Board("8/8/3k4/3p4/8/3K4/3NN3/8 w - - 0 1")) < 200   # KNN v KP


def test_wrong_bishop_with_rook_pawn() -> None:
    evaluator = Evaluator()
    # h8 is dark: a light-squared bishop cannot drive the king out of the corner.
    wrong = evaluator.evaluate(Board("7k/8/8/7P/8/3B4/8/3K4 w - - 0 1"))
    right = evaluator.evaluate(Board("7k/8/8/7P/8/4B3/8/3K4 w - - 0 1"))
    away = evaluator.evaluate(Board("8/8/8/7P/1k6/3B4/8/6K1 w - - 0 1"))
    assert 0 <= wrong < 30
    assert right > 300
    assert away > 300                                         # the king is nowhere near the corner
    assert rows(evaluator, "7k/8/8/7P/8/3B4/8/3K4 w - - 0 1")["draw scaling"][2] < -300


def test_opposite_coloured_bishops_scale_toward_draw() -> None:
    evaluator = Evaluator()
    # White's bishop is dark-squared (c1); Black's is light-squared on c8, dark-squared on f8.
    opposite = evaluator.evaluate(Board("2b1k3/1p3ppp/8/8/8/8/PP3PPP/2B1K3 w - - 0 1"))
    same = evaluator.evaluate(Board("4kb2/1p3ppp/8/8/8/8/PP3PPP/2B1K3 w - - 0 1"))
    assert 0 < opposite < same / 2
    assert rows(evaluator, "2b1k3/1p3ppp/8/8/8/8/PP3PPP/2B1K3 w - - 0 1")["draw scaling"][2] < 0


def test_unstoppable_passed_pawn_by_the_rule_of_the_square() -> None:
    evaluator = Evaluator()
    outside = rows(evaluator, "8/8/8/P7/4k3/8/8/6K1 w - - 0 1")["passed pawns"][0]   # a6 Kd5 a7 Kc6 a8=Q
    inside = rows(evaluator, "8/8/8/P7/4k3/8/8/6K1 b - - 0 1")["passed pawns"][0]    # Kd5 a6 Kc6 a7 Kb7
    assert outside > inside + 300
    # With a black rook on the board the square does not matter.
    assert rows(evaluator, "r7/8/8/P7/8/5k2/8/6K1 w - - 0 1")["passed pawns"][0] < 300


# ---------------------------------------------------------------- single terms


def test_passed_pawn_on_sixth_beats_third() -> None:
    evaluator = Evaluator()
    sixth = "r6k/8/4P3/8/8/8/8/R6K w - - 0 1"
    third = "r6k/8/8/8/8/4P3/8/R6K w - - 0 1"
    assert rows(evaluator, sixth)["passed pawns"][0] > rows(evaluator, third)["passed pawns"][0] + 50
    assert white_view(evaluator, sixth) > white_view(evaluator, third)


def test_pawn_structure_penalties() -> None:
    evaluator = Evaluator()
    healthy = rows(evaluator, "4k3/pppp4/8/8/8/8/PPPP4/4K3 w - - 0 1")["pawn structure"]
    assert healthy[0] == healthy[1] > 0                       # connected pawns on both sides
    isolated_doubled = rows(evaluator, "4k3/pppp4/8/8/8/P1P5/P1P5/4K3 w - - 0 1")["pawn structure"]
    assert isolated_doubled[0] < -30 and isolated_doubled[1] > 0


def test_bishop_pair_bonus() -> None:
    evaluator = Evaluator()
    pair = rows(evaluator, "4k3/pppp1ppp/2n1b3/8/8/2BB4/PPPP1PPP/4K3 w - - 0 1")["bishop pair"]
    assert pair[0] > 20 and pair[1] == 0 and pair[2] == pair[0]
    # Two bishops on the same colour (c3 and e3, both dark) are no pair.
    assert rows(evaluator, "4k3/pppp1ppp/2n1b3/8/8/2B1B3/PPPP1PPP/4K3 w - - 0 1")["bishop pair"][0] == 0


def test_rook_on_open_file_beats_closed_file() -> None:
    evaluator = Evaluator()
    open_file = "6k1/ppp1pppp/8/8/8/8/PPP1PPPP/3R2K1 w - - 0 1"
    closed_file = "6k1/ppp1pppp/8/8/8/8/PPP1PPPP/4R1K1 w - - 0 1"
    assert rows(evaluator, open_file)["rooks"][0] > rows(evaluator, closed_file)["rooks"][0]
    assert white_view(evaluator, open_file) > white_view(evaluator, closed_file)


def test_trapped_bishop_and_rook() -> None:
    evaluator = Evaluator()
    assert rows(evaluator, "4k3/B7/1p6/8/8/8/8/4K3 w - - 0 1")["trapped pieces"][0] < -50
    assert rows(evaluator, "4k3/B7/8/8/8/8/8/4K3 w - - 0 1")["trapped pieces"][0] == 0
    assert rows(evaluator, "4k3/8/8/8/8/8/b7/4K3 w - - 0 1")["trapped pieces"][1] == 0
    assert rows(evaluator, "4k3/8/8/8/8/1P6/b7/4K3 w - - 0 1")["trapped pieces"][1] < -50
    # King walked to f1 and shut the h1 rook in; after castling the rook is free.
    walked = "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/2N2N2/PPPP1PPP/R1BQ1K1R w kq - 0 1"
    castled = "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/2N2N2/PPPP1PPP/R1BQ1RK1 w kq - 0 1"
    assert rows(evaluator, walked)["trapped pieces"][0] < -50
    assert rows(evaluator, castled)["trapped pieces"][0] == 0


def test_king_safety_sees_an_open_king_and_attackers() -> None:
    evaluator = Evaluator()
    sheltered = rows(evaluator, "r1bq1rk1/pppp1ppp/2n2n2/2b1p3/2B1P3/2NP1N2/PPP2PPP/R1BQ1RK1 w - - 0 1")
    stripped = rows(evaluator, "r1bq1rk1/pppp1ppp/2n2n2/2b1p3/2B1P3/2NP1N2/PPP5/R1BQ1RK1 w - - 0 1")
    assert stripped["king safety"][0] < sheltered["king safety"][0] - 40
    # Black's queen and bishop bear on White's king, nothing of White's on Black's: White's king
    # is the less safe, and less safe than with Black's queen gone.
    attacked = rows(evaluator, "r1b2rk1/pppp1ppp/2n5/2b1p2q/2B1P3/3P1N2/PPP2PPP/R1BQ1RK1 b - - 0 1")
    unattacked = rows(evaluator, "r1b2rk1/pppp1ppp/2n5/2b1p3/2B1P3/3P1N2/PPP2PPP/R1BQ1RK1 b - - 0 1")
    assert attacked["king safety"][1] > attacked["king safety"][0]
    assert attacked["king safety"][0] < unattacked["king safety"][0] - 20


# ---------------------------------------------------------------- scales

ATTACK_FEN = "r1b2rk1/pppp1ppp/2n5/2b1p1Nq/2B1P3/3P4/PPP3PP/R1BQ1RK1 w - - 0 1"
PASSER_FEN = "6k1/5ppp/1P6/8/8/2p5/5PPP/6K1 w - - 0 1"


def test_scale_names_and_limits() -> None:
    evaluator = Evaluator()
    assert evaluator.scales() == {"asymmetry": 0, "bscale": 100, "kscale": 100, "tropism": 100,
                                  "pscale": 100, "ppscale": 100}
    evaluator.set_scale("kscale", 133)
    assert evaluator.scales()["kscale"] == 133
    for name, value in [("nonsense", 100), ("kscale", -1), ("kscale", 100000), ("asymmetry", -101),
                        ("pscale", "high"), ("ppscale", 1.5)]:
        with pytest.raises(ValueError):
            evaluator.set_scale(name, value)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        Evaluator(-1)
    evaluator.set_pawn_hash(1 << 16)
    assert evaluator.scales()["kscale"] == 133


def test_kscale_zero_removes_king_safety() -> None:
    evaluator = Evaluator()
    normal = rows(evaluator, ATTACK_FEN)
    assert normal["king safety"][2] != 0
    evaluator.set_scale("kscale", 0)
    scaled = rows(evaluator, ATTACK_FEN)
    assert scaled["king safety"] == (0, 0, 0)
    for name in TERMS[:-1]:
        if name != "king safety":
            assert scaled[name][:2] == normal[name][:2], name
    assert abs(white_view(evaluator, ATTACK_FEN) - (sum(r[2] for r in normal.values()) - normal["king safety"][2])) <= 1


def test_ppscale_doubles_passed_pawns() -> None:
    evaluator = Evaluator()
    normal = rows(evaluator, PASSER_FEN)["passed pawns"]
    assert normal[0] > 30 and normal[1] > 10
    evaluator.set_scale("ppscale", 200)
    doubled = rows(evaluator, PASSER_FEN)["passed pawns"]
    assert abs(doubled[0] - 2 * normal[0]) <= 1
    assert abs(doubled[1] - 2 * normal[1]) <= 1
    assert abs(doubled[2] - 2 * normal[2]) <= 2


@pytest.mark.parametrize("scale,term", [("pscale", "pawn structure"), ("tropism", "tropism"),
                                        ("bscale", "blocked pawns")])
def test_other_scales_change_their_term(scale: str, term: str) -> None:
    fen = "r1bq1rk1/ppp2ppp/2np1n2/2b1p3/2B1P3/2NP1N2/PPP2PPP/R1BQ1RK1 w - - 0 1"
    fen = fen if term != "pawn structure" else "4k3/pppp4/8/8/8/P1P5/P1P5/4K3 w - - 0 1"
    evaluator = Evaluator()
    normal = rows(evaluator, fen)
    assert normal[term][:2] != (0, 0)
    evaluator.set_scale(scale, 0)
    zero = rows(evaluator, fen)
    assert zero[term] == (0, 0, 0)
    assert all(zero[name][:2] == normal[name][:2] for name in TERMS[:-1] if name != term)


def test_asymmetry_raises_the_opponents_king_safety() -> None:
    evaluator = Evaluator()
    normal = rows(evaluator, ATTACK_FEN)["king safety"]
    evaluator.set_scale("asymmetry", 50)
    evaluator.engine_side = 0                                 # engine plays White: Black's king counts more
    raised = rows(evaluator, ATTACK_FEN)["king safety"]
    assert raised[0] == normal[0]
    assert abs(raised[1] - normal[1] * 3 // 2) <= 1 and raised[1] < normal[1]
    evaluator.engine_side = 1
    swapped = rows(evaluator, ATTACK_FEN)["king safety"]
    assert swapped[1] == normal[1] and swapped[0] < normal[0]
    evaluator.set_scale("asymmetry", -100)
    assert rows(evaluator, ATTACK_FEN)["king safety"][0] == 0


THREAT_CASES = [
    ("4k3/8/8/3n4/4P3/8/8/4K3 b - - 0 1", "THREAT_PAWN_ON_MINOR"),     # e4 pawn on the d5 knight
    ("4k3/8/8/3r4/4P3/8/8/4K3 b - - 0 1", "THREAT_PAWN_ON_MAJOR"),     # e4 pawn on the d5 rook
    ("4k3/8/8/3b4/8/4N3/8/4K3 b - - 0 1", "THREAT_MINOR_ON_MINOR"),    # e3 knight on the d5 bishop
    ("4k3/8/8/3q4/8/4N3/8/4K3 b - - 0 1", "THREAT_MINOR_ON_MAJOR"),    # e3 knight on the d5 queen
    ("4k3/8/8/3q4/8/8/8/3RK3 b - - 0 1", "THREAT_ROOK_ON_QUEEN"),      # d1 rook on the d5 queen
    ("4k3/8/8/3n4/8/8/8/3RK3 b - - 0 1", "THREAT_HANGING"),            # d5 knight, attacked, undefended
    ("4k3/8/8/3p4/8/8/8/3RK3 b - - 0 1", "THREAT_WEAK_PAWN"),          # d5 pawn, attacked, undefended
    ("4k3/8/8/3n4/8/4P3/8/4K3 b - - 0 1", "THREAT_PAWN_PUSH"),         # e3-e4 would hit the d5 knight
]


@pytest.mark.parametrize("fen,weight", THREAT_CASES)
def test_each_threat_counts_once_for_the_attacker(fen: str, weight: str) -> None:
    saved = get_weights()
    threat_names = [name for name in saved if name.startswith("THREAT_")]
    try:
        set_weights({name: (100 if name.startswith(weight + "_") else 0) for name in threat_names})
        evaluator = Evaluator()
        white, black, _ = rows(evaluator, fen)["threats"]
        assert (white, black) == (100, 0)
        # The same position with colours swapped credits Black instead.
        white, black, _ = rows(evaluator, chess.Board(fen).mirror().fen())["threats"]
        assert (white, black) == (0, 100)
    finally:
        set_weights(saved)


def test_no_threats_between_kings_and_defended_pawns() -> None:
    evaluator = Evaluator()
    assert rows(evaluator, "4k3/3p4/4p3/8/8/4P3/3P4/4K3 w - - 0 1")["threats"][:2] == (0, 0)
