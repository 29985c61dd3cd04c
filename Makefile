# fgraphtop: top-level build. `make` gives one static binary, build/fgraphtop.
#   make check   the quick tests: unit, schema, fuzz smoke, docs, shellcheck,
#                the lab drivers' options, this host's answer. No qemu, no apt (make deps installs what
#                they need), about a minute warm (the README says the same).
#   make test    make deps, make check, then the rest: fuzzing, the package,
#                the alert rules and the lab (kernels under qemu), in order.
# Fragments (included below) add their targets to CHECK_TARGETS (quick, host
# only) or TEST_TARGETS (the rest, run in order after check; the lab's last).
#   make test-long   make test, then TEST_LONG_TARGETS: the lab rounds that do
#                the same checks on more kernels than a warm make test has
#                time for (the README's "Tests" says which).

PREFIX     ?= /usr/local
DESTDIR    ?=
# ARCH=arm64 cross-builds build/arm64/fgraphtop (gcc-aarch64-linux-gnu, the
# arm64 multiarch -dev packages: lab/host-deps.sh); the default is x86-64.
ARCH       ?= x86
ifeq ($(ARCH),x86_64)
override ARCH := x86
endif
# Each ARCH's build directory, by name: make test-deb-arm64 (mk/deb.mk) needs
# both packages, whatever ARCH its own make has.
BUILD_x86   := build
BUILD_arm64 := build/arm64
ifeq ($(ARCH),x86)
BUILD      := $(BUILD_x86)
else ifeq ($(ARCH),arm64)
BUILD      := $(BUILD_arm64)
CROSS_COMPILE ?= aarch64-linux-gnu-
CC         := $(CROSS_COMPILE)gcc
else
$(error ARCH=$(ARCH): x86 (the default) or arm64)
endif
CC         ?= cc
CLANG      ?= clang
BPFTOOL    ?= bpftool
# A distribution's CFLAGS replace these two; the warnings are always added.
CFLAGS     ?= -O2 -g
override CFLAGS += -Wall -Wextra -Wno-unused-parameter
CPPFLAGS   += -I$(BUILD) -Isrc -I.
LDLIBS     := -lbpf -lelf -lz
LDFLAGS    += -static

# A recipe that fails leaves no half-made target behind.
.DELETE_ON_ERROR:
# The tests' Python must not leave __pycache__ in the tree.
export PYTHONDONTWRITEBYTECODE := 1

.PHONY: all
all: $(BUILD)/fgraphtop

CHECK_TARGETS :=
TEST_TARGETS  :=
TEST_LONG_TARGETS :=

