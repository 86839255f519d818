"""Who the engine plays: the opponent's name, title, rating and kind, as UCI's UCI_Opponent
option or XBoard's name/rating/computer give them; the learning (and the ICS rules) read it."""
from __future__ import annotations

from dataclasses import dataclass

TITLES = ("GM", "IM", "FM", "CM", "WGM", "WIM", "WFM", "WCM", "NM", "BOT")


@dataclass(frozen=True)
class Opponent:
    name: str = "?"
    title: str | None = None        # GM, IM, FM, ... (None: untitled or not known)
    rating: int | None = None
    computer: bool | None = None    # None: not known


def parse_uci_opponent(text: str) -> Opponent:
    """The value of UCI_Opponent, `[title|none] [rating|none] [computer|human] name`, e.g.
    `GM 2800 human Gary Kasparov` or `none none computer Shredder`. Raises ValueError."""
    words = text.split()
    if len(words) < 4:
        raise ValueError(f"UCI_Opponent needs 'TITLE RATING computer|human NAME', got {text.strip()!r}")
    title_word, rating_word, kind, *name = words
    title = None if title_word.lower() == "none" else title_word.upper()
    if rating_word.lower() == "none":
        rating = None
    elif rating_word.lstrip("-").isdigit():
        rating = int(rating_word)
    else:
        raise ValueError(f"UCI_Opponent rating must be a number or 'none', got {rating_word!r}")
    if kind.lower() not in ("computer", "human"):
        raise ValueError(f"UCI_Opponent kind must be 'computer' or 'human', got {kind!r}")
    return Opponent(" ".join(name), title, rating, kind.lower() == "computer")
