# libFuzzer harnesses (tests/fuzz/fuzz_*.c) over the parsers of untrusted input:
# kallsyms, the build-ID notes, both option parsers, the trigger's state file
# and instance names, /proc/self/smaps (selfmem), check --kernel's whole path on a file (kimage),
# and what BPF hands userspace (bpfdata: the ring's messages into the assemblers, the mapped
# state, the activation log's records and indices, the exposure records). clang -fsanitize=fuzzer,address,undefined; each harness
# starts from its seed corpus in tests/fuzz/corpus/NAME (never written to: new
# inputs go to build/fuzz/NAME.corpus). A crash, a leak or an abort() of a
# harness's own check fails the run; the crashing input is left in build/fuzz/.
#   make test-fuzz-smoke   a few seconds each (make check)
#   make test-fuzz         FUZZ_SECONDS each, 20 by default (make test)
FUZZ_BUILD    := $(BUILD)/fuzz
FUZZ_NAMES    := ksyms notes env check_args state kimage smaps bpfdata
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

# clang writes the .d after the object (gcc before it): the touch keeps the
# object the newer, else every make rebuilt all of them (38 s a smoke run)
$(FUZZ_BUILD)/obj/%.o: src/%.c $(FUZZ_BUILD)/obj/%.d | $(FUZZ_BUILD)/obj
	@mkdir -p $(@D)
	$(CLANG) $(FUZZ_CFLAGS) $(DEPFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@
	@touch $@

$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_BUILD)/fuzz_%.d $(FUZZ_LIB_OBJS)
	$(CLANG) $(FUZZ_CFLAGS) $(DEPFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIB_OBJS) $(FGT_STATIC_LIBS) -lbpf -lelf -lz -lm -lpthread
	@touch $@

# kimage: the whole --kernel path, with the hostile-file builders as its own
# (bzImages made from fuzzed payloads) and as seeds
$(FUZZ_BUILD)/fuzz_kimage: tests/fuzz/fuzz_kimage.c $(FUZZ_BUILD)/fuzz_kimage.d tests/lib/kimage_gen.c $(FUZZ_LIB_OBJS)
	$(CLANG) $(FUZZ_CFLAGS) $(DEPFLAGS) -Itests -fsanitize=fuzzer -o $@ $< tests/lib/kimage_gen.c $(FUZZ_LIB_OBJS) \
		$(FGT_STATIC_LIBS) -lbpf -lelf -lz -lm -lpthread
	@touch $@

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

# run-fuzz SECONDS: every harness, two side by side (tests/fuzz/run.sh); the
# executions of each are printed
define run-fuzz
	@tests/fuzz/run.sh $(FUZZ_BUILD) $(1) $(FUZZ_SEEDS_kimage) $(FUZZ_NAMES)
endef

.PHONY: test-fuzz test-fuzz-smoke fuzz-bins
fuzz-bins: $(FUZZ_BINS)

test-fuzz-smoke: $(FUZZ_BINS) $(FUZZ_SEEDS_kimage)
	$(call run-fuzz,$(FUZZ_SMOKE_SECONDS))

test-fuzz: $(FUZZ_BINS) $(FUZZ_SEEDS_kimage)
	$(call run-fuzz,$(FUZZ_SECONDS))

CHECK_TARGETS += test-fuzz-smoke
TEST_TARGETS += test-fuzz
