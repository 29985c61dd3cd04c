# The kernel-independent userspace library: everything here builds and is
# unit-tested without a kernel (tests/tests.mk). The main program's objects
# are added by extending FGT_SRCS.
FGT_LIB_SRCS := src/activation.c src/actlog.c src/verdict.c src/hist.c src/ksyms.c \
		src/json_writer.c src/prom.c src/kfacts.c src/plan.c src/log.c src/record.c
FGT_LIB_HDRS := src/fgraphtop.h src/activation.h src/actlog.h src/verdict.h src/hist.h \
		src/ksyms.h src/json_writer.h src/log.h src/prom.h src/kfacts.h src/plan.h \
		src/record.h
# The command lines (no exit, no print: fuzzed in tests/fuzz).
FGT_LIB_SRCS += src/cli.c src/env.c src/check_env.c src/parse.c
FGT_LIB_HDRS += src/cli.h src/env.h src/check_env.h src/parse.h
# fgraphtop check: kernel identity, host state, trigger, verdict and outputs
FGT_LIB_SRCS += src/check.c src/trigger.c src/trigger_state.c src/park.c src/kernel_id.c \
		src/host_state.c src/holders.c
FGT_LIB_HDRS += src/clause.h src/check.h src/trigger.h src/trigger_state.h src/park.h \
		src/kernel_id.h src/host_state.h src/holders.h
# Everything fgraphtop prints (JSON writer, screen, text): renderers, no BPF.
FGT_LIB_SRCS += src/output.c src/via.c src/progress.c src/screen.c
FGT_LIB_HDRS += src/output.h src/exit_codes.h src/via.h src/progress.h src/screen.h
FGT_SRCS     := $(FGT_LIB_SRCS)
# Exposure: the unfixed walk's model and estimate; the BPF count
# that feeds it is src/exposure.c, in the main program (src/fgraphtop.mk).
FGT_LIB_SRCS += src/exposure_model.c
FGT_LIB_HDRS += src/exposure.h
# check --static: the decoder (Capstone), the kernel readers (kcore, vmlinux,
# bzImage: zlib, liblzma, libzstd), the glue. All linked from static archives.
FGT_LIB_SRCS += src/static_check.c src/static_kernel.c src/static_rec.c src/kread.c \
		src/kread_kallsyms.c src/ksyms_kcore.c
FGT_LIB_HDRS += src/static_check.h src/kread.h
FGT_STATIC_LIBS := -lcapstone -llzma -lzstd
LDLIBS := $(FGT_STATIC_LIBS) $(LDLIBS)
