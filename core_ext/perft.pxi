# Included by core.pyx, the core's one C unit:
# Perft with bulk counting: at the last ply the legal moves are counted (count_legal), neither
# made nor listed.

cdef uint64_t perft(Position* pos, int depth) noexcept nogil:
    cdef Move moves[MAX_MOVES]
    cdef int n, i
    cdef uint64_t total = 0
    if depth <= 0:
        return 1
    if depth == 1:
        return count_legal(pos)
    n = generate_legal(pos, moves)
    for i in range(n):
        do_move(pos, moves[i])
        total += perft(pos, depth - 1)
        undo_move(pos)
    return total
