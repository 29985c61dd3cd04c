# The lab's kernel patches (tests/checkpatch.sh): every one under lab/patches/
# checkpatch.pl --strict clean (no error, no warning) from the source tree it
# applies to, each lab kernel's still applying to the version the Debian
# registry serves, and a stale one failing loudly with that version. Seconds,
# once the sources are extracted (`make lab` does it). Part of `make test`.
.PHONY: test-checkpatch
test-checkpatch:
	tests/checkpatch.sh

TEST_TARGETS += test-checkpatch
