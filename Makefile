# Ponderosa as one executable file: `make` writes ./ponderosa, `make EXE=PATH` writes PATH.
# EVALFILE=PATH ships that network in place of engine/nnue/ponderosa.nnue; CC picks the C compiler
# for the core (CXX is accepted and unused: the core is C). OpenBench runs `make -j EXE=NAME CC=gcc`.
# The build needs Python 3.9+ with venv and pip, a C compiler and PyPI; it works in a temporary
# folder of its own (tools/build_binary.py; docs/BINARY.md).

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

all:
	$(PYTHON) $(HERE)tools/build_binary.py --exe "$(EXE)" $(if $(EVALFILE),--evalfile "$(EVALFILE)")

clean:
	rm -f "$(EXE)"