# BPF objects and their skeletons (CO-RE against vmlinux/$(ARCH)/vmlinux.h).
BPF_CFLAGS := -g -O2 -Wall -Wno-missing-declarations -target bpf -D__TARGET_ARCH_$(ARCH) -Ivmlinux/$(ARCH) -Isrc -Ibpf
BPF_SRCS   := $(wildcard bpf/*.bpf.c)
BPF_OBJS   := $(patsubst bpf/%.bpf.c,$(BUILD)/%.bpf.o,$(BPF_SRCS))
BPF_SKELS  := $(patsubst bpf/%.bpf.c,$(BUILD)/%.skel.h,$(BPF_SRCS))

# Header dependencies come from the compiler (-MMD: a .d file beside each
# object, -MP: a header removed is no error), read back at the end.
DEPFLAGS   := -MMD -MP

$(BUILD)/%.bpf.o: bpf/%.bpf.c vmlinux/$(ARCH)/vmlinux.h | $(BUILD)
	$(CLANG) $(BPF_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	$(BPFTOOL) gen skeleton $< > $@

# Kept: as intermediates of the skeletons, make deleted the objects no rule
# names after the first build of a clean tree, and the next make built them,
# the skeletons and all that includes them again.
.SECONDARY: $(BPF_OBJS)

# Userspace objects: every src/**/*.c, one rule, into the same folders. Each also depends on its .d:
# an object without one (built before -MMD, or its .d lost) is rebuilt,
# never trusted with headers it may not have seen.
$(BUILD)/%.o: src/%.c $(BUILD)/%.d | $(BUILD)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -c $< -o $@

# The .d files are made by the compiler, never by a rule of their own: each
# is named as an explicit target (a pattern's would be intermediate, and a
# missing intermediate file does not make its dependents rebuild).
DEP_FILES := $(patsubst src/%.c,$(BUILD)/%.d,$(wildcard src/*.c src/*/*.c)) \
	     $(patsubst bpf/%.bpf.c,$(BUILD)/%.bpf.d,$(wildcard bpf/*.bpf.c))

include src/src.mk
include tests/tests.mk
include tests/fuzz/fuzz.mk
include mk/docs.mk
include mk/deb.mk
include mk/lint.mk
# The lab last: its tests are the slowest, and a run ends with their table.
include lab/lab.mk
include lab/exposure.mk
include lab/atlas.mk
include lab/bench.mk

$(BUILD):
	mkdir -p $@

$(DEP_FILES):
-include $(wildcard $(DEP_FILES))

.PHONY: check
check: $(CHECK_TARGETS)
	@echo "check: all passed ($(words $(CHECK_TARGETS)) targets)"

# In order whatever -j says: set-up first, the quick tests, then the rest.
# Every one runs even when one fails; the status says whether any did.
.PHONY: test
# make test's targets that boot one guest at a time and build nothing another
# one builds: run two at a time (tests/paired.sh), longest first, after the
# others and after what they share (TEST_PAIRED_PREP, with -k: one that fails
# must not leave the rest unbuilt, for two targets to build side by side). The rest run one after
# another: tests/lab/tool.sh and check.sh boot two guests at a time already.
# One after another, these nine left one core of two idle for 27 minutes of
# a cold make test (README: cold and warm times).
TEST_PAIRED := test-lab-arm64 test-lab-pressure test-deb-vm test-lab-exposure \
	lab-test-runner test-lab-live test-lab-fleet test-lab-caps test-lab-lockdown
TEST_PAIRED_PREP = lab lab-arm64 $(DEB_FILE) $(FGT_CAPBOUND) $(FGT_EXPOSURE) \
	$(TEST_BUILD)/fgt-prom-sample
TEST_SERIAL = $(filter-out $(TEST_PAIRED),$(TEST_TARGETS))

# Each target's time is printed after it, so that a CI log shows where the
# budget goes (README: cold and warm times).
test:
	$(if $(filter-out $(TEST_TARGETS),$(TEST_PAIRED)),$(error TEST_PAIRED names what is not in TEST_TARGETS: $(filter-out $(TEST_TARGETS),$(TEST_PAIRED))))
	$(MAKE) --no-print-directory deps
	$(MAKE) --no-print-directory check
	@failed=""; t0=$$(date +%s); for t in $(TEST_SERIAL); do \
		s=$$(date +%s); echo "== make $$t"; \
		$(MAKE) --no-print-directory $$t || failed="$$failed $$t"; \
		echo "-- make $$t: $$(( $$(date +%s) - s )) s"; \
	done; \
	$(MAKE) --no-print-directory -k $(TEST_PAIRED_PREP) || failed="$$failed prep"; \
	MAKE="$(MAKE)" tests/paired.sh $(BUILD)/test-logs $(TEST_PAIRED) || \
		failed="$$failed $$(cat $(BUILD)/test-logs/failed 2>/dev/null || echo paired)"; \
	if [ -n "$$failed" ]; then echo "test: FAILED:$$failed"; exit 1; fi; \
	echo "test: all passed ($$(( $$(date +%s) - t0 )) s after make check)"

.PHONY: test-long
test-long:
	@failed=""; $(MAKE) --no-print-directory test || failed=" test"; \
	for t in $(TEST_LONG_TARGETS); do \
		s=$$(date +%s); echo "== make $$t"; \
		$(MAKE) --no-print-directory $$t || failed="$$failed $$t"; \
		echo "-- make $$t: $$(( $$(date +%s) - s )) s"; \
	done; \
	if [ -n "$$failed" ]; then echo "test-long: FAILED:$$failed"; exit 1; fi; \
	echo "test-long: all passed"

# The binary, the man page and what they cite: the JSON reference and its
# schema, the user's documents, the alert rules with their tests (man page,
# FILES).
FGT_DOCS := docs/json.md docs/fleet.md docs/static.md docs/troubleshooting.md
FGT_DATA := docs/fgraphtop.schema.json dist/prometheus/fgraphtop.rules.yml \
	    dist/prometheus/fgraphtop.rules.test.yml
.PHONY: install
install: $(BUILD)/fgraphtop
	install -D -m 0755 $(BUILD)/fgraphtop $(DESTDIR)$(PREFIX)/sbin/fgraphtop
	install -D -m 0644 man/fgraphtop.8 $(DESTDIR)$(PREFIX)/share/man/man8/fgraphtop.8
	install -d $(DESTDIR)$(PREFIX)/share/doc/fgraphtop $(DESTDIR)$(PREFIX)/share/fgraphtop
	install -m 0644 $(FGT_DOCS) $(DESTDIR)$(PREFIX)/share/doc/fgraphtop/
	install -m 0644 $(FGT_DATA) $(DESTDIR)$(PREFIX)/share/fgraphtop/
	@# json.md links the schema as its neighbour, as in the tree
	ln -sfn ../../fgraphtop/fgraphtop.schema.json \
		$(DESTDIR)$(PREFIX)/share/doc/fgraphtop/fgraphtop.schema.json

.PHONY: clean
clean:
	rm -rf $(BUILD)

# Host packages for building, testing and the lab (idempotent, quick when warm).
.PHONY: deps
deps:
	lab/host-deps.sh
