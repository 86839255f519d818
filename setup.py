"""Builds the Cython core. Project metadata lives in pyproject.toml."""
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path


def network_width_macros() -> list:
    """PONDEROSA_NNUE_HIDDEN=N builds the core for networks N wide in the first layer (256
    unless set; a multiple of 32 up to 2048): a candidate network of another width is tried in
    such a build (docs/NNUE.md). Every module gets it, since they share the core's structs."""
    text = os.environ.get("PONDEROSA_NNUE_HIDDEN", "").strip()
    if not text:
        return []
    if not text.isdigit() or int(text) % 32 or not 32 <= int(text) <= 2048:
        sys.exit(f"setup.py: PONDEROSA_NNUE_HIDDEN={text!r}: the width must be a multiple of 32 from 32 to 2048")
    return [("PONDEROSA_NNUE_HIDDEN", str(int(text)))]


# Checked before anything else is imported: a bad width stops the build at once, even where
# Cython is still to be installed.
NETWORK_WIDTH_MACROS = network_width_macros()

from Cython.Build import cythonize  # noqa: E402
from setuptools import Extension, setup  # noqa: E402
from setuptools.command.build_ext import build_ext  # noqa: E402

# core is the engine's hot path as one C unit (core.pyx includes the parts, core.pxd declares them,
# core.pyi types its Python names); position_set (the tuner's data) is a module of its own that
# cimports core.
CORE_MODULES = ["core", "position_set"]


def cython_include_dir() -> str:
    """Cython finds .pxd files by import path, so mirror core_ext/ as ponderosa/core_ext/."""
    mirror = Path("build") / "cython-include"
    package = mirror / "ponderosa" / "core_ext"
    package.mkdir(parents=True, exist_ok=True)
    for stale in package.glob("*.pxd"):
        stale.unlink()
    (mirror / "ponderosa" / "__init__.pxd").write_text("")
    (package / "__init__.pxd").write_text("")
    for pxd in Path("core_ext").glob("*.pxd"):
        shutil.copy2(pxd, package / pxd.name)
    return str(mirror)


def compile_flags() -> list:
    """Optimise, with hardware popcount: the x86-64-v2 baseline by default, which runs on any
    x86-64 machine of the last decade and was measured no slower than -march=native on the
    project's machine (docs/BENCHMARKS.md); PONDEROSA_NATIVE=1 builds for the building machine's
    own processor. PONDEROSA_PORTABLE=1 asks for the baseline explicitly (wheels)."""
    flags = ["-O3", "-fno-strict-aliasing", "-Wno-unused-function", "-Wno-unreachable-code"]
    # Floating-point results must not depend on the build (the search's tables are computed in
    # doubles): no fused multiply-add contraction where the processor has one.
    flags.append("-ffp-contract=off")
    if os.environ.get("PONDEROSA_NATIVE") == "1" and os.environ.get("PONDEROSA_PORTABLE") != "1":
        flags.append("-march=native")
    elif platform.machine().lower() in ("x86_64", "amd64"):
        flags.append("-march=x86-64-v2")
    return flags


# What the instrumented core runs for a profile-guided build: searches of varied positions
# (opening, middlegame with both kings attacked, endgames), as bench does, and two perfts; the
# core alone, so the build environment needs nothing but python-chess (the Zobrist keys).
PROFILE_TRAINING = """
import importlib.machinery, importlib.util, sys
spec = importlib.util.spec_from_file_location("ponderosa.core_ext.core", sys.argv[1],
    loader=importlib.machinery.ExtensionFileLoader("ponderosa.core_ext.core", sys.argv[1]))
core = importlib.util.module_from_spec(spec)
spec.loader.exec_module(core)
table, evaluator = core.TranspositionTable(16 << 20), core.Evaluator()
search = core.Search(table, evaluator)
positions = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R w KQ - 0 8",
    "2r2rk1/1bqnbppp/p2ppn2/1p6/3NP3/1BN1BP2/PPPQ2PP/2KR3R w - - 0 14",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "8/8/4kpp1/3p1b2/p6P/2B5/6P1/6K1 b - - 0 47",
    "6k1/5p2/6p1/8/7p/8/6PP/6K1 b - - 0 1",
]
for fen in positions:
    table.wipe(); evaluator.clear(); search.clear(); search.clear_stop()
    search.set_limits(node_limit=600_000)   # about bench's nodes over the seven
    search.set_position(core.Board(fen))
    for plies in range(1, 64):
        search.iterate(plies)
        if search.stopped:
            break
for fen, depth in [(positions[0], 5), (positions[1], 4)]:   # the start position and Kiwipete
    core.Board(fen).perft(depth)   # perft (and the console's perf) use the generator on their own
if len(sys.argv) > 2:   # the shipped network: the same searches evaluated by it (its reader needs only the stdlib)
    spec = importlib.util.spec_from_file_location("network_file", sys.argv[2])
    network_file = sys.modules["network_file"] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(network_file)
    with open(sys.argv[3], 'rb') as stored:   # the shipped file, which the build knows
        net = network_file.parse_network(stored.read(), sys.argv[3])
    evaluator.network = core.Network(net.ft_weights, net.ft_bias, net.out_weights, net.out_biases,
                                     net.king_layout.buckets, net.king_layout.mirror)
    for fen in positions:
        table.wipe(); evaluator.clear(); search.clear(); search.clear_stop()
        search.set_limits(node_limit=300_000)
        search.set_position(core.Board(fen))
        for plies in range(1, 64):
            search.iterate(plies)
            if search.stopped:
                break
    evaluator.network = None
"""
NETWORK_FILE_READER = Path("engine") / "nnue" / "network_file.py"
SHIPPED_NETWORK = Path("engine") / "nnue" / "ponderosa.nnue"


