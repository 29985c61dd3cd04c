# Lab tests of fgraphtop itself (tests/lab/tool.sh): the tool against the lab's
# oracle on all seven kernels, failslab and the fork path; about 20 minutes under
# TCG on 2 cores. Part of `make test`; needs the kernels (`make lab`).
.PHONY: test-lab-tool
test-lab-tool: $(BUILD)/fgraphtop lab-image
	tests/lab/tool.sh

test: test-lab-tool
