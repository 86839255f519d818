# cython: language_level=3
"""The static evaluation's Python side (Evaluator, the weights): compiled in
ponderosa.core_ext.core (the core's one C unit, from eval_main.pxi and eval_*.pxi); this module
keeps its import path."""
from ponderosa.core_ext.core import (
    EVAL_WEIGHTS, SCALE_LIMITS, SCALE_NAMES, TERM_NAMES, Evaluator, Network, default_weights, get_weights,
    set_weights, nnue_shape,
)

__all__ = ["EVAL_WEIGHTS", "SCALE_LIMITS", "SCALE_NAMES", "TERM_NAMES", "Evaluator", "Network", "default_weights",
           "get_weights", "set_weights", "nnue_shape"]
