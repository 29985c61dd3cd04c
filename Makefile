# fgraphtop: top-level build. `make` gives one static binary, build/fgraphtop.
# The lab (lab/lab.mk), the unit tests (tests/tests.mk) and the benchmarks
# (lab/bench.mk) live in their own fragments, included below.

PREFIX     ?= /usr/local
DESTDIR    ?=
BUILD      := build
ARCH       := x86
CC         ?= cc
CLANG      ?= clang
BPFTOOL    ?= bpftool
CFLAGS     ?= -O2 -g -Wall -Wextra -Wno-unused-parameter
CPPFLAGS   += -I$(BUILD) -Isrc
LDLIBS     := -lbpf -lelf -lz
LDFLAGS    += -static

.PHONY: all
all: $(BUILD)/fgraphtop

# `make test` does its own set-up on a fresh machine. This rule comes before
# every fragment's `test:` line, so host packages are installed first; the lab
# tests then depend on `lab` (kernels and guest image, a no-op when warm).
.PHONY: test
test: deps

# BPF objects and their skeletons (CO-RE against vmlinux/$(ARCH)/vmlinux.h).
BPF_CFLAGS := -g -O2 -Wall -Wno-missing-declarations -target bpf -D__TARGET_ARCH_$(ARCH) -Ivmlinux/$(ARCH) -Isrc -Ibpf
BPF_SRCS   := $(wildcard bpf/*.bpf.c)
BPF_OBJS   := $(patsubst bpf/%.bpf.c,$(BUILD)/%.bpf.o,$(BPF_SRCS))
BPF_SKELS  := $(patsubst bpf/%.bpf.c,$(BUILD)/%.skel.h,$(BPF_SRCS))

$(BUILD)/%.bpf.o: bpf/%.bpf.c src/fgraphtop.h $(wildcard bpf/*.h) vmlinux/$(ARCH)/vmlinux.h | $(BUILD)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	$(BPFTOOL) gen skeleton $< > $@.tmp && mv $@.tmp $@

# Userspace objects: every src/*.c, one rule.
$(BUILD)/%.o: src/%.c $(wildcard src/*.h) | $(BUILD)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

-include src/src.mk
-include src/fgraphtop.mk
-include tests/tests.mk
-include mk/docs.mk
-include mk/deb.mk
-include mk/exposure.mk
# The lab last: its tests are the slowest, and a run ends with their table.
-include lab/lab.mk
-include lab/bench.mk

$(BUILD):
	mkdir -p $@

.PHONY: install
install: $(BUILD)/fgraphtop
	install -D -m 0755 $(BUILD)/fgraphtop $(DESTDIR)$(PREFIX)/sbin/fgraphtop
	install -D -m 0644 man/fgraphtop.8 $(DESTDIR)$(PREFIX)/share/man/man8/fgraphtop.8

.PHONY: clean
clean:
	rm -rf $(BUILD)

# Host packages for building, testing and the lab (idempotent, quick when warm).
.PHONY: deps
deps:
	lab/host-deps.sh
