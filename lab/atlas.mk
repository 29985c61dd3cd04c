# The atlas (issue 40): check --kernel on every kernel image package in
# Debian's registry, amd64 and arm64, every suite and flavour, into
# docs/atlas.md (lab/atlas.sh). It needs the network and gigabytes (the
# .debs are cached outside the clone), so it is no part of make test; make
# test runs the same script on two small inputs (tests/atlas.sh).
.PHONY: atlas
atlas: $(BUILD)/fgraphtop
	FGRAPHTOP=$(BUILD)/fgraphtop lab/atlas.sh run docs/atlas.md

.PHONY: test-atlas
test-atlas: $(BUILD)/fgraphtop $(TEST_BUILD)/fgt-kimage-gen
	tests/atlas.sh $(BUILD)/fgraphtop $(TEST_BUILD)/fgt-kimage-gen
TEST_TARGETS += test-atlas
