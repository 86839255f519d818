"""The neural evaluation's Python side: the network file, the numpy reference, and giving a
network to an evaluator of the core (ponderosa.core_ext, nnue_*.pxi, computes it). A network
belongs to the evaluators given it: nothing here is the process's."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ponderosa.engine.nnue.network_file import NetworkFileError, QuantisedNetwork, read_network

if TYPE_CHECKING:
    from ponderosa.core_ext.core import Evaluator, Network

DEFAULT_NETWORK = Path(__file__).resolve().parent / "ponderosa.nnue"


def check_shape(net: QuantisedNetwork, name: str = "network") -> None:
    """NetworkFileError unless the core computes networks of net's shape and scales."""
    from ponderosa.core_ext.core import nnue_shape
    shape = nnue_shape()
    if ((net.hidden, net.qa, net.qb, net.scale) != (shape["hidden"], shape["qa"], shape["qb"], shape["scale"])
            or net.buckets > shape["max_buckets"] or net.king_layout.count > shape["max_king_buckets"]):
        raise NetworkFileError(f"{name}: a {net.inputs}x{net.hidden} network ({net.king_layout.count} king buckets) "
                               f"with QA {net.qa}, QB {net.qb}, scale {net.scale}; this engine computes "
                               f"768x{shape['hidden']} per king bucket with QA {shape['qa']}, QB {shape['qb']}, "
                               f"scale {shape['scale']}, up to {shape['max_buckets']} output buckets and "
                               f"{shape['max_king_buckets']} king buckets")


def core_network(net: QuantisedNetwork, name: str = "network") -> Network:
    """net copied into the core, to give to evaluators (Evaluator.network); NetworkFileError when
    the core is of another shape."""
    from ponderosa.core_ext.core import Network
    check_shape(net, name)
    layout = net.king_layout
    return Network(net.ft_weights, net.ft_bias, net.out_weights, net.out_biases, layout.buckets, layout.mirror)


def install(evaluator: Evaluator, net: QuantisedNetwork, name: str = "network") -> Network:
    """Make net the evaluation of evaluator (and of the searches made on it); NetworkFileError
    when the core is of another shape. Returns the core's copy, to give to other evaluators."""
    network = core_network(net, name)
    evaluator.network = network
    return network


def load(evaluator: Evaluator, path: Path) -> QuantisedNetwork:
    """Read the network file at path and install it in evaluator; NetworkFileError (naming the
    file) leaves its evaluation as it was."""
    net = read_network(path)
    install(evaluator, net, str(path))
    return net


def remove(evaluator: Evaluator) -> None:
    """Back to the hand-written evaluation for evaluator."""
    evaluator.network = None


def active(evaluator: Evaluator) -> bool:
    """Whether evaluator evaluates with a network."""
    return bool(evaluator.network_active)


__all__ = ["DEFAULT_NETWORK", "NetworkFileError", "QuantisedNetwork", "active", "check_shape", "core_network",
           "install", "load", "read_network", "remove"]
