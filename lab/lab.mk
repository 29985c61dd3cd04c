# lab/lab.mk: the lab, driven from the top-level Makefile.
# Kernels are fetched (Debian's) or built (ours) once into $(FGT_CACHE) by
# lab/kernels.sh, keyed by their inputs, so a warm `make lab` is a no-op.

.PHONY: lab lab-kernels
lab: lab-kernels lab-image

lab-kernels:
	lab/kernels.sh ensure all

include lab/checkpatch.mk
include lab/guest.mk
include lab/tool.mk
include lab/live.mk
include lab/check.mk
include lab/pressure.mk
include lab/arm64.mk

# Lab tests need the kernels and the image: a fresh machine builds them here.
lab-test-runner lab-test-basic test-lab-tool test-lab-pressure: lab
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
