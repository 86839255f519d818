"""`book export`: the opening book as a standard Polyglot file, weighted by the selection rules.

A book built from 145,716 games holds 7.4 million positions, nearly all with one move seen in a
few games. Ranking them one by one in Python took 8 minutes, so the export works in bulk: the
large book's rows are read into arrays, positions whose one move has the same statistics share
one ranking (the chances depend on the statistics, never on the move's name), and only the
positions with several moves, a start-book entry or learned data are ranked one by one."""
from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from ponderosa.engine.book.file import (
    CASTLING_BIT,
    POLYGLOT_ENTRY_SIZE,
    AtomicOutput,
    BookEntry,
    OpeningBookFile,
    decode_move,
    encode_move,
    write_polyglot_in_key_order,
)
from ponderosa.engine.book.opening_book import BookSource, OpeningBook, merge_entries
from ponderosa.engine.book.select import BookSettings, Candidate, rank

POLYGLOT_WEIGHT_SCALE = 10000   # a move certain to be chosen gets this weight
STATISTICS_CACHE_SIZE = 500_000  # rankings of several-move positions kept during an export
ANY_MOVE = "a1a2"               # the name given to a move ranked for its statistics alone


def export_settings(book: OpeningBook) -> BookSettings:
    """book random 0 has no chances (it searches the book moves): it is exported as random 1."""
    return replace(book.settings, random_mode=1) if book.settings.random_mode == 0 else book.settings


def position_weights(book: OpeningBook, settings: BookSettings, key: int, large: dict[str, BookEntry],
                     start: dict[str, BookEntry], learned_keys: set[int]) -> list[tuple[str, bool, int]]:
    """(move, is castling, weight) of one position's moves, weight 0 for those never chosen. A key
    alone gives no board, so the eval term is left out (0 for every move)."""
    if key in learned_keys:
        user_values, learned = book.learned.user_values(key), book.learned.learned_moves(key)
    else:
        user_values, learned = {}, {}
    moves = {**large, **start}
    candidates = [merge_entries(move, large.get(move), start.get(move), user_values.get(move), learned.get(move))
                  for move in moves]
    chances = {id(ranked.candidate): ranked.probability for ranked in rank(candidates, settings).ranked}
    return [(candidate.move, moves[candidate.move].castling, round(chances[id(candidate)] * POLYGLOT_WEIGHT_SCALE))
            for candidate in candidates]


def _grouped_by_key(source: BookSource | None) -> Iterator[tuple[int, dict[str, BookEntry]]]:
    """(key, {move: entry}) per position, in ascending unsigned key order, streamed from a book."""
    if source is None:
        return
    for key, group in itertools.groupby(source.iter_entries(), key=lambda item: item[0]):
        yield key, {entry.move: entry for _, entry in group}


def export_weights(book: OpeningBook) -> Iterator[tuple[int, str, int, bool]]:
    """(key, move, weight, is castling) for every playable move of both books, in key order,
    one position at a time: the general way, for any kind of large book."""
    settings, learned_keys = export_settings(book), book.learned.learned_keys()
    large, start = _grouped_by_key(book.large), _grouped_by_key(book.start)
    next_large, next_start = next(large, None), next(start, None)
    while next_large is not None or next_start is not None:
        if next_start is None or (next_large is not None and next_large[0] < next_start[0]):
            assert next_large is not None
            key, large_moves, start_moves = next_large[0], next_large[1], {}
            next_large = next(large, None)
        elif next_large is None or next_start[0] < next_large[0]:
            key, large_moves, start_moves = next_start[0], {}, next_start[1]
            next_start = next(start, None)
        else:
            key, large_moves, start_moves = next_large[0], next_large[1], next_start[1]
            next_large, next_start = next(large, None), next(start, None)
        for move, castling, weight in position_weights(book, settings, key, large_moves, start_moves, learned_keys):
            if weight > 0:
                yield key, move, weight, castling


