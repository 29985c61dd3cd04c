# lab/bench.mk: `make bench`, separate from `make test`.
# One run measures the fix (stock vs fixed), fgraphtop's own cost (vs bpftrace),
# and its fidelity under load, and writes docs/bench/ (results.md, results.json,
# plots). BENCH_QUICK=1: fewer threads and repetitions, to try it out.
# Included from the top-level Makefile: paths are from the repository root.

BENCH_LOAD := $(BUILD)/lab/fgt-load

$(BENCH_LOAD): lab/bench/fgt-load.c | $(BUILD)
	mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -Wextra -static -o $@ $<

.PHONY: bench bench-report
bench: $(BUILD)/fgraphtop lab-image $(BENCH_LOAD)
	lab/kernels.sh ensure lab-stock lab-fixed
	lab/bench/bench.sh

# Re-render docs/bench/ from the last run's raw results, without running guests.
bench-report:
	lab/bench/report.py
