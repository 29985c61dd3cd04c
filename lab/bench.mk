# lab/bench.mk: `make bench`, separate from `make test` (lab/bench/bench.sh runs
# it, lab/bench/report.py writes docs/bench/). Parts: the fix (stock vs fixed,
# TCG), fgraphtop's cost and its perturbation of the activation (qemu instruction
# counting, against the floor and bpftrace), the consumer and the symbol table
# natively on this host, and how often the time left fell inside the range;
# BENCH_PARTS=scale the fix at 50k..400k threads (long, resumable).
# BENCH_QUICK=1: fewer threads and repetitions, to try it out.
# Included from the top-level Makefile: paths are from the repository root.

# Every tool the bench rule needs, named before the rule: make expands a
# rule's prerequisites as it reads it, and names defined further down were
# empty there (fgt-floor was never built: a fresh tree's cost part failed
# with "floor did not start").
BENCH_LOAD     := $(BUILD)/lab/fgt-load
BENCH_CONSUMER := $(BUILD)/bench/fgt-consumer-bench
BENCH_KSYMS    := $(BUILD)/bench/fgt-ksyms-bench
BENCH_FLOOR    := $(BUILD)/lab/fgt-floor
BENCH_BPFSTATS := $(BUILD)/lab/fgt-bpfstats

$(BENCH_LOAD): lab/bench/fgt-load.c | $(BUILD)
	mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -Wextra -static -o $@ $<

.PHONY: bench bench-report
bench: $(BUILD)/fgraphtop lab-image $(BENCH_LOAD) $(BENCH_CONSUMER) $(BENCH_KSYMS) $(BENCH_FLOOR) $(BENCH_BPFSTATS)
	lab/kernels.sh ensure lab-stock lab-fixed lab-fixed-plus debian-6.12
	lab/bench/bench.sh

# Re-render docs/bench/ from the last run's raw results, without running guests.
bench-report:
	lab/bench/report.py

# The consumer benchmark (native, on this host): fgraphtop's own library objects,
# built as the release binary builds them, fed a generated activation.

$(BENCH_CONSUMER): tests/bench/consumer.c tests/lib/gen.c tests/lib/gen.h $(FGT_LIB_OBJS)
	mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests $(CFLAGS) -o $@ tests/bench/consumer.c tests/lib/gen.c \
		$(FGT_LIB_OBJS) $(LDLIBS) -lm

# The symbol table's growth with the symbol count (native, on this host): its
# timing left tests/host/test_ksyms.c's test_large, where it was a timed unit
# test.
$(BENCH_KSYMS): tests/bench/ksyms.c $(FGT_LIB_OBJS)
	mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ tests/bench/ksyms.c $(FGT_LIB_OBJS) $(LDLIBS) -lm

# Guest helpers of the cost part, in build/lab/ so that every guest gets them
# (lab/guest/mkrun.sh): fgt-floor (empty programs on fgraphtop's always-on
# hooks) and fgt-bpfstats (each program's run count and time while a command runs).

$(BUILD)/lab/floor.bpf.o: lab/bench/floor.bpf.c vmlinux/$(ARCH)/vmlinux.h | $(BUILD)
	mkdir -p $(dir $@)
	$(CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Ivmlinux/$(ARCH) -Wno-missing-declarations -c $< -o $@

$(BUILD)/lab/floor.skel.h: $(BUILD)/lab/floor.bpf.o
	$(BPFTOOL) gen skeleton $< > $@.tmp && mv $@.tmp $@

$(BENCH_FLOOR): lab/bench/fgt-floor.c $(BUILD)/lab/floor.skel.h
	$(CC) -O2 -g -Wall -Wextra -Wno-unused-parameter -I$(BUILD)/lab -static -o $@ $< -lbpf -lelf -lz

$(BENCH_BPFSTATS): lab/bench/fgt-bpfstats.c | $(BUILD)
	mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -Wextra -static -o $@ $< -lbpf -lelf -lz
