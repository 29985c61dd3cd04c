# shellcheck over every shell script of the tree (make check): clean, or each
# exception justified where it is made. Host-side scripts are bash; the guest's
# (lab/scenarios, lab/guest/init) are busybox ash, checked as dash, the nearest
# dialect shellcheck 0.9 knows (busybox's own came with 0.10).
HOST_SCRIPTS  := $(wildcard lab/*.sh lab/bench/*.sh tests/*.sh tests/lab/*.sh tests/docs/*.sh) \
		 lab/guest/mkbase.sh lab/guest/mkrun.sh lab/guest/stage-lib.sh .ci/run
GUEST_SCRIPTS := lab/guest/init lab/scenarios/lib.sh lab/scenarios/explain.sh \
		 lab/scenarios/activation.sh lab/scenarios/check-kill.sh lab/scenarios/check-prom.sh \
		 lab/scenarios/demo-live.sh lab/scenarios/selftest.sh lab/scenarios/smoke.sh \
		 lab/scenarios/tool-int3.sh lab/scenarios/tool-sh.sh \
		 lab/scenarios/tool-lib.sh lab/scenarios/tool-act.sh lab/scenarios/tool-failslab.sh \
		 lab/scenarios/live-screen.sh \
		 lab/scenarios/tool-fork.sh lab/scenarios/exposure.sh lab/scenarios/preflight.sh \
		 lab/scenarios/static-check.sh lab/scenarios/static-time.sh lab/scenarios/unit-caps.sh \
		 $(wildcard lab/scenarios/bench-*.sh)

.PHONY: test-shellcheck
test-shellcheck:
	@command -v shellcheck >/dev/null || { echo "test-shellcheck: no shellcheck (make deps installs it)"; exit 1; }
	shellcheck -x $(HOST_SCRIPTS)
	shellcheck -x -s dash -P lab/scenarios $(GUEST_SCRIPTS)
	@echo "test-shellcheck: $(words $(HOST_SCRIPTS) $(GUEST_SCRIPTS)) scripts clean"

CHECK_TARGETS += test-shellcheck
