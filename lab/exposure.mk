# lab/exposure.mk: the exposure count beyond the main program.
# bpf/exposure.bpf.c and src/watch/exposure.c are built by the top-level rules;
# the record they share is bpf/exposure_abi.h.

# fgt-exposure: the scan in the lab guest (lab/guest/mkrun.sh ships every
# $(BUILD)/lab/fgt-*): the count on its own, next to the oracle and to the
# live view's.
FGT_EXPOSURE := $(BUILD)/lab/fgt-exposure
FGT_EXPOSURE_SRCS := tests/lab/exposure_probe.c src/watch/exposure.c src/model/exposure_model.c \
		     src/common/readall.c
$(FGT_EXPOSURE): $(FGT_EXPOSURE_SRCS) src/watch/exposure.h src/common/readall.h $(BUILD)/exposure.skel.h
	mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -static -o $@ $(FGT_EXPOSURE_SRCS) $(LDLIBS)

# The count against the lab's oracle, before and after activations
# (tests/lab/exposure.sh, lab/scenarios/exposure.sh); one boot of lab-stock.
.PHONY: test-lab-exposure
test-lab-exposure: $(BUILD)/fgraphtop $(FGT_EXPOSURE) lab-image
	tests/lab/exposure.sh

TEST_TARGETS += test-lab-exposure
