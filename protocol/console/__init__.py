"""The Crafty-style console: session.py holds the Console (its state, the flat loop over one
command table, the game it plays with the user); table.py holds the table; the other modules
hold the command handlers by capability (game, clock, settings, tools, program, book, server
play, records, threads, tablebases, protocols), each handed the console."""
from ponderosa.protocol.console.commands import CommandError
from ponderosa.protocol.console.session import Console

__all__ = ["CommandError", "Console"]
