# Lab tests of fgraphtop itself (tests/lab/tool.sh): the tool against the lab's
# oracle on all seven kernels, failslab, the fork path, int3; about 8 minutes under
# TCG on 2 cores. Part of `make test`; needs the kernels (`make lab`).
.PHONY: test-lab-tool
test-lab-tool: $(BUILD)/fgraphtop lab-image
	tests/lab/tool.sh

TEST_TARGETS += test-lab-tool
