# Included by core.pyx: the network's weights as the core computes them (Network) and the shape
# the core was compiled for. The file format, its checks and the float reference live in
# ponderosa.engine.nnue; the core takes arrays already checked for shape and copies them. A
# network belongs to the evaluators it is given to (Evaluator.network, evaluator.pxi): nothing
# here is shared by the process but the counter that numbers networks.


cdef uint64_t NNUE_SERIAL = 0   # the last network's serial (only ever counted up, with the GIL held)


def nnue_shape() -> dict:
    """The network shape and integer scales this core was compiled for."""
    return {"inputs": NNUE_INPUTS, "hidden": NNUE_HIDDEN, "qa": NNUE_QA, "qb": NNUE_QB,
            "scale": NNUE_SCALE, "max_buckets": NNUE_MAX_BUCKETS, "max_king_buckets": NNUE_MAX_KING_BUCKETS}


cdef class Network:
    """A network's quantised weights, copied into the core: give it to evaluators
    (Evaluator.network), each of which then evaluates with it. Its memory lives as long as the
    object, which every evaluator given it holds."""

    def __cinit__(self, const int16_t[::1] ft_weights not None, const int16_t[::1] ft_bias not None,
                  const int16_t[::1] out_weights not None, out_biases, king_buckets=bytes(64), bint king_mirror=False):
        """out_weights: 2 x NNUE_HIDDEN per output bucket, bucket by bucket; out_biases: one
        integer per bucket (1 to NNUE_MAX_BUCKETS of them); king_buckets: the king bucket of each
        of the 64 squares (seen from the perspective), numbered from 0; ft_weights: NNUE_INPUTS
        columns per king bucket."""
        global NNUE_SERIAL
        cdef int i
        cdef int buckets = len(out_biases)
        cdef bytes layout = bytes(king_buckets)
        cdef int king_sets = max(layout) + 1 if len(layout) == 64 else 0
        if (not 1 <= king_sets <= NNUE_MAX_KING_BUCKETS or len(set(layout)) != king_sets
                or ft_weights.shape[0] != king_sets * NNUE_INPUTS * NNUE_HIDDEN or ft_bias.shape[0] != NNUE_HIDDEN
                or not 1 <= buckets <= NNUE_MAX_BUCKETS or out_weights.shape[0] != buckets * 2 * NNUE_HIDDEN):
            raise ValueError(f"network shape differs from the core's ({NNUE_INPUTS} x 1 to {NNUE_MAX_KING_BUCKETS} "
                             f"king buckets)x{NNUE_HIDDEN}x(1 to {NNUE_MAX_BUCKETS} output buckets)")
        self.net = <NNUENetwork*>calloc(1, sizeof(NNUENetwork))
        if self.net == NULL:
            raise MemoryError("no memory for the network")
        self.net.ft_weights = <int16_t*>malloc(king_sets * NNUE_INPUTS * NNUE_HIDDEN * sizeof(int16_t))
        if self.net.ft_weights == NULL:
            raise MemoryError("no memory for the network")
        memcpy(self.net.ft_weights, &ft_weights[0], king_sets * NNUE_INPUTS * NNUE_HIDDEN * sizeof(int16_t))
        memcpy(self.net.ft_bias, &ft_bias[0], sizeof(self.net.ft_bias))
        memcpy(self.net.out_weights, &out_weights[0], buckets * 2 * NNUE_HIDDEN * sizeof(int16_t))
        for i in range(buckets):
            self.net.out_bias[i] = out_biases[i]
        self.net.king_buckets = king_sets
        for i in range(64):
            self.net.king_bucket[i] = layout[i]
        self.net.king_mirror = king_mirror
        self.net.buckets = buckets
        self.net.narrow_output = True
        for i in range(buckets * 2 * NNUE_HIDDEN):
            if out_weights[i] > NNUE_NARROW_WEIGHT or out_weights[i] < -NNUE_NARROW_WEIGHT:
                self.net.narrow_output = False
        # Odd steps: every network of the process a different serial, never 0 (an empty refresh
        # cache's). An evaluator's accumulators keep the serial of the network that computed them,
        # so one given another network (even one allocated where a freed one was) recomputes them.
        NNUE_SERIAL += 0x9E3779B97F4A7C15ULL
        self.net.serial = NNUE_SERIAL

    def __dealloc__(self):
        if self.net != NULL:
            free(self.net.ft_weights)
        free(self.net)
        self.net = NULL

    @property
    def serial(self) -> int:
        """The number telling this network's accumulators from another's."""
        return self.net.serial
