# mk/kernel.mk - memtrace.ko and its guest tests.
#
#   make module        memtrace.ko against the running kernel's headers
#                      (skipped with a note when they are not installed)
#   make kernel-tests  static guest test programs -> build/kernel-tests/
#   make check-kernel  the qemu suite alone (tests/suites.d/50-kernel.sh)
#   make check-kernel-debug  the guest tests in a KASAN/lockdep/KCOV build
#                      of Debian's 6.12 kernel (tests/kernel/debug-suite.sh;
#                      the first run builds the kernel, then it is cached)
KDIR ?= /lib/modules/$(shell uname -r)/build
KERNEL_SRCS = $(wildcard kernel/memtrace*.c kernel/memtrace*.h) \
	      kernel/pebs_hook.c kernel/pebs_hook.h kernel/Kbuild \
	      include/uapi/memtrace.h
# one program per tests/kernel/*.c, and mtktest from tests/kernel/mtktest/
KTEST_SRCS  = $(wildcard tests/kernel/*.c)
KTEST_BINS  = $(KTEST_SRCS:tests/kernel/%.c=$(BUILD)/kernel-tests/%) \
	      $(BUILD)/kernel-tests/mtktest
MTKTEST_SRCS = $(wildcard tests/kernel/mtktest/*.c)

.PHONY: module kernel-tests check-kernel check-kernel-debug
all: module kernel-tests

# Builds in a copy (build/module/) so that the source tree stays clean.
module:
	@if [ -d "$(KDIR)" ]; then \
		tests/kernel/build-module.sh "$(KDIR)" $(BUILD)/module; \
	else \
		echo "module: no kernel headers in $(KDIR), memtrace.ko not built"; \
	fi

kernel-tests: $(KTEST_BINS) $(WORKLOADS)	# the guests run the workloads too

$(BUILD)/kernel-tests/%: tests/kernel/%.c $(wildcard tests/kernel/*.h) include/uapi/memtrace.h
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) -O2 -g -static -pthread -o $@ $<

$(BUILD)/kernel-tests/mtktest: $(MTKTEST_SRCS) $(wildcard tests/kernel/mtktest/*.h) \
		$(wildcard tests/kernel/*.h) include/uapi/memtrace.h
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) -O2 -g -static -pthread -o $@ $(MTKTEST_SRCS)

check-kernel: all static kernel-tests
	@tests/suites.d/50-kernel.sh

check-kernel-debug: deps
	@$(MAKE) --no-print-directory all static kernel-tests
	@tests/kernel/debug-suite.sh

# Guest benchmark (bench/kernel/run.sh boots it; figures: docs/kernel-module.md)
kernel-tests: $(BUILD)/kernel-tests/mtbench
$(BUILD)/kernel-tests/mtbench: bench/kernel/mtbench.c tests/kernel/mtlib.h include/uapi/memtrace.h
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) -O2 -g -static -o $@ $<
