# Lab test of the live view on a terminal (tests/lab/live.sh): 30,000 threads
# on lab-stock watched through a pseudo-terminal and a terminal emulator
# (python3-pyte); about a minute under TCG. Part of `make test`; needs the
# kernels (`make lab`).
.PHONY: test-lab-live
test-lab-live: $(BUILD)/fgraphtop lab-image
	tests/lab/live.sh

test-lab-live: lab
TEST_TARGETS += test-lab-live
