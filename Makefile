# memtrace top-level Makefile.
#
#   make          build memtracectl, the test programs and (where kernel
#                 headers are installed) memtrace.ko
#   make check    install missing Debian packages (as root), build, run every
#                 test suite; ends with "N passed, N failed"
#   make demo     record the bundled workload and write the analysis report
#   make bench    run the benchmarks (docs/performance.md)

CC      ?= cc
BUILD   ?= build
PYTHON  ?= /usr/bin/python3

WARN     = -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wno-unused-parameter
BASEFLAGS = -std=c11 -D_GNU_SOURCE -Iinclude -Iuser $(WARN)
CFLAGS  ?= -O2 -g
LIBS     = -lzstd -llzma -lpfm -lm -lpthread
SANFLAGS = -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

LIB_SRCS  = $(filter-out user/memtracectl.c,$(wildcard user/*.c))
LIB_OBJS  = $(LIB_SRCS:user/%.c=$(BUILD)/obj/%.o)
ASAN_OBJS = $(LIB_SRCS:user/%.c=$(BUILD)/asan/obj/%.o)
HDRS      = $(wildcard user/*.h include/*.h tests/unit/*.h)

UNIT_SRCS  = $(wildcard tests/unit/test_*.c)
UNIT_BINS  = $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
ASAN_BINS  = $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/asan/tests/%)
WORKLOAD_SRCS = $(wildcard tests/workloads/*.c)
WORKLOADS  = $(WORKLOAD_SRCS:tests/workloads/%.c=$(BUILD)/workloads/%)
BENCH_SRCS = $(wildcard bench/*.c)
BENCH_BINS = $(BENCH_SRCS:bench/%.c=$(BUILD)/bench/%)

.PHONY: all user tests check demo bench clean deps static
all: user tests

user: $(BUILD)/memtracectl
tests: $(UNIT_BINS) $(ASAN_BINS) $(WORKLOADS) $(BENCH_BINS)

$(BUILD)/obj/%.o: user/%.c $(HDRS)
	@mkdir -p $(dir $@)
	@echo '  CC     $<'
	@$(CC) $(BASEFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILD)/asan/obj/%.o: user/%.c $(HDRS)
	@mkdir -p $(dir $@)
	@echo '  CC     $< (asan)'
	@$(CC) $(BASEFLAGS) $(SANFLAGS) -c -o $@ $<

$(BUILD)/libmemtrace.a: $(LIB_OBJS)
	@rm -f $@
	@ar rcs $@ $^

$(BUILD)/asan/libmemtrace.a: $(ASAN_OBJS)
	@rm -f $@
	@ar rcs $@ $^

$(BUILD)/memtracectl: user/memtracectl.c $(LIB_OBJS) $(HDRS)
	@echo '  LD     $@'
	@$(CC) $(BASEFLAGS) $(CFLAGS) -o $@ $< $(LIB_OBJS) $(LIBS)

# A static memtracectl for minimal guests (tests/kernel initramfs).
static: $(BUILD)/static/memtracectl
$(BUILD)/static/memtracectl: user/memtracectl.c $(LIB_SRCS) $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(CFLAGS) -static -o $@ user/memtracectl.c $(LIB_SRCS) $(LIBS)

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libmemtrace.a $(HDRS)
	@mkdir -p $(dir $@)
	@echo '  LD     $@'
	@$(CC) $(BASEFLAGS) $(CFLAGS) -o $@ $< $(BUILD)/libmemtrace.a $(LIBS)

$(BUILD)/asan/tests/%: tests/unit/%.c $(BUILD)/asan/libmemtrace.a $(HDRS)
	@mkdir -p $(dir $@)
	@echo '  LD     $@'
	@$(CC) $(BASEFLAGS) $(SANFLAGS) -o $@ $< $(BUILD)/asan/libmemtrace.a $(LIBS)

# Test workloads are static so that the same binaries run in qemu guests.
$(BUILD)/workloads/%: tests/workloads/%.c tests/workloads/workload.h
	@mkdir -p $(dir $@)
	@echo '  LD     $@'
	@$(CC) $(BASEFLAGS) -O1 -g -static -pthread -o $@ $<

$(BUILD)/bench/%: bench/%.c $(BUILD)/libmemtrace.a $(HDRS)
	@mkdir -p $(dir $@)
	@echo '  LD     $@'
	@$(CC) $(BASEFLAGS) -O2 -g -o $@ $< $(BUILD)/libmemtrace.a $(LIBS)

deps:
	@tools/install-deps.sh

check: deps
	@$(MAKE) --no-print-directory all
	@tests/run-all.sh

demo: deps
	@$(MAKE) --no-print-directory all
	@tools/demo.sh

bench: all
	@bench/run.sh

clean:
	rm -rf $(BUILD)

# Areas with their own build rules (kernel module, PEBS patch checks, ...).
-include mk/*.mk