def export_polyglot(book: OpeningBook, path: str) -> int:
    """Write the book as a standard Polyglot file (atomically); returns the number of entries."""
    if isinstance(book.large, OpeningBookFile):
        return _export_in_bulk(book, book.large, path)
    return write_polyglot_in_key_order(path, export_weights(book))


def _export_in_bulk(book: OpeningBook, large: OpeningBookFile, path: str) -> int:
    import numpy as np  # loaded only for an export, as for a build

    try:
        chunks = [np.array(rows, dtype=np.int64).reshape(-1, 4) for rows in large.packed_rows()]
    except ValueError:   # counts too large to pack: the general way
        return write_polyglot_in_key_order(path, export_weights(book))
    packed = np.concatenate(chunks) if chunks else np.zeros((0, 4), dtype=np.int64)
    del chunks
    keys = packed[:, 0].copy().view(np.uint64)   # already in unsigned key order
    low21 = (1 << 21) - 1
    # Columns as stored: move code, games, wins, draws, losses, flags, play percent.
    rows = np.stack([packed[:, 1] & 0xFFFF, packed[:, 2] & low21, packed[:, 2] >> 21, packed[:, 3] & low21,
                     packed[:, 3] >> 21, (packed[:, 1] >> 16) & 0xFF, packed[:, 1] >> 24], axis=1)
    del packed
    first_rows = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]]) if len(keys) else np.zeros(0, dtype=np.int64)
    sizes = np.diff(np.r_[first_rows, len(keys)])

    settings, learned_keys = export_settings(book), book.learned.learned_keys()
    start_positions = dict(_grouped_by_key(book.start))
    # Positions with a start-book entry or learned data are always ranked one by one.
    special_keys = learned_keys | set(start_positions)
    simple = (sizes == 1) & ~np.isin(keys[first_rows], np.array(sorted(special_keys), dtype=np.uint64))

    # One move alone in its position, with nothing learned or set by hand: its chance is a
    # function of its statistics (games, wins, draws, losses, flags, play percent).
    simple_rows = first_rows[simple]
    statistics, inverse = _unique_rows(np, rows[simple_rows, 1:])
    weights_by_statistics = np.array(
        [_lone_move_weight(settings, *(int(value) for value in row)) for row in statistics], dtype=np.int64)
    out_keys = [keys[simple_rows]]
    out_codes = [rows[simple_rows, 0]]
    out_weights = [weights_by_statistics[inverse]]

    # Everything else, one position at a time.
    other_keys: list[int] = []
    other_codes: list[int] = []
    other_weights: list[int] = []

    def add(key: int, position: list[tuple[str, bool, int]]) -> None:
        for move, castling, weight in position:
            other_keys.append(key)
            other_codes.append(encode_move(move, castling))
            other_weights.append(weight)

    # Positions of the large book alone with nothing learned share rankings by their moves'
    # statistics in order, as lone moves do.
    weights_by_position_statistics: dict[tuple, list[int]] = {}
    for first, size in zip(first_rows[~simple].tolist(), sizes[~simple].tolist()):
        key = int(keys[first])
        position_rows = rows[first:first + size].tolist()
        statistics_key = tuple(tuple(row[1:]) for row in position_rows)
        # (Two codes for one UCI text, castling and not, are one move to the rules: no sharing then.)
        shareable = key not in special_keys and len({row[0] & ~CASTLING_BIT for row in position_rows}) == size
        weights = weights_by_position_statistics.get(statistics_key) if shareable else None
        if weights is None:
            large_moves = {entry.move: entry for entry in map(_entry, position_rows)}
            position = position_weights(book, settings, key, large_moves, start_positions.pop(key, {}), learned_keys)
            if shareable and len(weights_by_position_statistics) < STATISTICS_CACHE_SIZE:
                weights_by_position_statistics[statistics_key] = [weight for _, _, weight in position]
            add(key, position)
        else:
            for row, weight in zip(position_rows, weights):
                other_keys.append(key)
                other_codes.append(row[0])
                other_weights.append(weight)
    for key, start_moves in start_positions.items():   # positions only the start book has
        add(key, position_weights(book, settings, key, {}, start_moves, learned_keys))
    out_keys.append(np.array(other_keys, dtype=np.uint64))
    out_codes.append(np.array(other_codes, dtype=np.int64))
    out_weights.append(np.array(other_weights, dtype=np.int64))

    keys_out, codes_out, weights_out = (np.concatenate(parts) for parts in (out_keys, out_codes, out_weights))
    playable = weights_out > 0
    keys_out, codes_out, weights_out = keys_out[playable], codes_out[playable], weights_out[playable]
    raw_moves = _polyglot_raw_moves(codes_out)
    # Polyglot's order: by key, then by weight from high to low (then by move, for a stable file).
    order = np.lexsort((raw_moves, -weights_out, keys_out))
    records = np.zeros(len(order), dtype=[("key", ">u8"), ("move", ">u2"), ("weight", ">u2"), ("learn", ">u4")])
    assert records.dtype.itemsize == POLYGLOT_ENTRY_SIZE
    records["key"], records["move"], records["weight"] = keys_out[order], raw_moves[order], weights_out[order]
    with AtomicOutput(path) as output:
        records.tofile(output.temp_path)
    return len(records)


