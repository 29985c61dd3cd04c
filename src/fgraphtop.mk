# The main program: its own objects plus every library object in src/
# (json_writer, hist, ksyms, activation, verdict, prom...), linked statically.
FGT_MAIN_SRCS := src/fgraphtop.c src/plan.c src/output.c
FGT_LIB_SRCS  := $(filter-out $(FGT_MAIN_SRCS),$(wildcard src/*.c))
FGT_MAIN_OBJS := $(patsubst src/%.c,$(BUILD)/%.o,$(FGT_MAIN_SRCS))
FGT_LIB_OBJS  := $(patsubst src/%.c,$(BUILD)/%.o,$(FGT_LIB_SRCS))

# The skeletons are generated headers of the main objects.
$(FGT_MAIN_OBJS): $(BPF_SKELS)

$(BUILD)/fgraphtop: $(FGT_MAIN_OBJS) $(FGT_LIB_OBJS)
	$(CC) $(LDFLAGS) $(CFLAGS) $^ $(LDLIBS) -o $@
