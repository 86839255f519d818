"""XBoard registration: `install xboard` writes the plugin file and the logo, and lists the engine
once in the user's settings file, keeping the engines already there (or the master list)."""
from __future__ import annotations

import io
import subprocess
from pathlib import Path

from ponderosa.engine.engine import Engine
from ponderosa.protocol.console import Console
from ponderosa.protocol.xboard import registration
from ponderosa.protocol.xboard.registration import add_to_engine_list, install_xboard, plugin_text

from tests.uci_harness import program

MASTER = """-firstChessProgram fairymax
-firstChessProgramNames {fairymax
"GNU Chess" -fcp gnuchess
}
-niceEngines 0
"""


def test_install_writes_plugin_logo_and_engine_list(tmp_path: Path, monkeypatch) -> None:
    master = tmp_path / "xboard.conf"
    master.write_text(MASTER)
    monkeypatch.setattr(registration, "MASTER_SETTINGS", master)
    rc = tmp_path / "home" / ".xboardrc"
    installed = install_xboard(tmp_path / "plugins", rc, command="/opt/bin/ponderosa")
    assert installed.plugin.read_text() == "plugin spec 0.0\n/opt/bin/ponderosa\nchess\n"
    logo = installed.logo.read_bytes()
    assert logo.startswith(b"\x89PNG\r\n\x1a\n") and logo[16:24] == (100).to_bytes(4, "big") + (50).to_bytes(4, "big")
    text = rc.read_text()
    assert '"Ponderosa" -fcp "/opt/bin/ponderosa --xboard"' in text and '"GNU Chess" -fcp gnuchess' in text
    install_xboard(tmp_path / "plugins", rc, command="/usr/bin/ponderosa")   # again, elsewhere: one entry
    text = rc.read_text()
    assert text.count('"Ponderosa"') == 1 and "/usr/bin/ponderosa --xboard" in text and "fairymax" in text
    assert not [path for path in rc.parent.iterdir() if path.name.startswith(".xboardrc.")]   # no temp left


def test_engine_list_is_edited_in_place() -> None:
    settings = '-size 49\n-firstChessProgramNames {fairymax\n"Crafty" -fcp crafty\n}\n-autoLogo true\n'
    edited = add_to_engine_list(settings, '"Ponderosa" -fcp "p --xboard"', None)
    assert edited == ('-size 49\n-firstChessProgramNames {"Ponderosa" -fcp "p --xboard"\nfairymax\n'
                      '"Crafty" -fcp crafty\n}\n-autoLogo true\n')
    assert add_to_engine_list("", '"Ponderosa" -fcp p', None) == '-firstChessProgramNames {"Ponderosa" -fcp p\n}\n'
    assert plugin_text("ponderosa").splitlines() == ["plugin spec 0.0", "ponderosa", "chess"]


def test_console_install_command(tmp_path: Path) -> None:
    out = io.StringIO()
    console = Console(Engine(), out)
    console.execute(f"install xboard {tmp_path / 'plugins'} {tmp_path / 'rc'}")
    console.execute("install nowhere")
    console.execute("help install")
    text = out.getvalue()
    assert (tmp_path / "plugins" / "xboard" / "ponderosa.eng").is_file() and (tmp_path / "rc").is_file()
    assert "plugin file:" in text and "usage: install xboard" in text and "install xboard [DIR [RCFILE]]" in text


def test_the_installed_command_starts_the_engine_in_xboard_mode(tmp_path: Path) -> None:
    rc = tmp_path / "rc"
    install_xboard(tmp_path / "plugins", rc)
    command = rc.read_text().split('-fcp "')[1].split('"')[0].split()
    done = subprocess.run(command, input="xboard\nprotover 2\nping 7\nquit\n", capture_output=True, text=True,
                          timeout=20, cwd=str(tmp_path))
    assert "feature" in done.stdout and "pong 7" in done.stdout
    assert Path(command[0]).name == Path(program()[0]).name or command[0].endswith("python")
