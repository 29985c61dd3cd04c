# Lab test of `fgraphtop check` (tests/lab/check.sh): check-prom on the stock
# and fixed kernels of each series, SIGKILL recovery, lab/preflight.sh; about 4
# minutes under TCG on 2 cores. Part of `make test`; needs the kernels (`make
# lab`). The fleet path end to end (node_exporter, Prometheus) is
# lab/fleet-e2e.sh, make test-lab-fleet below.
.PHONY: test-lab-check preflight
test-lab-check: $(BUILD)/fgraphtop lab
	tests/lab/check.sh

TEST_TARGETS += test-lab-check

# The check on the pairs only make test-long has (the 6.1, 6.12 and
# 6.12-nopreempt lab kernels): four guests, about 2 minutes.
.PHONY: test-lab-check-long
test-lab-check-long: $(BUILD)/fgraphtop lab-long
	FGT_LAB_TIER=long tests/lab/check.sh
TEST_LONG_TARGETS += test-lab-check-long

# The fleet path end to end (lab/fleet-e2e.sh): the check on eight guest
# kernels, each textfile behind a real node_exporter, one real Prometheus with
# the shipped alert rules; the fleet query and each alert must name exactly
# the expected hosts. About a minute warm.
.PHONY: test-lab-fleet
test-lab-fleet: $(BUILD)/fgraphtop $(TEST_BUILD)/fgt-prom-sample lab
	FGT_PROM_SAMPLE=$(TEST_BUILD)/fgt-prom-sample lab/fleet-e2e.sh
TEST_TARGETS += test-lab-fleet

# check --static under lockdown=integrity and confidentiality on Debian's 7.2
# (tests/lab/lockdown.sh): kcore, then the running build's /boot image, then
# unknown without one. Three boots, about 80 s.
.PHONY: test-lab-lockdown
test-lab-lockdown: $(BUILD)/fgraphtop lab
	tests/lab/lockdown.sh
TEST_TARGETS += test-lab-lockdown

# `make preflight`: lab/preflight.sh on Debian's three kernels and a package
# made of the lab-fixed build, or on PACKAGES="a.deb b.deb" (PREFLIGHT_FLAGS=-j
# for JSON). Its exit status is preflight's: 0 all fixed, 2, 3, 64.
PREFLIGHT_KERNELS := debian-6.1 debian-6.12 debian-7.2 lab-fixed
preflight: $(BUILD)/fgraphtop lab-image
	@set -e; pkgs='$(PACKAGES)'; \
	if [ -z "$$pkgs" ]; then \
		lab/kernels.sh ensure $(PREFLIGHT_KERNELS); \
		for k in $(PREFLIGHT_KERNELS); do pkgs="$$pkgs $$(lab/kernels.sh deb $$k)"; done; \
	fi; \
	lab/preflight.sh $(PREFLIGHT_FLAGS) $$pkgs
