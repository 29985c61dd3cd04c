# shellcheck over every shell script of the tree (make check): clean, or each
# exception justified where it is made. Host-side scripts are bash; the guest's
# (lab/scenarios, lab/guest/init) are busybox ash, checked as dash, the nearest
# dialect shellcheck 0.9 knows (busybox's own came with 0.10).
HOST_SCRIPTS  := $(wildcard lab/*.sh lab/bench/*.sh tests/*.sh tests/lab/*.sh tests/docs/*.sh) \
		 lab/guest/mkbase.sh lab/guest/mkbase-arm64.sh lab/guest/mkrun.sh lab/guest/mkdisk.sh lab/guest/stage-lib.sh .ci/run
GUEST_SCRIPTS := lab/guest/init $(wildcard lab/scenarios/*.sh)

.PHONY: test-shellcheck
test-shellcheck:
	@command -v shellcheck >/dev/null || { echo "test-shellcheck: no shellcheck (make deps installs it)"; exit 1; }
	shellcheck -x $(HOST_SCRIPTS)
	shellcheck -x -s dash -P lab/scenarios $(GUEST_SCRIPTS)
	@echo "test-shellcheck: $(words $(HOST_SCRIPTS) $(GUEST_SCRIPTS)) scripts clean"

CHECK_TARGETS += test-shellcheck
