# The arm64 lab (issue 23): tests/lab/arm64.sh on the five arm64 kernels
# under qemu-system-aarch64 TCG. It needs the arm64 build of fgraphtop,
# fgt-static and the lab helpers (a make ARCH=arm64 of its own: build/arm64)
# and the arm64 kernels (lab/kernels.sh ensure arm64: Debian's three
# fetched, the lab pair cross-built, all cached by their inputs).
.PHONY: lab-arm64 test-lab-arm64
lab-arm64:
	$(MAKE) --no-print-directory ARCH=arm64 all lab-helpers
	lab/kernels.sh ensure arm64
	lab/guest/mkbase-arm64.sh

test-lab-arm64: lab-arm64
	tests/lab/arm64.sh
TEST_TARGETS += test-lab-arm64
