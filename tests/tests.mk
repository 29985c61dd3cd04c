# Unit tests: cmocka (Debian's libcmocka-dev), no kernel needed. Built with the
# host compiler and sanitizers, apart from the static release build. The
# library's sources are compiled once, into a test archive every test links.
TEST_BUILD    := $(BUILD)/tests
TEST_CFLAGS   := -O1 -g -Wall -Wextra -Wno-unused-parameter \
		 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
TEST_CPPFLAGS := -Isrc -I. -Itests -D_GNU_SOURCE
TEST_LDLIBS   := -lcmocka -lm $(FGT_STATIC_LIBS) -lbpf -lelf -lz -lpthread
TEST_HELPERS  := tests/lib/events.c tests/lib/gen.c tests/lib/kimage_gen.c tests/lib/agg_replay.c
# Each unit test sits in the folder of the room it tests, named after the
# unit it tests: tests/ROOM/test_NAME.c (bpf/'s in tests/bpf; a file at src/'s
# top, env.c, at tests/'s top), built into build/tests/ROOM/test_NAME.
UNIT_TESTS    := common/test_json common/test_readall common/test_selfmem common/test_waitnote \
		 facts/test_bpf_table \
		 host/test_ksyms host/test_kernel_id host/test_host_state host/test_holders \
		 model/test_activation model/test_act_log_reader model/test_verdict model/test_hist \
		 model/test_trigger_words model/test_exposure_model model/test_progress model/test_joined \
		 bpf/test_agg \
		 static/test_static static/test_static_arm64 static/test_static_read \
		 static/test_kimage_bad \
		 watch/test_plan \
		 render/test_output \
		 check/test_check check/test_trigger check/test_prom \
		 hold/test_hold \
		 test_env
UNIT_BINS     := $(UNIT_TESTS:%=$(TEST_BUILD)/%)
TEST_LIB      := $(TEST_BUILD)/libfgt-test.a
TEST_LIB_OBJS := $(patsubst %.c,$(TEST_BUILD)/obj/%.o,$(FGT_LIB_SRCS) $(TEST_HELPERS))

$(TEST_BUILD) $(TEST_BUILD)/obj/src $(TEST_BUILD)/obj/tests:
	mkdir -p $@

$(TEST_BUILD)/obj/src/%.o: src/%.c $(TEST_BUILD)/obj/src/%.d | $(TEST_BUILD)/obj/src
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) $(TEST_CPPFLAGS) $(DEPFLAGS) -c $< -o $@

$(TEST_BUILD)/obj/tests/%.o: tests/%.c $(TEST_BUILD)/obj/tests/%.d | $(TEST_BUILD)/obj/tests
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) $(TEST_CPPFLAGS) $(DEPFLAGS) -c $< -o $@

DEP_FILES += $(TEST_LIB_OBJS:.o=.d) $(UNIT_BINS:=.d) $(TEST_BUILD)/fgt-kimage-gen.d
# A build tree from before a source moved (tests/ into its rooms' folders)
# has .d files naming it where it was: no rule for those old paths, so make
# would stop there. Nothing to make for them: what lists them is rebuilt from
# its rule's own, current sources, and its new .d drops them.
tests/%.c:
	@:

$(TEST_LIB): $(TEST_LIB_OBJS)
	rm -f $@
	ar rcs $@ $^

$(UNIT_BINS): $(TEST_BUILD)/%: tests/%.c $(TEST_BUILD)/%.d $(TEST_LIB) | $(TEST_BUILD)
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) $(TEST_CPPFLAGS) $(DEPFLAGS) -o $@ $< $(TEST_LIB) $(TEST_LDLIBS)

# The probe table against the BPF object it configures.
$(TEST_BUILD)/facts/test_bpf_table: $(BUILD)/fgraphtop.bpf.o

# Hostile kernel files, one per class (tests/lib/kimage_gen.h).
$(TEST_BUILD)/fgt-kimage-gen: tests/lib/kimage_gen_main.c $(TEST_LIB) | $(TEST_BUILD)
	$(CC) $(TEST_CFLAGS) $(TEST_CPPFLAGS) $(DEPFLAGS) -o $@ $< $(TEST_LIB) $(TEST_LDLIBS)

# check --kernel, as shipped, on each of them: status 3, one line, bounded.
.PHONY: test-kimage-bad
test-kimage-bad: $(BUILD)/fgraphtop $(TEST_BUILD)/fgt-kimage-gen
	python3 tests/kimage-bad.py $(BUILD)/fgraphtop $(TEST_BUILD)/fgt-kimage-gen
CHECK_TARGETS += test-kimage-bad

# A textfile as check --prometheus writes it, by the same renderer
# (lab/fleet-e2e.sh's control hosts and --synthetic).
$(TEST_BUILD)/fgt-prom-sample: tests/lib/check_prom_sample.c $(TEST_LIB) | $(TEST_BUILD)
	$(CC) $(TEST_CFLAGS) $(TEST_CPPFLAGS) -o $@ $< $(TEST_LIB) $(TEST_LDLIBS)

# Writes a synthetic run in the recorded format (tests/data/README).
$(TEST_BUILD)/fgt-gen: tests/lib/gen_main.c $(TEST_LIB) | $(TEST_BUILD)
	$(CC) $(TEST_CFLAGS) $(TEST_CPPFLAGS) -o $@ $< $(TEST_LIB)