def _unique_rows(np: Any, table: Any) -> tuple[Any, Any]:
    """(distinct rows, index of each row's distinct row) of a table of small non-negative
    integers: each row is packed into one int64 when the columns' ranges allow (a fast 1-D
    unique), else sorted column by column."""
    if len(table) == 0:
        return table, np.zeros(0, dtype=np.int64)
    bits = [max(1, int(column.max()).bit_length()) for column in table.T]
    if sum(bits) <= 63:
        packed = np.zeros(len(table), dtype=np.int64)
        for column, width in zip(table.T, bits):
            packed = (packed << width) | column
        _, first, inverse = np.unique(packed, return_index=True, return_inverse=True)
        return table[first], inverse.reshape(-1)
    order = np.lexsort(table.T[::-1])
    ordered = table[order]
    starts = np.r_[True, np.any(ordered[1:] != ordered[:-1], axis=1)]
    group = np.cumsum(starts) - 1
    inverse = np.empty(len(table), dtype=np.int64)
    inverse[order] = group
    return ordered[starts], inverse


def _entry(row: Any) -> BookEntry:
    """A row (move code, games, wins, draws, losses, flags, play percent) as a book entry."""
    code, games, wins, draws, losses, flags, play_percent = (int(value) for value in row)
    return BookEntry(decode_move(code), games, wins, draws, losses, flags, play_percent,
                     castling=bool(code & CASTLING_BIT))


def _lone_move_weight(settings: BookSettings, games: int, wins: int, draws: int, losses: int, flags: int,
                      play_percent: int) -> int:
    entry = BookEntry(ANY_MOVE, games, wins, draws, losses, flags, play_percent)
    candidate: Candidate = merge_entries(ANY_MOVE, entry, None, None)
    return round(rank([candidate], settings).ranked[0].probability * POLYGLOT_WEIGHT_SCALE)


def _polyglot_raw_moves(codes: Any) -> Any:
    """Ponderosa's move codes (from | to << 6 | promotion << 12 | castling << 15) as Polyglot's
    (to | from << 6 | promotion << 12), castling written as the king taking its own rook."""
    import numpy as np

    from_square = codes & 63
    to_square = (codes >> 6) & 63
    promotion = (codes >> 12) & 7
    rook_square = (from_square & ~7) + np.where(to_square > from_square, 7, 0)
    to_square = np.where((codes & CASTLING_BIT) != 0, rook_square, to_square)
    return (to_square | from_square << 6 | promotion << 12).astype(np.uint16)
