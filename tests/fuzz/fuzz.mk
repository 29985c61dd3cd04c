# libFuzzer harnesses (tests/fuzz/fuzz_*.c) over the parsers of untrusted input:
# kallsyms, the build-ID notes, both option parsers, the trigger's state file
# and instance names, and check --kernel's whole path on a file (kimage). clang -fsanitize=fuzzer,address,undefined; each harness
# starts from its seed corpus in tests/fuzz/corpus/NAME (never written to: new
# inputs go to build/fuzz/NAME.corpus). A crash, a leak or an abort() of a
# harness's own check fails the run; the crashing input is left in build/fuzz/.
#   make test-fuzz-smoke   a few seconds each (make check)
#   make test-fuzz         FUZZ_SECONDS each, 20 by default (make test)
FUZZ_BUILD    := $(BUILD)/fuzz
FUZZ_NAMES    := ksyms notes env check_args state kimage
FUZZ_BINS     := $(FUZZ_NAMES:%=$(FUZZ_BUILD)/fuzz_%)
FUZZ_SAN      := -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_CFLAGS   := -O1 -g -fno-omit-frame-pointer $(FUZZ_SAN) -Isrc -I. -Itests/fuzz -D_GNU_SOURCE
FUZZ_LIB_OBJS := $(patsubst src/%.c,$(FUZZ_BUILD)/obj/%.o,$(FGT_LIB_SRCS))
FUZZ_SECONDS  ?= 20
FUZZ_SMOKE_SECONDS ?= 3

.SECONDARY: $(FUZZ_LIB_OBJS)
DEP_FILES += $(FUZZ_LIB_OBJS:.o=.d) $(FUZZ_BINS:=.d)

$(FUZZ_BUILD)/obj:
	mkdir -p $@

$(FUZZ_BUILD)/obj/%.o: src/%.c $(FUZZ_BUILD)/obj/%.d | $(FUZZ_BUILD)/obj
	@mkdir -p $(@D)
	$(CLANG) $(FUZZ_CFLAGS) $(DEPFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_BUILD)/fuzz_%.d $(FUZZ_LIB_OBJS)
	$(CLANG) $(FUZZ_CFLAGS) $(DEPFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIB_OBJS) $(FGT_STATIC_LIBS) -lbpf -lelf -lz -lm -lpthread

# kimage: the whole --kernel path, with the hostile-file builders as its own
# (bzImages made from fuzzed payloads) and as seeds
$(FUZZ_BUILD)/fuzz_kimage: tests/fuzz/fuzz_kimage.c $(FUZZ_BUILD)/fuzz_kimage.d tests/kimage_gen.c $(FUZZ_LIB_OBJS)
	$(CLANG) $(FUZZ_CFLAGS) $(DEPFLAGS) -Itests -fsanitize=fuzzer -o $@ $< tests/kimage_gen.c $(FUZZ_LIB_OBJS) \
		$(FGT_STATIC_LIBS) -lbpf -lelf -lz -lm -lpthread

# Its extra seeds, made anew each run: the crafted classes, and the first
# 64 KiB of every lab kernel file the cache holds (none on a fresh machine:
# the committed heads stand in).
FUZZ_SEEDS_kimage := $(FUZZ_BUILD)/kimage.seeds
FUZZ_LAB_CACHE ?= $(or $(FGT_CACHE),$(or $(XDG_CACHE_HOME),$(HOME)/.cache)/fgraphtop-lab)
.PHONY: $(FUZZ_SEEDS_kimage)
$(FUZZ_SEEDS_kimage): $(TEST_BUILD)/fgt-kimage-gen
	rm -rf $@ && mkdir -p $@
	$(TEST_BUILD)/fgt-kimage-gen $@ --fuzz
	@for f in $(FUZZ_LAB_CACHE)/kernels/*/bzImage $(FUZZ_LAB_CACHE)/kernels/*/vmlinux \
		$(FUZZ_LAB_CACHE)/arm64/kernels/*/Image; do \
		[ -f "$$f" ] || continue; \
		k=$$(basename "$$(dirname "$$f")"); \
		{ printf '\000'; head -c 65536 "$$f"; } > $@/$$k.$$(basename "$$f").head; \
	done

# run-fuzz SECONDS: every harness in turn; the executions of each are printed
define run-fuzz
	@failed=""; for n in $(FUZZ_NAMES); do \
		mkdir -p $(FUZZ_BUILD)/$$n.corpus; \
		seeds=""; [ $$n != kimage ] || seeds=$(FUZZ_SEEDS_kimage); \
		if $(FUZZ_BUILD)/fuzz_$$n -max_total_time=$(1) -print_final_stats=1 \
			-timeout=10 -artifact_prefix=$(FUZZ_BUILD)/$$n- $(FUZZ_BUILD)/$$n.corpus \
			tests/fuzz/corpus/$$n $$seeds > $(FUZZ_BUILD)/$$n.log 2>&1; then \
			echo "fuzz $$n: $$(sed -n 's/^stat::number_of_executed_units: *//p' \
				$(FUZZ_BUILD)/$$n.log) executions in $(1) s, no crash"; \
		else \
			echo "fuzz $$n: FAILED (see $(FUZZ_BUILD)/$$n.log)"; \
			grep -m3 -E 'ERROR|SUMMARY|Test unit written' $(FUZZ_BUILD)/$$n.log; \
			failed="$$failed $$n"; \
		fi; \
	done; \
	[ -z "$$failed" ] || { echo "fuzz: FAILED:$$failed"; exit 1; }
endef

.PHONY: test-fuzz test-fuzz-smoke fuzz-bins
fuzz-bins: $(FUZZ_BINS)

test-fuzz-smoke: $(FUZZ_BINS) $(FUZZ_SEEDS_kimage)
	$(call run-fuzz,$(FUZZ_SMOKE_SECONDS))

test-fuzz: $(FUZZ_BINS) $(FUZZ_SEEDS_kimage)
	$(call run-fuzz,$(FUZZ_SECONDS))

CHECK_TARGETS += test-fuzz-smoke
TEST_TARGETS += test-fuzz