# Every binary runs even when one fails; the status says whether any did.
.PHONY: test-unit
test-unit: $(UNIT_BINS)
	@failed=""; \
	for t in $(UNIT_BINS); do \
		FGT_TEST_DATA=tests/data $$t || failed="$$failed $${t##*/}"; \
	done; \
	if [ -n "$$failed" ]; then echo "test-unit: FAILED:$$failed"; exit 1; fi; \
	echo "test-unit: all $(words $(UNIT_BINS)) suites passed"

# The JSON lines the output and check tests write, checked against
# docs/fgraphtop.schema.json (docs/json.md's JSON Schema) with python3-jsonschema.
.PHONY: test-schema
test-schema: $(TEST_BUILD)/render/test_output $(TEST_BUILD)/check/test_check \
	     $(TEST_BUILD)/static/test_static $(TEST_BUILD)/hold/test_hold
	@rm -f $(TEST_BUILD)/output.jsonl
	FGT_TEST_DATA=tests/data FGT_JSON_OUT=$(TEST_BUILD)/output.jsonl $(TEST_BUILD)/render/test_output > /dev/null
	FGT_TEST_DATA=tests/data FGT_JSON_OUT=$(TEST_BUILD)/output.jsonl $(TEST_BUILD)/check/test_check > /dev/null 2>&1
	FGT_TEST_DATA=tests/data FGT_JSON_OUT=$(TEST_BUILD)/output.jsonl $(TEST_BUILD)/static/test_static > /dev/null
	FGT_TEST_DATA=tests/data FGT_JSON_OUT=$(TEST_BUILD)/output.jsonl $(TEST_BUILD)/hold/test_hold > /dev/null
	python3 tests/json_schema.py --self-test
	python3 tests/json_schema.py $(TEST_BUILD)/output.jsonl
	@for t in check progress holders hold; do \
		grep -q "\"type\":\"$$t\"" $(TEST_BUILD)/output.jsonl || \
			{ echo "test-schema: no $$t record was checked"; exit 1; }; \
	done

CHECK_TARGETS += test-unit test-schema

# The static verdict on every lab kernel, from its files on this host (no
# guest): tests/static-lab.sh. Needs the kernels (`make lab`).
.PHONY: test-static-lab
test-static-lab: $(BUILD)/fgt-static $(BUILD)/fgraphtop lab
	tests/static-lab.sh offline
TEST_TARGETS += test-static-lab
# and on the kernels only make test-long has (lab/kernels.sh list --tier long)
.PHONY: test-static-lab-long
test-static-lab-long: $(BUILD)/fgt-static $(BUILD)/fgraphtop lab-long
	FGT_LAB_TIER=long tests/static-lab.sh offline
TEST_LONG_TARGETS += test-static-lab-long

# The static verdict on Debian's arm64 kernels, from their Images on this
# host, each site confirmed by aarch64 objdump (tests/static-arm64.sh). It
# fetches the three packages once (lab/arm64-kernels.sh, cached by version).
.PHONY: test-static-arm64
test-static-arm64: $(BUILD)/fgt-static $(BUILD)/fgraphtop
	tests/static-arm64.sh
TEST_TARGETS += test-static-arm64

# The rooms of src/ (docs/DESIGN.md "Rooms"): includes go down or sideways
# within a room, never up nor between rooms side by side (live/ and
# check/), and no circles by include or by call; the self-test shows the
# call check failing on a circle one header hides, and live/ including
# check/ refused.
.PHONY: test-rooms
test-rooms:
	python3 tests/rooms.py --self-test
	python3 tests/rooms.py
CHECK_TARGETS += test-rooms

# The lab's checkers on runs recorded in the lab (tests/data/lab): the same
# verdict on every machine, whatever its pace. live-narrow-60: the 60-column
# live-screen run on lab-stock (tests/lab/live.sh), with two activations under
# way in turn; each frame is held to the facts of the one it shows (CI's
# test-lab-live failed when every frame was held to the first's), and every
# statement of the header to its last words. live-narrow-60-cut: the run
# before the header wrapped: the same check must find its rows cut.
.PHONY: test-lab-replay
test-lab-replay:
	@mkdir -p $(TEST_BUILD); py=python3; $$py -c 'import pyte' 2>/dev/null || py=/usr/bin/python3; \
	r=$(TEST_BUILD)/replay-narrow.txt; \
	$$py tests/lab/live_check.py tests/data/lab/live-narrow-60.jsonl.xz --narrow 60 > $$r 2>&1 || \
		{ cat $$r; exit 1; }; \
	grep -q '^ok   narrow: 49 frames of the activations \[1, 2\]' $$r && \
	grep -q '^ok   narrow: the header, the holders. heading and the fork path whole in 170 frames' $$r || \
		{ cat $$r; echo "test-lab-replay: the recording's 170 frames (49 of activations 1 and 2 under way) were not all judged"; exit 1; }; \
	$$py tests/lab/live_check.py tests/data/lab/live-narrow-60-cut.jsonl.xz --narrow 60 > $$r.cut 2>&1 && \
		{ cat $$r.cut; echo "test-lab-replay: the run with the header cut passed the narrow check"; exit 1; }; \
	grep -q "^FAIL narrow: the header, the holders' heading and the fork path whole in 162 frames: cut \[('verdict '" $$r.cut || \
		{ cat $$r.cut; echo "test-lab-replay: the cut header was not the narrow check's finding"; exit 1; }
	@echo "test-lab-replay: live_check --narrow 60 passes on the recorded run (170 frames, 49 with activations 1 and 2 under way) and finds the older run's header cut"
CHECK_TARGETS += test-lab-replay
