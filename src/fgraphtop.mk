# The main program: the BPF side's users (the session, the probes, the
# exposure count) and main(), plus the kernel-independent library of
# src/src.mk, linked statically into one binary.
FGT_MAIN_SRCS := src/fgraphtop.c src/session.c src/probe.c src/exposure.c src/kread_bpf.c
FGT_SRCS      += $(FGT_MAIN_SRCS)
FGT_MAIN_OBJS := $(patsubst src/%.c,$(BUILD)/%.o,$(FGT_MAIN_SRCS))
FGT_LIB_OBJS  := $(patsubst src/%.c,$(BUILD)/%.o,$(FGT_LIB_SRCS))

# The skeletons are generated headers of the main objects.
$(FGT_MAIN_OBJS): $(BPF_SKELS)

$(BUILD)/fgraphtop: $(FGT_MAIN_OBJS) $(FGT_LIB_OBJS)
	$(CC) $(LDFLAGS) $(CFLAGS) $^ $(LDLIBS) -lm -o $@

# The unsupported-kernel answer on the machine running the tests (CI: exit 3).
.PHONY: test-host
test-host: $(BUILD)/fgraphtop
	tests/host-status.sh $(BUILD)/fgraphtop
CHECK_TARGETS += test-host

# The static verdict's developer entry point and recorder (fgt-static): the lab
# runs it in guests (lab/scenarios/static-check.sh), tests/static-lab.sh on the
# lab's kernel files. kread_bpf.o installs the BPF fallback reader
# (bpf/kread.bpf.c) in the binaries that link it.
$(BUILD)/kread_bpf.o: $(BUILD)/kread.skel.h
$(BUILD)/fgt-static: $(BUILD)/static_main.o $(BUILD)/kread_bpf.o $(FGT_LIB_OBJS)
	$(CC) $(LDFLAGS) $(CFLAGS) $^ $(LDLIBS) -lm -o $@
all: $(BUILD)/fgt-static
