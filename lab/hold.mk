# Lab test of `fgraphtop hold` (tests/lab/hold.sh, lab/scenarios/hold.sh):
# Debian's 7.2 (the pinned kretprobe.multi link; bpftrace's kretprobe as the
# later trigger, from lab/guest/mksid.sh's sid userland), Debian's 6.12 (the
# tracefs instance; perf ftrace and the function_graph tracer) and Debian's
# 6.1 (refused), 30,000 parked threads: a few minutes under TCG.
.PHONY: test-lab-hold
test-lab-hold: $(BUILD)/fgraphtop lab-image
	tests/lab/hold.sh

test-lab-hold: lab
TEST_TARGETS += test-lab-hold
