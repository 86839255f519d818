"""The evaluation weights file, core_ext/eval_weights.pxi: its layout, and its writer.

eval_tables.pxi (part of core.pyx) includes the file; it holds one Python dict, EVAL_WEIGHTS, that the core copies into
its C tables at import. This module knows which names the file holds and in which order, how
each is laid out (a number, a list by index, or a board diagram with rank 8 on top), and writes
the file atomically. The tuner (tools/tune/texel.py) reads the weights from the compiled core and
writes its result here; with unchanged weights the file it writes is byte-identical.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ponderosa.engine.records import write_atomically

from tools import ROOT as REPO

WEIGHTS_FILE = REPO / "core_ext" / "eval_weights.pxi"

PIECES = ("PAWN", "KNIGHT", "BISHOP", "ROOK", "QUEEN", "KING")


@dataclass(frozen=True)
class Weight:
    name: str
    length: int          # 0 = a single number; 64 = a board diagram; else a list by index
    comment: str
    tunable: bool = True  # False: a rule (percentages, caps) the tuner leaves alone


def _layout() -> tuple[Weight, ...]:
    """Every weight of the evaluation, in the order of the file."""
    w: list[Weight] = [
        Weight("PIECE_MG", 7, "material by piece type (none, P, N, B, R, Q, K), opening"),
        Weight("PIECE_EG", 7, "material, endgame"),
    ]
    for piece in PIECES:
        for part, when in (("MG", "opening"), ("EG", "endgame")):
            w.append(Weight(f"PSQ_{piece}_{part}", 64, f"{piece.lower()} on each square, {when} (White's side)"))
    for piece, n in (("KNIGHT", 9), ("BISHOP", 14), ("ROOK", 15), ("QUEEN", 28)):
        for part, when in (("MG", "opening"), ("EG", "endgame")):
            w.append(Weight(f"MOBILITY_{piece}_{part}", n,
                            f"{piece.lower()} by reachable squares (not own pawns or king, not pawn-attacked), {when}"))
    w += [
        Weight("ISOLATED_MG", 8, "isolated pawn penalty by file a..h, opening"),
        Weight("ISOLATED_EG", 8, "isolated pawn penalty by file, endgame"),
        Weight("ISOLATED_EXPOSED_MG", 0, "extra for an isolated pawn with no enemy pawn in front of it"),
        Weight("DOUBLED_MG", 0, "pawn with an own pawn in front of it, opening"),
        Weight("DOUBLED_EG", 0, "the same, endgame"),
        Weight("BACKWARD_MG", 0, "backward pawn, opening"),
        Weight("BACKWARD_EG", 0, "backward pawn, endgame"),
        Weight("BACKWARD_EXPOSED_MG", 0, "extra for a backward pawn on a half-open file"),
        Weight("SUPPORTER_BONUS", 0, "per pawn defending a pawn (both phases)"),
        Weight("CONNECTED", 8, "connected pawn by relative rank: phalanx whole, supported half (both phases)"),
        Weight("RAM_MG", 8, "own pawn blocked by an enemy pawn, by relative rank (penalty)"),
        Weight("PIECE_BLOCKED_MG", 0, "own pawn whose stop square holds a piece, opening"),
        Weight("PIECE_BLOCKED_EG", 0, "the same, endgame"),
        Weight("CENTRE_HOME_BLOCKED_MG", 0, "d/e pawn on its second rank with its stop square taken"),
        Weight("PASSED_MG", 8, "passed pawn by relative rank, opening"),
        Weight("PASSED_EG", 8, "passed pawn by relative rank, endgame"),
        Weight("PASSED_WEIGHT", 8, "how much the dynamic passed-pawn terms count, by relative rank"),
        Weight("PASSED_ENEMY_KING_EG", 0, "per step (up to 5) of enemy king to stop square, times the weight"),
        Weight("PASSED_OWN_KING_EG", 0, "per step of the own king from the stop square (penalty), times the weight"),
        Weight("PASSED_FREE_MG", 0, "nothing on the path to promotion, opening, times the weight"),
        Weight("PASSED_FREE_EG", 0, "nothing on the path to promotion, endgame, times the weight"),
        Weight("PASSED_SAFE_PATH_EG", 0, "free path that no enemy piece attacks, times the weight"),
        Weight("PASSED_SAFE_STOP_EG", 0, "free path with an unattacked stop square, times the weight"),
        Weight("UNSTOPPABLE_EG", 0, "passed pawn the bare enemy king cannot catch"),
        Weight("SHIELD", 8, "own pawn on a shield file, by ranks in front of the king"),
        Weight("STORM", 8, "enemy pawn on a shield file, by ranks in front of the king"),
        Weight("STORM_BLOCKED", 8, "the same, stopped by an own pawn just in front of it"),
        Weight("SHIELD_NONE", 0, "no own pawn in front of the king on a shield file"),
        Weight("HALF_OPEN_KING_FILE", 0, "no own pawn on the king's file"),
        Weight("HALF_OPEN_NEAR_KING", 0, "no own pawn on a file beside the king"),
        Weight("OPEN_NEAR_KING", 0, "extra when that file has no pawns at all"),
        Weight("ATTACK_WEIGHT", 7, "king danger per piece type attacking the king zone"),
        Weight("ATTACKER_PERCENT", 8, "percent of the attack weight that counts, by number of attackers", False),
        Weight("SAFE_CHECK", 7, "king danger per piece type that can give a safe check"),
        Weight("RING_HIT", 0, "king danger per attack on a square next to the king"),
        Weight("DANGER_MAX", 0, "cap of the king danger", False),
        Weight("TROPISM_WEIGHT", 7, "per step of closeness to the enemy king, by piece type (opening)"),
        Weight("ROOK_OPEN_MG", 0, "rook on an open file, opening"),
        Weight("ROOK_OPEN_EG", 0, "rook on an open file, endgame"),
        Weight("ROOK_HALF_OPEN_MG", 0, "rook on a half-open file, opening"),
        Weight("ROOK_HALF_OPEN_EG", 0, "rook on a half-open file, endgame"),
        Weight("ROOK_SEVENTH_MG", 0, "rook on the seventh rank with the enemy king or pawns there, opening"),
        Weight("ROOK_SEVENTH_EG", 0, "the same, endgame"),
        Weight("BISHOP_PAIR_MG", 0, "bishops on both colours, opening"),
        Weight("BISHOP_PAIR_EG", 0, "bishops on both colours, endgame"),
        Weight("KNIGHT_OUTPOST_MG", 0, "knight on ranks 4-6, pawn-defended, no enemy pawn can chase it, opening"),
        Weight("KNIGHT_OUTPOST_EG", 0, "the same, endgame"),
        Weight("BISHOP_OUTPOST_MG", 0, "bishop outpost, opening"),
        Weight("BISHOP_OUTPOST_EG", 0, "bishop outpost, endgame"),
        Weight("TRAPPED_BISHOP", 0, "a7/h7 (b8/g8) bishop shut in by pawns on b6/g6 (c7/f7)"),
        Weight("TRAPPED_BISHOP_A6", 0, "a6/h6 bishop shut in by b5/g5"),
        Weight("TRAPPED_KNIGHT", 0, "a8/h8 knight with a7/c7 (h7/f7) enemy pawns"),
        Weight("TRAPPED_ROOK_MG", 0, "rook in the corner behind a king that walked instead of castling, opening"),
        Weight("TRAPPED_ROOK_EG", 0, "the same, endgame"),
        Weight("TEMPO_MG", 0, "side to move, opening"),
        Weight("TEMPO_EG", 0, "side to move, endgame"),
        Weight("THREAT_PAWN_ON_MINOR_MG", 0, "per enemy knight or bishop our pawns attack, opening"),
        Weight("THREAT_PAWN_ON_MINOR_EG", 0, "the same, endgame"),
        Weight("THREAT_PAWN_ON_MAJOR_MG", 0, "per enemy rook or queen our pawns attack, opening"),
        Weight("THREAT_PAWN_ON_MAJOR_EG", 0, "the same, endgame"),
        Weight("THREAT_MINOR_ON_MINOR_MG", 0, "per enemy knight or bishop our knights or bishops attack, opening"),
        Weight("THREAT_MINOR_ON_MINOR_EG", 0, "the same, endgame"),
        Weight("THREAT_MINOR_ON_MAJOR_MG", 0, "per enemy rook or queen our knights or bishops attack, opening"),
        Weight("THREAT_MINOR_ON_MAJOR_EG", 0, "the same, endgame"),
        Weight("THREAT_ROOK_ON_QUEEN_MG", 0, "per enemy queen our rooks attack, opening"),
        Weight("THREAT_ROOK_ON_QUEEN_EG", 0, "the same, endgame"),
        Weight("THREAT_HANGING_MG", 0, "per enemy piece (not pawn or king) we attack and nothing defends, opening"),
        Weight("THREAT_HANGING_EG", 0, "the same, endgame"),
        Weight("THREAT_WEAK_PAWN_MG", 0, "per enemy pawn we attack and nothing defends, opening"),
        Weight("THREAT_WEAK_PAWN_EG", 0, "the same, endgame"),
        Weight("THREAT_PAWN_PUSH_MG", 0, "per enemy piece a safe pawn push would attack, opening"),
        Weight("THREAT_PAWN_PUSH_EG", 0, "the same, endgame"),
    ]
    return tuple(w)


LAYOUT: tuple[Weight, ...] = _layout()
BY_NAME = {w.name: w for w in LAYOUT}

HEADER = '''\
# The evaluation weights (centipawns), included by core_ext/eval_tables.pxi.
#
# GENERATED by tools/tune/eval_weights.py for python -m tools.tune.texel ({source}).
# Edit by hand only with care; the tuner rewrites the whole file. Tables by square are board
# diagrams with rank 8 on top, from White's side (Black's tables are their mirror image); *_MG is
# the opening value and *_EG the endgame value, blended by the phase. Crafty's `evaluation`
# scales (kscale, pscale, ...) multiply these at run time.
'''


def _format_list(values: list[int], indent: str, per_line: int) -> str:
    rows = [", ".join(f"{v:4d}" for v in values[i:i + per_line]) for i in range(0, len(values), per_line)]
    return "[\n" + ",\n".join(indent + "    " + row for row in rows) + ",\n" + indent + "]"


def render(weights: dict[str, object], source: str) -> str:
    """The text of the weights file for these weights (every name of LAYOUT, nothing else)."""
    check(weights)
    out = [HEADER.format(source=source), "EVAL_WEIGHTS = {"]
    for w in LAYOUT:
        value = weights[w.name]
        out.append(f"    # {w.comment}")
        if w.length == 0:
            out.append(f'    "{w.name}": {int(value)},')    # type: ignore[call-overload]
        elif w.length == 64:
            out.append(f'    "{w.name}": {_format_list(list(value), "    ", 8)},')  # type: ignore[call-overload]
        else:
            out.append(f'    "{w.name}": {_format_list(list(value), "    ", 14)},')  # type: ignore[call-overload]
    out.append("}")
    return "\n".join(out) + "\n"


def check(weights: dict[str, object]) -> None:
    """ValueError unless the weights hold exactly the names of LAYOUT with their lengths, as integers."""
    missing = [w.name for w in LAYOUT if w.name not in weights]
    extra = [name for name in weights if name not in BY_NAME]
    if missing or extra:
        raise ValueError(f"weights: missing {missing}, unknown {extra}")
    for w in LAYOUT:
        value = weights[w.name]
        if w.length == 0:
            if not isinstance(value, int) or isinstance(value, bool):
                raise ValueError(f"weight {w.name} must be an integer, not {value!r}")
        elif (not isinstance(value, (list, tuple)) or len(value) != w.length
              or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
            raise ValueError(f"weight {w.name} must be a list of {w.length} integers")


def write(weights: dict[str, object], source: str, path: Path = WEIGHTS_FILE) -> None:
    """Write the weights file atomically (the package's temporary file and os.replace)."""
    write_atomically(path, render(weights, source))
