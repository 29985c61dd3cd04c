# Lab test of fgraphtop started during a stall (tests/lab/join.sh, issue 42):
# the trigger first, then the live view, the lines, check and --explain 1 s
# and 3 s into its walk, on lab-stock (function_graph, U = 30,000),
# debian-7.2 (a BPF kretprobe.multi link) and debian-6.12 (function_graph);
# six guests two at a time, 1 to 3 minutes each under TCG (2026-12-06, beside
# a running make test: every row passed, served = the oracle's U and the
# sweeps inferred before joining = the kernel's on all six). In make test
# (issue 42); it boots two guests at a time itself, so it runs in the serial
# part. Needs the kernels (`make lab`).
.PHONY: test-lab-join
test-lab-join: $(BUILD)/fgraphtop lab-image
	tests/lab/join.sh

test-lab-join: lab
TEST_TARGETS += test-lab-join

# The same with bpftrace as the stalled tool (issue 42): sid's bpftrace
# -e 'kretprobe:vfs_read* {...}' on debian-7.2, its guest given sid's
# userland (lab/guest/mksid.sh, cached); the served count is held between
# the kernel's own (fgt-oracle allocs: the stacks register_ftrace_graph
# allocated less those it freed unused) and the tasks at the walk's start
# (those that exit during the walk count served: tests/lab/join_check.py).
# LLVM compiles for minutes under TCG before the walk: two rows side by side
# took 1,111 and 1,120 s beside a loaded make test (2026-12-07), so make
# test-long only.
.PHONY: test-lab-join-bt
test-lab-join-bt: $(BUILD)/fgraphtop lab-image lab
	tests/lab/join.sh -k debian-7.2+bt
TEST_LONG_TARGETS += test-lab-join-bt
