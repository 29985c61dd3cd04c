# The main program: the BPF side's users (the session, the probes, the
# exposure count) and main(), plus the kernel-independent library of
# src/src.mk, linked statically into one binary.
FGT_MAIN_SRCS := src/fgraphtop.c src/session.c src/probe.c src/exposure.c
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
