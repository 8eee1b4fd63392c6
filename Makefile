# SPDX-License-Identifier: GPL-2.0
# kunit52: the front door.  See README.md.
#
#   make run                       prepare, build and run every suite on x86_64
#   make test                      the full gate (both arches, checkpatch, self-tests)
#   make kunit ARCH=.. SUITE=..    one arch, a suite glob ('vmalloc*', 'suite.case*')
#   make mutants [ARCH=..]         prove the suites go red on planted kernel bugs
#   make prepare | series | checkpatch | selftest | clean | distclean

ARCH  ?= x86_64
SUITE ?= *

# Our ARCH means the QEMU target; never pass it on to the kernel's make.
unexport ARCH

SCRIPTS := scripts
ARCHES  := x86_64 arm64

# Refuse a bad ARCH before doing anything, in one line.
ifneq ($(filter kunit mutants,$(MAKECMDGOALS)),)
ifeq ($(filter $(ARCHES),$(ARCH)),)
$(error unknown ARCH '$(ARCH)' (supported: $(ARCHES)))
endif
endif

.PHONY: run test kunit mutants prepare deps series checkpatch selftest clean distclean help

help:
	@sed -n 's/^#   //p' Makefile

deps:
	@$(SCRIPTS)/deps.sh

prepare: deps
	@$(SCRIPTS)/prepare-tree.sh

run: prepare
	@$(SCRIPTS)/kunit.sh x86_64 '*'

kunit: prepare
	@$(SCRIPTS)/kunit.sh '$(ARCH)' '$(SUITE)'

mutants: prepare
	@$(SCRIPTS)/mutants.sh '$(ARCH)' $(SCRIPTS)/mutations/*.tsv

series: prepare
	@$(SCRIPTS)/make-series.sh

checkpatch: series
	@$(SCRIPTS)/checkpatch-series.sh

selftest: deps
	@$(SCRIPTS)/selftest.sh

test:
	@$(SCRIPTS)/gate.sh

clean:
	rm -rf build

distclean: clean
	@$(SCRIPTS)/prepare-tree.sh --check-clean
	rm -rf work
