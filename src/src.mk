# src/: one folder per room (docs/DESIGN.md has the map), main programs on top.
#
# The library: every room's sources that build and are unit-tested without a
# kernel or a BPF skeleton (tests/tests.mk links them all). Rooms are taken
# whole, so a new file is built where it is put.
FGT_LIB_ROOMS := common facts host model static render check hold
FGT_BPF_SRCS  := src/watch/session.c src/watch/attach.c src/watch/drain.c src/watch/snapshot.c \
		 src/watch/follow.c src/watch/probe.c src/watch/exposure.c src/watch/join.c \
		 src/static/kread_bpf.c
FGT_LIB_SRCS  := $(filter-out $(FGT_BPF_SRCS),$(wildcard $(FGT_LIB_ROOMS:%=src/%/*.c))) \
		 src/watch/plan.c src/watch/assemble.c src/env.c src/check_main.c src/hold_main.c
# check --static links Capstone and the payload codecs (zlib, liblzma, libzstd,
# liblz4, libbz2, liblzo2) and libarchive (check --kernel PKG.deb) statically.
FGT_STATIC_LIBS := -lcapstone -larchive -llzma -lzstd -llz4 -lbz2 -llzo2
LDLIBS := $(FGT_STATIC_LIBS) $(LDLIBS)

# The main program: the BPF side's users (the session, the probes, the
# exposure count, the static verdict's BPF reader), the live tool (live/:
# its loop runs the session; live_main.c, its command line and set-up) and
# main(), the command table, over the library, linked statically into one
# binary.
FGT_LIVE_SRCS := $(wildcard src/live/*.c)
FGT_MAIN_SRCS := src/main.c src/live_main.c $(FGT_LIVE_SRCS) $(FGT_BPF_SRCS)
FGT_SRCS      := $(FGT_LIB_SRCS) $(FGT_MAIN_SRCS)
FGT_MAIN_OBJS := $(patsubst src/%.c,$(BUILD)/%.o,$(FGT_MAIN_SRCS))
FGT_LIB_OBJS  := $(patsubst src/%.c,$(BUILD)/%.o,$(FGT_LIB_SRCS))

# The skeletons are generated headers of the main objects.
$(FGT_MAIN_OBJS): $(BPF_SKELS)

# FGT_LINK_MAP=1: the linker's map beside the binary, $@.map, which says
# what every static archive gave it (debian/rules names their sources in
# Built-Using from it: debian/built-using).
FGT_MAP_FLAGS = -Wl,-Map=$@.map
$(BUILD)/fgraphtop: $(FGT_MAIN_OBJS) $(FGT_LIB_OBJS)
	$(CC) $(LDFLAGS) $(CFLAGS) $^ $(LDLIBS) -lm $(if $(FGT_LINK_MAP),$(FGT_MAP_FLAGS)) -o $@

# The unsupported-kernel answer on the machine running the tests (CI: exit 3).
.PHONY: test-host
test-host: $(BUILD)/fgraphtop
	tests/host-status.sh $(BUILD)/fgraphtop
	@# the fgraph branch can fail: on a host without fgraph, judged as if it
	@# had one, the real exit 3 must be refused
	@if ! grep -qw register_ftrace_graph /proc/kallsyms 2>/dev/null; then \
		if FGT_HOST_ASSUME_FGRAPH=1 tests/host-status.sh $(BUILD)/fgraphtop >/dev/null 2>&1; then \
			echo "test-host: FAIL: the fgraph branch passed a run that exited 3"; exit 1; \
		fi; echo "test-host: ok (its fgraph branch refuses exit 3)"; fi
CHECK_TARGETS += test-host

# The static verdict's developer entry point and recorder (fgt-static): the lab
# runs it in guests (lab/scenarios/static-check.sh), tests/static-lab.sh on the
# lab's kernel files. kread_bpf.o installs the BPF fallback reader
# (bpf/kread.bpf.c) in the binaries that link it.
$(BUILD)/static/kread_bpf.o: $(BUILD)/kread.skel.h
$(BUILD)/fgt-static: $(BUILD)/static_main.o $(BUILD)/static/kread_bpf.o $(FGT_LIB_OBJS)
	$(CC) $(LDFLAGS) $(CFLAGS) $^ $(LDLIBS) -lm -o $@
all: $(BUILD)/fgt-static
