# lab/lab.mk: the lab, driven from the top-level Makefile.
# Kernels are fetched (Debian's) or built (ours) once into $(FGT_CACHE) by
# lab/kernels.sh, keyed by their inputs, so a warm `make lab` is a no-op.

# `make lab`: make test's kernels (lab/kernels.sh list --tier test); `make
# lab-long`: all of them, for make test-long (issue 23: the 6.1, 6.12 and
# 6.12-nopreempt series are three more full kernel builds, which a cold make
# test on 2 cores cannot fit). The lab tests take the tier from FGT_LAB_TIER
# (tests/lab/lib.sh lab_tier): test by default, long in the -long targets.
.PHONY: lab lab-kernels lab-long
lab: lab-kernels lab-image

lab-kernels:
	lab/kernels.sh ensure test

lab-long: lab-image
	lab/kernels.sh ensure all

include lab/checkpatch.mk
include lab/guest.mk
include lab/tool.mk
include lab/live.mk
include lab/join.mk
include lab/check.mk
include lab/pressure.mk
include lab/arm64.mk
include lab/hold.mk

# Lab tests need the kernels and the image: a fresh machine builds them here.
lab-test-runner test-lab-tool test-lab-pressure: lab
lab-test-basic: lab-long
# basic.sh (smoke and a trigger's activation on every kernel, 20 on/off cycles
# on each: 14 minutes) repeats what test-lab-tool checks exactly: make test-long
TEST_TARGETS += lab-test-runner
TEST_LONG_TARGETS += lab-test-basic

# The lab drivers' options (tests/lab/lib.sh lab_opts), parsed and refused
# without a guest: quick, so part of make check.
.PHONY: test-lab-opts
test-lab-opts:
	tests/lab/opts.sh
CHECK_TARGETS += test-lab-opts
