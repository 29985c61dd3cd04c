# Lab guest: static helpers for the guest image and the cached base initramfs.
# Included by lab/lab.mk (from the top-level Makefile), so paths are from the
# repository root and $(BUILD), $(CC), $(CLANG), $(BPFTOOL), $(ARCH) come from there.

LAB_BUILD      := $(BUILD)/lab
LAB_GUEST      := lab/guest
FGT_SPAWN      := $(LAB_BUILD)/fgt-spawn
FGT_TRIGGER    := $(LAB_BUILD)/fgt-trigger
FGT_ORACLE     := $(LAB_BUILD)/fgt-oracle
FGT_CATCH      := $(LAB_BUILD)/fgt-catch
LAB_HELPERS    := $(FGT_SPAWN) $(FGT_TRIGGER) $(FGT_ORACLE) $(FGT_CATCH)

LAB_CFLAGS     := -O2 -g -Wall -Wextra -Wno-unused-parameter -Wno-format-truncation
LAB_BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Ivmlinux/$(ARCH) \
		  -Wno-missing-declarations

.PHONY: lab-helpers lab-image lab-guest
lab-helpers: $(LAB_HELPERS)

# The base initramfs is cached in $FGT_CACHE keyed by its inputs: a no-op warm.
# fgraphtop too: every guest run gets it (lab/guest/mkrun.sh), and a tree
# without it gave guests in which every scenario's fgraphtop was "not found".
lab-image: lab-helpers $(BUILD)/fgraphtop
	$(LAB_GUEST)/mkbase.sh

lab-guest: lab-image

.SECONDARY: $(LAB_BUILD)/kretmulti.bpf.o $(LAB_BUILD)/oracle.bpf.o

$(LAB_BUILD):
	mkdir -p $@

$(LAB_BUILD)/%.bpf.o: $(LAB_GUEST)/%.bpf.c vmlinux/$(ARCH)/vmlinux.h | $(LAB_BUILD)
	$(CLANG) $(LAB_BPF_CFLAGS) -c $< -o $@

$(LAB_BUILD)/%.skel.h: $(LAB_BUILD)/%.bpf.o
	$(BPFTOOL) gen skeleton $< > $@.tmp && mv $@.tmp $@

$(FGT_SPAWN): $(LAB_GUEST)/fgt-spawn.c | $(LAB_BUILD)
	$(CC) $(LAB_CFLAGS) -static -pthread -o $@ $<

$(FGT_CATCH): $(LAB_GUEST)/fgt-catch.c | $(LAB_BUILD)
	$(CC) $(LAB_CFLAGS) -static -o $@ $<

# fgt-catch against a stand-in check, on the host (tests/lab/catch.sh)
$(LAB_BUILD)/catch_cmd: tests/lab/catch_cmd.c | $(LAB_BUILD)
	$(CC) $(LAB_CFLAGS) -pthread -o $@ $<

.PHONY: test-lab-catch
test-lab-catch: $(FGT_CATCH) $(LAB_BUILD)/catch_cmd
	tests/lab/catch.sh $(FGT_CATCH) $(LAB_BUILD)/catch_cmd
CHECK_TARGETS += test-lab-catch

$(FGT_TRIGGER): $(LAB_GUEST)/fgt-trigger.c $(LAB_GUEST)/fgt-u.h $(LAB_BUILD)/kretmulti.skel.h
	$(CC) $(LAB_CFLAGS) -I$(LAB_BUILD) -static -o $@ $< -lbpf -lelf -lz

$(FGT_ORACLE): $(LAB_GUEST)/fgt-oracle.c $(LAB_GUEST)/fgt-u.h $(LAB_BUILD)/oracle.skel.h
	$(CC) $(LAB_CFLAGS) -I$(LAB_BUILD) -static -o $@ $< -lbpf -lelf -lz

# Smoke and activation on every kernel lab/kernels.sh has now, checked against
# the oracle, ending with the table.
.PHONY: lab-test-basic
lab-test-basic: lab-image
	tests/lab/basic.sh

# lab/run.sh's own contract: exit statuses 0/N/124/125/126 and teardown.
.PHONY: lab-test-runner
lab-test-runner: lab-image
	tests/lab/runner.sh
