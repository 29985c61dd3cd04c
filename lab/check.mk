# Lab test of `fgraphtop check` (tests/lab/check.sh): check-prom on lab-stock and
# lab-fixed, SIGKILL recovery on debian-7.2; about a minute under TCG on 2 cores.
# Part of `make test`; needs the kernels (`make lab`). The fleet path end to end
# (node_exporter, Prometheus) is lab/fleet-e2e.sh, run by hand.
.PHONY: test-lab-check
test-lab-check: $(BUILD)/fgraphtop lab
	tests/lab/check.sh

TEST_TARGETS += test-lab-check
