"""The neural evaluation's Python side: the network file, the numpy reference, and loading a
network into the core (ponderosa.core_ext, nnue_*.pxi, computes it)."""
from __future__ import annotations

from pathlib import Path

from ponderosa.engine.nnue.network_file import NetworkFileError, QuantisedNetwork, read_network

DEFAULT_NETWORK = Path(__file__).resolve().parent / "ponderosa.nnue"


def check_shape(net: QuantisedNetwork, name: str = "network") -> None:
    """NetworkFileError unless the core computes networks of net's shape and scales."""
    from ponderosa.core_ext.evaluate import nnue_shape
    shape = nnue_shape()
    if (net.hidden, net.qa, net.qb, net.scale) != (shape["hidden"], shape["qa"], shape["qb"], shape["scale"]):
        raise NetworkFileError(f"{name}: a 768x{net.hidden} network with QA {net.qa}, QB {net.qb}, scale {net.scale}; "
                               f"this engine computes 768x{shape['hidden']} with QA {shape['qa']}, "
                               f"QB {shape['qb']}, scale {shape['scale']}")


def install(net: QuantisedNetwork, name: str = "network") -> None:
    """Make net the evaluation of every search; NetworkFileError when the core is of another shape."""
    from ponderosa.core_ext.evaluate import nnue_install
    check_shape(net, name)
    nnue_install(net.ft_weights, net.ft_bias, net.out_weights, net.out_bias)


def load(path: Path) -> QuantisedNetwork:
    """Read the network file at path and install it; NetworkFileError (naming the file) leaves the
    evaluation as it was."""
    net = read_network(path)
    install(net, str(path))
    return net


def remove() -> None:
    """Back to the hand-written evaluation."""
    from ponderosa.core_ext.evaluate import nnue_remove
    nnue_remove()


def active() -> bool:
    from ponderosa.core_ext.evaluate import nnue_active
    return nnue_active()


__all__ = ["DEFAULT_NETWORK", "NetworkFileError", "QuantisedNetwork", "active", "check_shape", "install", "load",
           "read_network", "remove"]
