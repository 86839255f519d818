# Included by syzygy.pxi (part of core.pyx, the core's one C unit): the index tables built at import and the squares' symmetries.

cdef inline int offdiag(int sq) noexcept nogil:
    return (sq >> 3) - (sq & 7)


cdef inline int flipdiag(int sq) noexcept nogil:
    return ((sq >> 3) | (sq << 3)) & 63


cdef void init_index_tables() noexcept nogil:
    cdef int n, k, sq, code, idx, s1, s2, f, r, j, t
    cdef int diag_first[10]
    cdef int pending_idx[64]
    cdef int pending_sq[64]
    cdef int pending = 0
    cdef uint64_t total
    for n in range(65):
        for k in range(8):
            if k == 0:
                BINOM[n][k] = 1
            elif n == 0:
                BINOM[n][k] = 0
            else:
                BINOM[n][k] = BINOM[n - 1][k - 1] + BINOM[n - 1][k]
    for sq in range(64):
        TRIANGLE[sq] = -1
        LOWER[sq] = -1
        FLAP[sq] = 0
        PTWIST[sq] = 0
    code = 0
    for sq in range(64):
        if offdiag(sq) < 0 and (sq & 7) <= 3 and (sq >> 3) <= 3:
            TRIANGLE[sq] = code
            code += 1
    for sq in range(0, 28, 9):   # a1, b2, c3, d4 come after the off-diagonal squares
        TRIANGLE[sq] = code
        code += 1
    code = 0
    for sq in range(64):
        if offdiag(sq) < 0:
            LOWER[sq] = code
            code += 1
    # King pairs: the first in the triangle; on the diagonal, the second not above it.
    # Pairs with both kings on the diagonal come last.
    code = 0
    for idx in range(10):
        for s1 in range(64):
            if TRIANGLE[s1] != idx:
                continue
            for s2 in range(64):
                KK_IDX[idx][s2] = -1
                if (s1 >> 3) - (s2 >> 3) in (-1, 0, 1) and (s1 & 7) - (s2 & 7) in (-1, 0, 1):
                    continue
                if offdiag(s1) == 0 and offdiag(s2) > 0:
                    continue
                if offdiag(s1) == 0 and offdiag(s2) == 0:
                    pending_idx[pending] = idx
                    pending_sq[pending] = s2
                    pending += 1
                    continue
                KK_IDX[idx][s2] = code
                code += 1
    for j in range(pending):
        KK_IDX[pending_idx[j]][pending_sq[j]] = code
        code += 1
    for sq in range(8, 56):
        f = sq & 7
        r = sq >> 3
        t = f if f < 4 else 7 - f
        FLAP[sq] = t * 6 + r - 1
        PTWIST[sq] = 47 - (1 if f >= 4 else 0) - 2 * (r - 1) - 12 * t
    for j in range(24):
        INVFLAP[j] = (j % 6 + 1) * 8 + j // 6
    for k in range(6):
        for f in range(4):
            total = 0
            for j in range(f * 6, f * 6 + 6):
                PAWNIDX[k][j] = total
                total += 1 if k == 0 else BINOM[PTWIST[INVFLAP[j]]][k]
            PFACTOR[k][f] = total


init_index_tables()


cdef inline uint64_t binom(int n, int k) noexcept nogil:
    if n < 0 or k < 0 or k > 7 or n > 64:
        return 0
    return BINOM[n][k]

