"""Which evaluation one engine's searches use: the network of the EvalFile setting, or the
hand-written one. The choice belongs to the engine's evaluator (the main search thread's; its
helper threads copy its network with its other settings before each search, engine/worker.py)
and to any other evaluator of the same engine given it (share_with): another engine in the same
process keeps its own. The engine changes it only while no search runs."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ponderosa.engine import nnue
from ponderosa.engine.nnue.network_file import NetworkFileError, QuantisedNetwork

if TYPE_CHECKING:
    from ponderosa.core_ext.core import Evaluator, Network

DEFAULT_NAME = "<default>"


class EvaluationChoice:
    def __init__(self, evaluator: Evaluator) -> None:
        self.evaluators = [evaluator]               # the first is the engine's own: active reads it
        self.path: Path | None = None               # the file of the network in use, or None
        self.network: QuantisedNetwork | None = None
        self.use_network = True                     # eval nnue / eval classic
        # self.network copied into the core once, when its file is read: switching between it
        # and the hand-written evaluation gives the evaluators the same copy back.
        self._core: Network | None = None

    @property
    def evaluator(self) -> Evaluator:
        return self.evaluators[0]

    def share_with(self, evaluator: Evaluator) -> None:
        """Another evaluator of the same engine (the book's) evaluates as its searches do, now
        and after every change."""
        self.evaluators.append(evaluator)
        self._apply()

    def load_default(self) -> list[str]:
        """The network shipped with the engine; messages when it cannot be used (none when the
        package ships none: the hand-written evaluation is then the engine's own choice)."""
        return self.set_file(DEFAULT_NAME)

    def set_file(self, name: str) -> list[str]:
        """Use the network in the file (DEFAULT_NAME or '': the shipped one). A file that cannot
        be used leaves the evaluation in use as it was and says why (one message)."""
        default, path = _network_file(name)
        if default:   # the hand-written evaluation by default (a known loss, for an OpenBench SPRT)
            self.network, self.path, self._core = None, None, None
            self._apply()
            return []
        try:
            network = nnue.read_network(path)
            core = nnue.core_network(network, str(path))
        except NetworkFileError as error:
            # The engine keeps what it had: a GUI's bad choice must not cost the network in use.
            self._apply()   # (at start-up: puts the hand-written evaluation in place)
            return [f"{error}; keeping {self.in_use()}"]
        self.network, self.path, self._core = network, path, core
        self.use_network = True   # a network asked for by name is the one to use
        self._apply()
        return []

    def in_use_from(self, name: str) -> bool:
        """Whether the network of this file (DEFAULT_NAME or '': the shipped one) is the one
        evaluating now: setting it again is nothing to do."""
        default, path = _network_file(name)
        if self.path is None:   # the hand-written evaluation: the default of a package without a network
            return default and not path.exists()
        return self.use_network and self.active and _same_file(path, self.path)

    def set_mode(self, mode: str) -> str:
        """`nnue` or `classic`; raises ValueError for another word or nnue without a network."""
        if mode not in ("nnue", "classic"):
            raise ValueError(f"evaluation must be nnue or classic, not {mode!r}")
        if mode == "nnue" and self.network is None:
            raise ValueError("no network loaded (EvalFile names one)")
        self.use_network = mode == "nnue"
        self._apply()
        return self.describe()

    def _apply(self) -> None:
        wanted = self._core if self.use_network else None
        for evaluator in self.evaluators:
            if evaluator.network is not wanted:
                evaluator.network = wanted

    @property
    def active(self) -> bool:
        return nnue.active(self.evaluator)

    def in_use(self) -> str:
        """What evaluates now, in a few words: `the network NAME` or `the hand-written evaluation`."""
        if self.active and self.path is not None:
            return f"the network {self.path.name}"
        return "the hand-written evaluation"

    def describe(self) -> str:
        if self.active and self.path is not None:
            return f"evaluation: network {self.path.name} ({self.network.description if self.network else ''})"
        return "evaluation: hand-written (classic)"


def _network_file(name: str) -> tuple[bool, Path]:
    """(whether the name asks for the shipped network, the file it names)."""
    default = name.strip() in ("", DEFAULT_NAME)
    return default, nnue.DEFAULT_NETWORK if default else Path(name.strip()).expanduser()


def _same_file(one: Path, other: Path) -> bool:
    try:
        return one.resolve() == other.resolve()
    except OSError:
        return False
