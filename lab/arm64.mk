# The arm64 lab (issue 23): tests/lab/arm64.sh on the arm64 kernels under
# qemu-system-aarch64 TCG. It needs the arm64 build of fgraphtop, fgt-static
# and the lab helpers (a make ARCH=arm64 of its own: build/arm64) and the
# arm64 kernels, cached by their inputs: make test's, Debian's three
# (fetched), and make test-long's, the lab pair (cross-built, lab-arm64-long).
.PHONY: lab-arm64 lab-arm64-long test-lab-arm64 test-lab-arm64-long
lab-arm64:
	$(MAKE) --no-print-directory ARCH=arm64 all lab-helpers
	lab/kernels.sh ensure $$(lab/kernels.sh list --arch arm64 --tier test)
	lab/guest/mkbase-arm64.sh

lab-arm64-long: lab-arm64
	lab/kernels.sh ensure $$(lab/kernels.sh list --arch arm64 --tier long)

test-lab-arm64: lab-arm64
	tests/lab/arm64.sh

test-lab-arm64-long: lab-arm64-long
	FGT_LAB_TIER=long tests/lab/arm64.sh
TEST_TARGETS += test-lab-arm64
TEST_LONG_TARGETS += test-lab-arm64-long
