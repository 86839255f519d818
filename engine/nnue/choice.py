"""Which evaluation the searches use: the network of the EvalFile setting, or the hand-written
one. The choice is the process's (the core holds one network for all search threads); the engine
owns one EvaluationChoice and changes it only while no search runs."""
from __future__ import annotations

from pathlib import Path

from ponderosa.engine import nnue
from ponderosa.engine.nnue.network_file import NetworkFileError, QuantisedNetwork

DEFAULT_NAME = "<default>"
_NOTHING_YET = object()


class EvaluationChoice:
    def __init__(self) -> None:
        self.path: Path | None = None               # the file of the network in use, or None
        self.network: QuantisedNetwork | None = None
        self.use_network = True                     # eval nnue / eval classic
        # What _apply last put in the core: each install is a copy the core keeps for good (a
        # search may still read a replaced network), so nothing is installed twice. Unset at
        # first, so the first _apply always acts.
        self._installed: object = _NOTHING_YET

    def load_default(self) -> list[str]:
        """The network shipped with the engine; messages when it cannot be used (none when the
        package ships none: the hand-written evaluation is then the engine's own choice)."""
        return self.set_file(DEFAULT_NAME)

    def set_file(self, name: str) -> list[str]:
        """Use the network in the file (DEFAULT_NAME or '': the shipped one). A file that cannot
        be used leaves the evaluation in use as it was and says why (one message)."""
        default = name.strip() in ("", DEFAULT_NAME)
        path = nnue.DEFAULT_NETWORK if default else Path(name.strip()).expanduser()
        if default and not path.exists():   # a package without a network: the hand-written one is the default
            self.network, self.path = None, None
            self._apply()
            return []
        try:
            network = nnue.read_network(path)
            nnue.check_shape(network, str(path))
        except NetworkFileError as error:
            # The engine keeps what it had: a GUI's bad choice must not cost the network in use.
            self._apply()   # (at start-up: puts the hand-written evaluation in place)
            return [f"{error}; keeping {self.in_use()}"]
        self.network, self.path = network, path
        self.use_network = True   # a network asked for by name is the one to use
        self._apply()
        return []

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
        wanted = self.network if self.use_network else None
        if wanted is self._installed:
            return
        if wanted is None:
            nnue.remove()
        else:
            nnue.install(wanted, str(self.path))
        self._installed = wanted

    @property
    def active(self) -> bool:
        return nnue.active()

    def in_use(self) -> str:
        """What evaluates now, in a few words: `the network NAME` or `the hand-written evaluation`."""
        if self.active and self.path is not None:
            return f"the network {self.path.name}"
        return "the hand-written evaluation"

    def describe(self) -> str:
        if self.active and self.path is not None:
            return f"evaluation: network {self.path.name} ({self.network.description if self.network else ''})"
        return "evaluation: hand-written (classic)"
