# Lab test of fgraphtop started during a stall (tests/lab/join.sh, issue 42):
# the trigger first, then the live view, the lines, check and --explain 1 s
# and 3 s into its walk, on lab-stock (function_graph, U = 30,000),
# debian-7.2 (a BPF kretprobe.multi link) and debian-6.12 (function_graph);
# six guests two at a time, 3 to 4 minutes each under TCG on a loaded host.
# In `make test-long` until it has passed on every kernel of its matrix: its
# lab-stock rows have not run yet (the kernel was not built in the session
# that wrote it), and its debian-7.2 rows last ran before the fix of the
# sweeps inferred before joining. Needs the kernels (`make lab`).
.PHONY: test-lab-join
test-lab-join: $(BUILD)/fgraphtop lab-image
	tests/lab/join.sh

test-lab-join: lab
TEST_LONG_TARGETS += test-lab-join
