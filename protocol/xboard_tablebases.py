"""XBoard's tablebase commands: `egtpath syzygy PATH`, options SyzygyPath and SyzygyProbeDepth.

A mixin of XBoardSession: a path sent during a search waits for its end (the engine's rule)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ponderosa.engine.tablebases import PROBE_DEPTH_RANGE

if TYPE_CHECKING:
    from ponderosa.engine.engine import Engine
    from ponderosa.protocol.xboard import Output

EGT_FEATURE = 'egt="syzygy"'


class XBoardTablebases:
    """`egtpath`, the Syzygy options, and the messages about unusable tables."""

    engine: Engine
    out: Output

    def tablebase_features(self) -> list[str]:
        low, high = PROBE_DEPTH_RANGE
        return [EGT_FEATURE, f'option="SyzygyPath -path {self.engine.tablebases.path}"',
                f'option="SyzygyProbeDepth -spin {self.engine.tablebases.probe_depth} {low} {high}"']

    def cmd_egtpath(self, args: str) -> None:
        kind, _, path = args.strip().partition(" ")
        if kind.lower() != "syzygy":
            return   # only formats listed in feature egt are ever sent; others are ignored
        self._set_tablebase_path(path.strip())

    def tablebase_option(self, name: str, value: str) -> bool:
        """Handle option SyzygyPath/SyzygyProbeDepth; False for any other option."""
        if name == "SyzygyPath":
            self._set_tablebase_path(value)
        elif name == "SyzygyProbeDepth":
            low, high = PROBE_DEPTH_RANGE
            if not value.lstrip("-").isdigit():
                self.out.line(f"Error (bad option value): option {name}={value}")
            else:
                self.engine.tablebases.set_probe_depth(min(max(low, int(value)), high))
        else:
            return False
        return True

    def _set_tablebase_path(self, path: str) -> None:
        self.report_tablebase_problems()
        self.report_tablebase_path(self.engine.set_tablebase_path(path))

    def report_tablebase_path(self, messages: list[str] | None) -> None:
        """The tables changed (messages not None): what could not be used, then what was found."""
        if messages is None:
            return
        for message in messages:
            self.out.line(f"telluser Syzygy: {message}")
        self.out.line(f"# {self.engine.tablebases.summary()}")

    def report_tablebase_problems(self) -> None:
        """Tables found broken during a search (they are no longer used)."""
        for message in self.engine.tablebases.new_problems():
            self.out.line(f"telluser Syzygy: {message}")
