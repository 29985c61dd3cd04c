# Unit tests: cmocka (Debian's libcmocka-dev), no kernel needed. Built with the
# host compiler and sanitizers, apart from the static release build.
TEST_BUILD    := $(BUILD)/tests
TEST_CFLAGS   := -O1 -g -Wall -Wextra -Wno-unused-parameter \
		 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
TEST_CPPFLAGS := -Isrc -Itests -D_GNU_SOURCE
TEST_LDLIBS   := -lcmocka -lm -lbpf -lelf -lz -lpthread
TEST_HELPERS  := tests/events.c tests/gen.c
UNIT_TESTS    := json hist ksyms activation actlog verdict prom check_kernel_id check_host check_trigger check output via plan bpf_table env exposure
UNIT_BINS     := $(UNIT_TESTS:%=$(TEST_BUILD)/test_%)

$(TEST_BUILD):
	mkdir -p $@

$(TEST_BUILD)/test_%: tests/test_%.c $(FGT_LIB_SRCS) $(FGT_LIB_HDRS) $(TEST_HELPERS) \
		tests/events.h tests/gen.h | $(TEST_BUILD)
	$(CC) $(TEST_CFLAGS) $(TEST_CPPFLAGS) -o $@ $< $(FGT_LIB_SRCS) $(TEST_HELPERS) $(TEST_LDLIBS)

# The probe table against the BPF object it configures.
$(TEST_BUILD)/test_bpf_table: $(BUILD)/fgraphtop.bpf.o

# Writes a synthetic run in the recorded format (tests/data/README).
$(TEST_BUILD)/fgt-gen: tests/gen_main.c $(TEST_HELPERS) tests/events.h tests/gen.h | $(TEST_BUILD)
	$(CC) $(TEST_CFLAGS) $(TEST_CPPFLAGS) -o $@ $< $(TEST_HELPERS)

# Every binary runs even when one fails; the status says whether any did.
.PHONY: test-unit test
test-unit: $(UNIT_BINS)
	@failed=""; \
	for t in $(UNIT_BINS); do \
		FGT_TEST_DATA=tests/data $$t || failed="$$failed $${t##*/}"; \
	done; \
	if [ -n "$$failed" ]; then echo "test-unit: FAILED:$$failed"; exit 1; fi; \
	echo "test-unit: all $(words $(UNIT_BINS)) suites passed"

# The JSON lines the output test writes, checked against docs/json.md.
.PHONY: test-schema
test-schema: $(TEST_BUILD)/test_output $(TEST_BUILD)/test_check
	@rm -f $(TEST_BUILD)/output.jsonl
	FGT_TEST_DATA=tests/data FGT_JSON_OUT=$(TEST_BUILD)/output.jsonl $(TEST_BUILD)/test_output > /dev/null
	FGT_TEST_DATA=tests/data FGT_JSON_OUT=$(TEST_BUILD)/output.jsonl $(TEST_BUILD)/test_check > /dev/null
	python3 tests/json_schema.py $(TEST_BUILD)/output.jsonl
	@grep -q '"type":"check"' $(TEST_BUILD)/output.jsonl || \
		{ echo "test-schema: no check answer was checked"; exit 1; }

test: test-unit test-schema
