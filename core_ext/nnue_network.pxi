# Included by core.pyx: the loaded network (NNUE_NET) and its Python face. The file format, its
# checks and the float reference live in ponderosa.engine.nnue; the core takes arrays already
# checked for shape and copies them.


cdef uint64_t NNUE_SERIAL = 0


def nnue_shape() -> dict:
    """The network shape and integer scales this core was compiled for."""
    return {"inputs": NNUE_INPUTS, "hidden": NNUE_HIDDEN, "qa": NNUE_QA, "qb": NNUE_QB,
            "scale": NNUE_SCALE}


def nnue_install(const int16_t[::1] ft_weights, const int16_t[::1] ft_bias,
                 const int16_t[::1] out_weights, int out_bias) -> None:
    """Make these quantised weights the evaluation of every search (a copy is kept). The engine
    changes networks only while no search runs; a search that does run on meanwhile finishes each
    evaluation with the network it started it with."""
    global NNUE_NET
    if (ft_weights.shape[0] != NNUE_INPUTS * NNUE_HIDDEN or ft_bias.shape[0] != NNUE_HIDDEN
            or out_weights.shape[0] != 2 * NNUE_HIDDEN):
        raise ValueError(f"network shape differs from the core's {NNUE_INPUTS}x{NNUE_HIDDEN}x1")
    cdef NNUENetwork* net = <NNUENetwork*>malloc(sizeof(NNUENetwork))
    cdef int i
    if net == NULL:
        raise MemoryError("no memory for the network")
    global NNUE_SERIAL
    memcpy(net.ft_weights, &ft_weights[0], sizeof(net.ft_weights))
    memcpy(net.ft_bias, &ft_bias[0], sizeof(net.ft_bias))
    memcpy(net.out_weights, &out_weights[0], sizeof(net.out_weights))
    net.out_bias = out_bias
    net.narrow_output = True
    for i in range(2 * NNUE_HIDDEN):
        if out_weights[i] > NNUE_NARROW_WEIGHT or out_weights[i] < -NNUE_NARROW_WEIGHT:
            net.narrow_output = False
    NNUE_SERIAL += 0x9E3779B97F4A7C15ULL   # odd steps: every network a different serial
    net.serial = NNUE_SERIAL
    # The old network is not freed: a search on another thread may still be reading it (a
    # replaced network costs its 400 KB, and networks are replaced by a person, not in a loop).
    NNUE_NET = net


def nnue_remove() -> None:
    """Back to the hand-written evaluation (no search may be running)."""
    global NNUE_NET
    NNUE_NET = NULL   # not freed, as in nnue_install


def nnue_active() -> bool:
    """Whether the searches evaluate with a network."""
    return NNUE_NET != NULL
