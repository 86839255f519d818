"""A place in XBoard's engine list: the plugin files (`xboard/ponderosa.eng` and
`logos/ponderosa.png`, the layout of /usr/share/games/plugins that XBoard's autoInstall scans)
and a line in the user's ~/.xboardrc engine list. Every file is written atomically."""
from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from ponderosa.engine.identity import NAME

ENGINE_TITLE = NAME
PLUGIN_NAME = "ponderosa"
MASTER_SETTINGS = Path("/etc/xboard/xboard.conf")
ENGINE_LIST = re.compile(r"^-firstChessProgramNames\s*\{(.*?)^\}", re.MULTILINE | re.DOTALL)


@dataclass(frozen=True)
class Installed:
    plugin: Path           # the .eng file
    logo: Path
    settings: Path | None  # the ~/.xboardrc that lists the engine (None: left alone)


def default_plugin_root() -> Path:
    """The user's copy of the plugin layout: $XDG_DATA_HOME/games/plugins (~/.local/share/...)."""
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data) / "games" / "plugins"


def program_file() -> str | None:
    """The one file this engine runs from, if it is one: the zip application `make` builds
    (tools/binary/build.py), whose start module was loaded from the zip, or a frozen executable
    (PyInstaller and the like set sys.frozen and make sys.executable the program)."""
    loader = getattr(sys.modules.get("__main__"), "__loader__", None)
    archive = getattr(loader, "archive", None)   # only a zipimporter has one
    if isinstance(archive, str) and os.path.isfile(archive):
        return os.path.abspath(archive)
    if getattr(sys, "frozen", False):
        return os.path.abspath(sys.executable)
    return None


def engine_command() -> str:
    """How XBoard should start this engine: the one file it runs from, else the installed
    `ponderosa` beside this Python, else the one on the PATH."""
    single = program_file()
    if single is not None:
        return single
    beside = Path(sys.executable).with_name("ponderosa")
    return str(beside) if beside.exists() else (shutil.which("ponderosa") or "ponderosa")


def plugin_text(command: str) -> str:
    """The plugin file: spec line, the command that starts the engine, the variants it plays."""
    return f"plugin spec 0.0\n{command}\nchess\n"


def engine_list_line(command: str) -> str:
    """One -firstChessProgramNames entry: the name shown, and the command (XBoard protocol).
    (No logo option here: XBoard's -firstLogo is the White side's, whichever side the engine plays;
    XBoard finds logos/ponderosa.png itself with -autoLogo and -logoDir.)"""
    return f'"{ENGINE_TITLE}" -fcp "{command} --xboard"'


def write_atomically(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def add_to_engine_list(settings: str, line: str, master: str | None) -> str:
    """The settings text with `line` in its engine list (replacing an older Ponderosa entry). A
    file without a list gets one that starts from the master settings' list, which it replaces."""
    match = ENGINE_LIST.search(settings)
    if match is None:
        entries = []
        master_match = ENGINE_LIST.search(master or "")
        if master_match is not None:
            entries = [entry for entry in master_match.group(1).splitlines() if entry.strip()]
        block = "-firstChessProgramNames {" + "\n".join([line] + entries) + "\n}\n"
        return settings + ("" if not settings or settings.endswith("\n") else "\n") + block
    entries = [entry for entry in match.group(1).splitlines()
               if entry.strip() and not entry.startswith(f'"{ENGINE_TITLE}"')]
    block = "-firstChessProgramNames {" + "\n".join([line] + entries) + "\n}"
    return settings[:match.start()] + block + settings[match.end():]


def install_xboard(plugin_root: Path | None = None, settings: Path | None = None,
                   command: str | None = None) -> Installed:
    """Write the plugin files under plugin_root (the user's by default) and list the engine in
    the user's XBoard settings (settings=None: ~/.xboardrc; pass a path to use another)."""
    root = plugin_root or default_plugin_root()
    command = command or engine_command()
    plugin = root / "xboard" / f"{PLUGIN_NAME}.eng"
    logo = root / "logos" / f"{PLUGIN_NAME}.png"
    write_atomically(plugin, plugin_text(command).encode())
    write_atomically(logo, resources.files("ponderosa.protocol").joinpath("ponderosa.png").read_bytes())
    rc = settings or Path.home() / ".xboardrc"
    current = rc.read_text(encoding="utf-8", errors="replace") if rc.exists() else ""
    master = MASTER_SETTINGS.read_text(encoding="utf-8", errors="replace") if MASTER_SETTINGS.exists() else None
    write_atomically(rc, add_to_engine_list(current, engine_list_line(command), master).encode())
    return Installed(plugin, logo, rc)
