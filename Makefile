# Ponderosa as one executable file: `make` writes ./ponderosa, `make EXE=PATH` writes PATH.
# EVALFILE=PATH ships that network in place of engine/nnue/ponderosa.nnue; CC picks the C compiler
# for the core (CXX is accepted and unused: the core is C). OpenBench runs `make -j EXE=NAME CC=gcc`.
# The build needs Python 3.9+ with venv and pip, a C compiler and PyPI; it works in a temporary
# folder of its own (tools/binary/build.py, run as `python -m tools.binary.build` from this folder;
# EXE and EVALFILE are taken from where make was started; docs/BINARY.md).

EXE ?= ponderosa
PYTHON ?= python3
EVALFILE ?=
HERE := $(dir $(lastword $(MAKEFILE_LIST)))

# Make's own default CC (cc) is left to Python's build; one given on the command line or in the
# environment goes to it.
ifneq ($(origin CC),default)
export CC
endif

.PHONY: all clean

# A path made absolute without $(abspath), which splits a name with spaces into words.
absolute = $(if $(filter /%,$(firstword $(1))),$(1),$(CURDIR)/$(1))

all:
	cd "$(HERE)" && $(PYTHON) -m tools.binary.build --exe "$(call absolute,$(EXE))" $(if $(EVALFILE),--evalfile "$(call absolute,$(EVALFILE))")

clean:
	rm -f "$(EXE)"
