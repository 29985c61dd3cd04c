# Lab tests of fgraphtop itself (tests/lab/tool.sh): the tool against the lab's
# oracle, failslab, the fork path, the triggers, int3; needs the kernels (`make
# lab`). The whole x86-64 matrix is 17 minutes under TCG on 2 cores, more than a
# warm `make test` can give it: make test runs it on one kernel of each shape
# (TOOL_KERNELS: 7.x stock, fixed and traceable, Debian's 6.1 and 5.10, and the
# 5.10 backport, of make test's tier, lab/kernels.sh list --tier test), and
# `make test-long` on the rest (test-lab-tool-long), the 6.1 and 6.12 lab
# kernels among them.
TOOL_KERNELS := lab-stock lab-fixed lab-traceable-fixed debian-6.1 debian-5.10 \
	lab-5.10-fixed
.PHONY: test-lab-tool test-lab-tool-long
test-lab-tool: $(BUILD)/fgraphtop lab-image
	tests/lab/tool.sh $(addprefix -k ,$(TOOL_KERNELS))

test-lab-tool-long: $(BUILD)/fgraphtop lab-image lab-long
	k=""; for n in $$(lab/kernels.sh list --arch x86_64); do \
		case " $(TOOL_KERNELS) " in *" $$n "*) ;; *) k="$$k -k $$n" ;; esac; \
	done; tests/lab/tool.sh $$k

TEST_TARGETS += test-lab-tool
TEST_LONG_TARGETS += test-lab-tool-long
