# Lab test of fgraphtop started during a stall (tests/lab/join.sh, issue 42):
# the trigger first, then the live view, the lines, check and --explain 1 s
# and 3 s into its walk, on lab-stock (function_graph, U = 30,000),
# debian-7.2 (a BPF kretprobe.multi link) and debian-6.12 (function_graph);
# six guests two at a time, a few minutes under TCG. Part of `make test`;
# needs the kernels (`make lab`).
.PHONY: test-lab-join
test-lab-join: $(BUILD)/fgraphtop lab-image
	tests/lab/join.sh

test-lab-join: lab
TEST_TARGETS += test-lab-join