class ProfileGuidedBuild(build_ext):
    """Profile-guided build of the core, the default with gcc (PONDEROSA_PGO=0 turns it off):
    build it instrumented, run PROFILE_TRAINING on it, then build it again optimised by what that
    run measured (-fprofile-generate / -fprofile-use). The search is the same, only faster
    (docs/BENCHMARKS.md has the gain). If any step fails (another compiler, no profile support)
    the core is built the usual way; the other modules always are."""

    def build_extensions(self) -> None:
        core = next((extension for extension in self.extensions if extension.name.endswith(".core")), None)
        compiler = " ".join(getattr(self.compiler, "compiler_so", None) or ["?"])
        wanted = os.environ.get("PONDEROSA_PGO", "1") != "0" and "gcc" in compiler and "clang" not in compiler
        if not wanted or core is None:
            super().build_extensions()
            return
        self.force = True   # the core's object is compiled twice, with different flags
        try:
            profile = self.profile_flags(core)
        except Exception as error:   # noqa: BLE001 (any failure: the usual build instead)
            print(f"PONDEROSA_PGO: no profile ({error}); building the core the usual way", file=sys.stderr)
            profile = []
        plain = list(core.extra_compile_args)
        core.extra_compile_args = plain + profile
        try:
            super().build_extensions()
        except Exception as error:   # noqa: BLE001 (the profile-guided compile failed: the usual build)
            if not profile:
                raise
            print(f"PONDEROSA_PGO: the optimised build failed ({error}); building the core the usual way",
                  file=sys.stderr)
            core.extra_compile_args = plain
            super().build_extensions()

    def profile_flags(self, core: Extension) -> list:
        """Build core instrumented and train it; the flags that build it with the profile. Core's
        own flags are as they were when it returns or raises."""
        profile_dir = Path(self.build_temp).resolve() / "pgo-profile"
        shutil.rmtree(profile_dir, ignore_errors=True)
        plain_compile, plain_link = list(core.extra_compile_args), list(core.extra_link_args)
        core.extra_compile_args = plain_compile + ["-fprofile-generate", "-fprofile-update=atomic",
                                                   f"-fprofile-dir={profile_dir}", "-DPONDEROSA_NNUE_NO_CLONES"]
        core.extra_link_args = plain_link + ["-fprofile-generate"]
        try:
            self.build_extension(core)
        finally:
            core.extra_compile_args, core.extra_link_args = plain_compile, plain_link
        started = time.monotonic()
        network = [str(NETWORK_FILE_READER.resolve()), str(SHIPPED_NETWORK.resolve())] \
            if SHIPPED_NETWORK.exists() else []   # the network's code is profiled when one ships
        subprocess.run([sys.executable, "-c", PROFILE_TRAINING, self.get_ext_fullpath(core.name), *network],
                       check=True, timeout=600)
        if not any(profile_dir.rglob("*.gcda")):
            raise RuntimeError("the training run left no profile")
        print(f"PONDEROSA_PGO: profile measured in {time.monotonic() - started:.1f} s", file=sys.stderr)
        # coverage-mismatch: the instrumented pass inlines the NNUE kernels (no target_clones there),
        # so their callers' profiles do not fit the final build; GCC then drops those functions' data.
        return ["-fprofile-use", "-fprofile-partial-training", "-fprofile-correction", "-Wno-missing-profile",
                "-Wno-coverage-mismatch",
                f"-fprofile-dir={profile_dir}"]


extensions = [
    Extension(f"ponderosa.core_ext.{name}", [f"core_ext/{name}.pyx"], extra_compile_args=compile_flags(),
              define_macros=NETWORK_WIDTH_MACROS)
    for name in CORE_MODULES
]

setup(
    ext_modules=cythonize(
        extensions,
        include_path=[cython_include_dir()],
        compiler_directives={"language_level": "3"},
    ),
    cmdclass={"build_ext": ProfileGuidedBuild},
)
