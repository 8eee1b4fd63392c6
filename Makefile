# SPDX-License-Identifier: GPL-2.0
# kunit52: the front door.  See README.md.
#
#   make run                       prepare, build and run every suite on x86_64
#   make test [GATE_ARCHES=..]     the full gate (every arch of qemu_configs/, checkpatch, self-tests; GATE_ARCHES: a subset)
#   make kunit ARCH=.. SUITE=.. [STRICT=1]  the TDD loop: a kernel for those suites only ('vmalloc*', 'suite.case*')
#   make watch ARCH=.. SUITE=..    make kunit again at every save (Ctrl-C stops)
#   make system ARCH=.. [TESTS=..] full-system boots: guest tests (guest/*_test.c)
#   make boot ARCH=..              an interactive shell in the guest
#   make hardened [ARCH=..]        KUnit + guest tests on the debug kernel (KASAN, UBSAN, lockdep, ...)
#   make mutants [ARCH=..]         prove the suites go red on planted kernel bugs
#   make coverage [ARCH=..]       Clang + gcov kernel, one boot, lcov report -> build/coverage/index.html
#   make bench [BENCH_COLD=1] [BENCH_TDD=1] [BENCH_ARCHES=..]  figures (vmalloc search scaling, the TDD loop) -> docs/benchmarks.md
#   make soak [ARCH=..] [SOAK_SECONDS=600] [SEED=..]  the vmalloc model test over many seeds, then a long test_vmalloc stress run
#   make lava-jobs [GATE_ARCHES=..]  one LAVA job per shard of make test -> build/lava/jobs (after a build)
#   make lava-check                run an x86_64 KUnit and full-system shard with Debian's lava-dispatcher; compare with ours
#   make prepare | series | checkpatch | selftest | clean | distclean

ARCH  ?= x86_64
SUITE ?= *
TESTS ?= *
SOAK_SECONDS ?= 600
SEED  ?=
# VARIANT=debug: kunitconfigs/variants/debug on top, in build/<arch>-debug.
VARIANT ?=
export KUNIT52_VARIANT := $(VARIANT)
# STRICT=1: make kunit's kernel reads the gate's value of every option the
# code under test reads (docs/loop.md); slower.
STRICT ?= 0
export KUNIT52_LOOP_STRICT := $(STRICT)

# Our ARCH means the QEMU target; never pass it on to the kernel's make.
unexport ARCH

SCRIPTS := scripts
ARCHES  := $(shell $(SCRIPTS)/arch.py --list)

# Refuse a bad ARCH before doing anything, in one line.
ifneq ($(filter kunit watch system boot mutants soak hardened coverage,$(MAKECMDGOALS)),)
ifeq ($(filter $(ARCHES),$(ARCH)),)
$(error unknown ARCH '$(ARCH)' (supported: $(ARCHES)))
endif
endif

# ... and a SUITE that names no suite under kunit/, before preparing
# anything.
ifneq ($(filter kunit watch,$(MAKECMDGOALS)),)
SUITE_ERROR := $(shell bash -c 'source $(SCRIPTS)/lib.sh && check_suite "$$1"' check '$(SUITE)' 2>&1 >/dev/null)
ifneq ($(SUITE_ERROR),)
$(error $(subst check: error: ,,$(SUITE_ERROR)))
endif
endif

# ... and a bad GATE_ARCHES before make test runs a step.
ifneq ($(filter test lava-jobs,$(MAKECMDGOALS)),)
ifneq ($(filter-out $(ARCHES),$(GATE_ARCHES)),)
$(error unknown ARCH '$(firstword $(filter-out $(ARCHES),$(GATE_ARCHES)))' in GATE_ARCHES (supported: $(ARCHES)))
endif
endif

.PHONY: run test kunit watch system boot hardened coverage mutants bench soak prepare deps series checkpatch selftest lava-jobs lava-check clean distclean help

help:
	@sed -n 's/^#   //p' Makefile

deps:
	@$(SCRIPTS)/deps.sh

prepare: deps
	@$(SCRIPTS)/prepare-tree.sh

run: prepare
	@KUNIT52_TREE_CACHE_STORE=1 $(SCRIPTS)/kunit.sh x86_64 '*'

# docs/loop.md: the loop's kernel, and how its verdict relates to the gate's.
kunit: prepare
	@$(SCRIPTS)/loop.sh '$(ARCH)' '$(SUITE)'

watch: prepare
	@$(SCRIPTS)/watch.sh '$(ARCH)' '$(SUITE)'

# The guest boots the gate's kernel of ARCH, whose KUnit run builds it.
system: prepare
	@$(SCRIPTS)/kunit.sh '$(ARCH)' '$(SUITE)'
	@$(SCRIPTS)/system.sh '$(ARCH)' '$(TESTS)'

# One boot runs the KUnit suites, the guest tests and a kmemleak scan.
hardened: prepare
	@KUNIT52_VARIANT=debug KUNIT52_KUNIT_MODE=build $(SCRIPTS)/kunit.sh '$(ARCH)'
	@KUNIT52_VARIANT=debug $(SCRIPTS)/system.sh '$(ARCH)' '$(TESTS)'

boot: prepare
	@test -e build/$(ARCH)$(if $(VARIANT),-$(VARIANT))/.config || $(SCRIPTS)/kunit.sh '$(ARCH)' '*'
	@$(SCRIPTS)/system.sh --shell '$(ARCH)'

# docs/coverage.md: what the report shows and why the rest is unreachable.
coverage: prepare
	@$(SCRIPTS)/deps.sh coverage
	@$(SCRIPTS)/coverage.sh '$(ARCH)'

mutants: prepare
	@$(SCRIPTS)/mutants.sh '$(ARCH)' mutations/*.tsv

bench: prepare
	@$(SCRIPTS)/bench.sh $(if $(filter 1,$(BENCH_COLD)),--cold) $(if $(filter 1,$(BENCH_TDD)),--tdd) $(BENCH_ARCHES)

soak: prepare
	@$(SCRIPTS)/soak.sh '$(ARCH)' '$(SOAK_SECONDS)' $(SEED)

series: prepare
	@$(SCRIPTS)/make-series.sh

checkpatch: series
	@$(SCRIPTS)/checkpatch-series.sh

selftest: deps
	@$(SCRIPTS)/selftest.sh

# GATE_ARCHES: the arches this gate builds and boots (default: every arch
# of qemu_configs/); the host-only steps always run.
test:
	@KUNIT52_GATE_ARCHES='$(strip $(GATE_ARCHES))' $(SCRIPTS)/gate.sh

# The jobs take the kernels and initramfs of the last build (make test).
lava-jobs: deps
	@KUNIT52_GATE_ARCHES='$(strip $(GATE_ARCHES))' $(SCRIPTS)/lava.sh jobs

# Builds and boots x86_64 itself (about 15 minutes warm): not in make test.
lava-check: prepare
	@$(SCRIPTS)/lava.sh check

clean:
	rm -rf build work/linux/.build-*

distclean: clean
	@$(SCRIPTS)/prepare-tree.sh --check-clean
	rm -rf work
