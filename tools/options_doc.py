"""The option lists of the documents, made from the option table (engine/option_table.py): each
list stands between `<!-- options: KIND -->` and `<!-- /options -->` in README.md,
docs/PROTOCOL.md and docs/OPTIONS.md, and is rewritten here, never by hand.

    python -m tools.options_doc render   # rewrite the lists after a change of the table
    python -m tools.options_doc check    # exit 1 if a list is not the table's (tests run this)

KIND is `names` (the option names in a line, for the README), `xboard` (XBoard's feature
options, for docs/PROTOCOL.md) or `all` (every row: the names each front end uses, the
default, the range, when it applies and its help)."""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from ponderosa.engine.option_table import BUTTON, OPTIONS, XBOARD_ROWS, Option

REPO = Path(__file__).resolve().parents[1]
DOCUMENTS = ("README.md", "docs/PROTOCOL.md", "docs/OPTIONS.md")
BLOCK = re.compile(r"(<!-- options: ([a-z]+) -->\n)(.*?)(<!-- /options -->)", re.DOTALL)


def _default(option: Option) -> str:
    if option.kind == BUTTON:
        return ""
    if isinstance(option.default, bool):
        return "true" if option.default else "false"
    return f"`{option.default}`" if option.default != "" else "empty"


def _range(option: Option) -> str:
    return f"{option.low}..{option.high}" if option.kind == "spin" else ""


def names_list() -> str:
    """The UCI names, then the XBoard-only ones, in one paragraph."""
    uci = [f"`{option.name}`" for option in OPTIONS if option.uci]
    xboard = [f"`{option.xboard}`" for option in OPTIONS if option.xboard and not option.uci]
    return f"UCI: {', '.join(uci)}. XBoard only: {', '.join(xboard)}.\n"


def xboard_table() -> str:
    lines = ["| option | control, default, range | effect |", "| --- | --- | --- |"]
    for option in XBOARD_ROWS:
        control = option.xboard_kind or option.kind
        default = "1" if option.default is True else "0" if option.default is False else str(option.default)
        described = ", ".join(part for part in (f"{control} {default or '(empty)'}", _range(option)) if part)
        lines.append(f"| `{option.xboard}` | {described} | {_cell(option.help)} |")
    return "\n".join(lines) + "\n"


def full_table() -> str:
    lines = ["| option (UCI) | XBoard | console | kind | default | range | applies | what it does |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for option in OPTIONS:
        uci = f"`{option.name}`" if option.uci else f"({option.name})"
        xboard = f"`{option.xboard}`" if option.xboard else ""
        console = f"`{option.console}`" if option.console else ""
        lines.append(f"| {uci} | {xboard} | {console} | {option.kind} | {_default(option)} | {_range(option)} "
                     f"| {option.applies} | {_cell(option.help)} |")
    return "\n".join(lines) + "\n"


def parameters_table() -> str:
    """The search's tunable parameters (engine/tuning.py: UCI options only in a tuning build)."""
    from ponderosa.engine.tuning import ROWS, search_parameters
    steps = {name: step for name, _value, _default, _low, _high, step in search_parameters()}
    lines = ["| option (UCI, tuning build) | default | range | SPSA step |", "| --- | --- | --- | --- |"]
    lines += [f"| `{option.name}` | `{option.default}` | {_range(option)} | {steps[option.name]:g} |"
              for option in ROWS]
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")   # a pipe would end the table's cell


RENDERERS = {"names": names_list, "xboard": xboard_table, "all": full_table, "parameters": parameters_table}


def rendered(text: str) -> str:
    def block(match: re.Match[str]) -> str:
        kind = match.group(2)
        if kind not in RENDERERS:
            raise ValueError(f"unknown option list {kind!r} (known: {', '.join(RENDERERS)})")
        return match.group(1) + RENDERERS[kind]() + match.group(4)
    return BLOCK.sub(block, text)


def stale(root: Path = REPO) -> list[Path]:
    """The documents whose lists are not the table's."""
    return [root / name for name in DOCUMENTS if rendered((root / name).read_text()) != (root / name).read_text()]


def render(root: Path = REPO) -> list[Path]:
    changed = stale(root)
    for path in changed:
        temporary = path.with_name(f".{path.name}.tmp")
        temporary.write_text(rendered(path.read_text()))
        temporary.replace(path)
    return changed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("action", choices=("render", "check"))
    args = parser.parse_args()
    if args.action == "render":
        for path in render():
            print(f"rewrote {path.relative_to(REPO)}")
        return 0
    out_of_date = stale()
    for path in out_of_date:
        print(f"{path.relative_to(REPO)}: an option list is not the table's (python -m tools.options_doc render)")
    return 1 if out_of_date else 0


if __name__ == "__main__":
    sys.exit(main())
