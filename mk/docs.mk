# mk/docs.mk: the demo, the documentation's tests. Included from the top-level
# Makefile (install is there: PREFIX, DESTDIR).

# make demo: host packages, the build, then lab/demo.sh: fgraphtop live on this
# host when its kernel can be observed, else the lab demo (two kernels under
# qemu, side by side). DEMO_ARGS are lab/demo.sh's options, e.g. DEMO_ARGS="-u 30000".
DEMO_ARGS ?=
.PHONY: demo
demo:
	$(MAKE) --no-print-directory deps
	$(MAKE) --no-print-directory all
	FGT_DEMO_SETUP=done lab/demo.sh $(DEMO_ARGS)

# README and man page checks (tests/docs/run.sh): the README's marked shell
# blocks run as written, options/messages/exit statuses agree with the tool,
# the man page is lint-clean, make install DESTDIR=... installs both.
.PHONY: test-docs
test-docs: $(BUILD)/fgraphtop
	tests/docs/run.sh

CHECK_TARGETS += test-docs
