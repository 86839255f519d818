"""The console's one command table, in the order `help` lists it: the book's commands, the
console's own (the game, its clock, settings and tools, the program itself), then those of
server play, game records, threads, tablebases and the protocols. An entry: its names, its
handler (given the console and the words after the name), usage and summary."""
from __future__ import annotations

from ponderosa.protocol.console import clock, game, program, settings, tools
from ponderosa.protocol.console.book import BOOK_COMMANDS
from ponderosa.protocol.console.commands import Command
from ponderosa.protocol.console.ics import ICS_COMMANDS
from ponderosa.protocol.console.protocols import PROTOCOL_COMMANDS
from ponderosa.protocol.console.records import RECORD_COMMANDS
from ponderosa.protocol.console.tablebases import TABLEBASE_COMMANDS
from ponderosa.protocol.console.threads import THREAD_COMMANDS

COMMANDS: list[Command] = [
    *BOOK_COMMANDS,
    # the console's own: the game, its clock, settings and tools, the program
    Command(("analyze",), game.cmd_analyze, "analyze",
            "think on the side to move until a move (played, thinking restarts) or exit"),
    Command(("bench",), tools.cmd_bench, "bench [DEPTH [THREADS]]",
            "search the fixed bench positions; prints total nodes (with one thread, the default: "
            "a signature) and speed"),
    Command(("result",), game.cmd_result, "result 1-0|0-1|1/2-1/2", "the game is over: learn from it"),
    Command(("display", "d"), game.cmd_display, "display", "show the board"),
    Command(("divide",), tools.cmd_divide, "divide N", "perft N split by root move"),
    Command(("drawscore",), settings.cmd_drawscore, "drawscore N", "score of a draw in centipawns (contempt)"),
    Command(("eval",), settings.cmd_eval, "eval [nnue|classic|FILE]",
            "show the evaluation in use; switch between the network and the hand-written one, or load a network"),
    Command(("evaluation",), settings.cmd_evaluation, "evaluation TERM N",
            "scale an evaluation term: asymmetry, bscale, kscale, tropism, pscale, ppscale"),
    Command(("extensions",), settings.cmd_extensions, "extensions [TYPE PLIES]",
            "show or set incheck, onerep, recapture, pushpp, mate (0-1 ply)"),
    Command(("genfens",), tools.cmd_genfens, tools.GENFENS_USAGE,
            "N openings for data generation (OpenBench): random plies from the start position or an EPD "
            "book, checked near balance by a short search; the same seed gives the same lines"),
    Command(("go", "move"), game.cmd_go, "go | move", "think and play a move for the side to move"),
    Command(("hash",), settings.cmd_hash, "hash SIZE", "transposition table size (K, M or G)"),
    Command(("hashp",), settings.cmd_hashp, "hashp SIZE", "pawn hash table size (K, M or G)"),
    Command(("help",), program.cmd_help, "help [command]", "list the commands, or explain one"),
    Command(("new",), game.cmd_new, "new", "start a new game from the initial position"),
    Command(("perf",), tools.cmd_perf, "perf",
            "move generator speed: generated, and generated+made+unmade, per second"),
    Command(("perft",), tools.cmd_perft, "perft N", "count the leaf nodes N plies deep, with time and speed"),
    Command(("score",), tools.cmd_score, "score", "static evaluation from White's side, term by term"),
    Command(("skill",), settings.cmd_skill, "skill [N]",
            "playing strength 1-100 (100 = full); lower plays weaker, with some randomness"),
    Command(("sd",), clock.cmd_sd, "sd N", "search depth limit in plies"),
    Command(("setboard",), game.cmd_setboard, "setboard FEN",
            "set up a position (counters may be left out, as in Crafty)"),
    Command(("sn",), clock.cmd_sn, "sn N", "node limit per search"),
    Command(("st",), clock.cmd_st, "st SECONDS", "time per move in seconds (or mm:ss)"),
    Command(("test",), tools.cmd_test, "test FILE [N]",
            "run an EPD or Crafty-format suite with the st time; N = early exit after N iterations held"),
    Command(("undo", "back"), game.cmd_undo, "undo", "take back the last move"),
    Command(("white",), game.cmd_white, "white", "give the move to White (same position)"),
    Command(("black",), game.cmd_black, "black", "give the move to Black (same position)"),
    Command(("force",), game.cmd_force, "force [MOVE]",
            "replace the engine's last move by MOVE; alone: the engine stops playing until go"),
    Command(("remove",), game.cmd_remove, "remove", "take back the last two moves"),
    Command(("hint",), game.cmd_hint, "hint", "suggest a move"),
    Command(("history",), game.cmd_history, "history", "the moves of the game, two columns"),
    Command(("info",), clock.cmd_info, "info", "time control, clocks and settings"),
    Command(("level",), clock.cmd_level, "level MOVES MINUTES INC", "time control as XBoard's level"),
    Command(("time",), clock.cmd_time, "time CONTROL|cpu|elapsed",
            "Crafty's time control: time sd/15, time 60/30/sd/30/5, time 40/120/20/60"),
    Command(("settc",), clock.cmd_settc, "settc MOVES OWN OPP", "restore moves to control and clocks (minutes)"),
    Command(("clock",), clock.cmd_clock, "clock [OWN [OPP]]", "show or correct the clocks (minutes or mm:ss)"),
    Command(("usage",), clock.cmd_usage, "usage N", "use N percent more (or less, -N) time than normal"),
    Command(("operator",), clock.cmd_operator, "operator N", "keep N minutes in reserve for the operator"),
    Command(("mode",), clock.cmd_mode, "mode tournament|normal",
            "tournament: draws score 0 and the clocks are shown after each move"),
    Command(("ponder",), game.cmd_ponder, "ponder on|off|MOVE", "think on the opponent's time; MOVE to ponder"),
    Command(("draw",), game.cmd_draw, "draw", "offer the engine a draw"),
    Command(("resign",), game.cmd_resign, "resign N", "resign when N pawns behind (0 = never)"),
    Command(("noise",), settings.cmd_noise, "noise N", "show thinking only after N nodes"),
    Command(("alarm",), settings.cmd_alarm, "alarm on|off", "beep after each engine move"),
    Command(("ansi",), settings.cmd_ansi, "ANSI on|off", "ANSI terminal control codes"),
    Command(("echo",), program.cmd_echo, "echo TEXT", "print TEXT (for command files)"),
    Command(("input",), program.cmd_input, "input FILE", "read commands from FILE until `exit`"),
    Command(("quit", "end", "exit"), program.cmd_quit, "quit | end | exit", "leave the program"),
    Command(("xboard",), program.cmd_xboard, "xboard", "switch to the XBoard/WinBoard protocol"),
    *ICS_COMMANDS,
    *RECORD_COMMANDS,
    *THREAD_COMMANDS,
    *TABLEBASE_COMMANDS,
    *PROTOCOL_COMMANDS,
]
COMMANDS_BY_NAME: dict[str, Command] = {name: command for command in COMMANDS for name in command.names}
