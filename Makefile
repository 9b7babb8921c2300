# memtrace top-level Makefile.
#
#   make          build/memtracectl, build/libmemtrace.so, the test programs
#                 and (where kernel headers are installed) memtrace.ko
#   make check    install missing Debian packages (as root), build, run every
#                 test suite; ends with "N passed, N failed, N skipped"
#                 (MEMTRACE_REQUIRE=bpf,... turns skips into failures:
#                 tests/suite-lib.sh)
#   make demo     record the bundled workload and write the analysis report
#   make bench    run the benchmarks (docs/performance.md)
#   make accuracy estimator accuracy table (docs/accuracy.md)
#   make V=1      show full command lines
#
# Layout (docs/design.md): user/<stage>/ holds one stage of the data flow.
# libmemtrace.so is trace, engine, resolve, api and util: reading traces and
# computing reports, built -fvisibility=hidden with the version script
# user/api/libmemtrace.map (exactly the functions of include/memtrace/*.h),
# linking neither libbpf nor libpfm.  build/libmemtrace.a holds every stage
# but cmd/ (the sources and the recorder too): memtracectl, the unit tests,
# the benchmarks and the fuzzers link it statically; it is not installed.

CC      ?= cc
BUILD   ?= build
PYTHON  ?= /usr/bin/python3

ifeq ($(V),1)
Q =
else
Q = @
endif

WARN      = -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wno-unused-parameter
BASEFLAGS = -std=c11 -D_GNU_SOURCE -Iinclude -Iuser $(WARN)
DEPFLAGS  = -MMD -MP
CFLAGS   ?= -O2 -g
PICFLAGS  = -fPIC -fno-semantic-interposition -fvisibility=hidden
# what libmemtrace.so needs; memtracectl (LIBS) adds libpfm (and libbpf: mk/bpf.mk)
SO_LIBS   = -ldw -lelf -lzstd -lm -lpthread
LIBS      = -ldw -lelf -lzstd -llzma -lpfm -lm -lpthread
# libdw.a and libelf.a need their decompressors named when linking statically.
STATIC_LIBS = -ldw -lelf -lzstd -llzma -lbz2 -lz -lpfm -lm -lpthread
SANFLAGS  = -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

# user/source/: what every backend shares at its root, one folder per backend
SOURCE_DIRS = source source/perf source/bpf source/module source/damon source/valgrind \
	      source/import source/probes source/bufreq
LIB_DIRS  = trace engine resolve api $(SOURCE_DIRS) record util
# (the BPF programs, *.bpf.c: mk/bpf.mk; the Valgrind tool, source/valgrind/vgtool/: mk/vgtool.mk)
LIB_SRCS  = $(filter-out %.bpf.c,$(foreach d,$(LIB_DIRS),$(wildcard user/$(d)/*.c)))
CMD_SRCS  = $(wildcard user/cmd/*.c)
LIB_OBJS  = $(LIB_SRCS:user/%.c=$(BUILD)/obj/%.o)
SO_DIRS   = trace engine resolve api util
SO_OBJS   = $(foreach d,$(SO_DIRS),$(patsubst user/%.c,$(BUILD)/obj/%.o,$(wildcard user/$(d)/*.c)))
SO_MAP    = user/api/libmemtrace.map
CMD_OBJS  = $(CMD_SRCS:user/%.c=$(BUILD)/obj/%.o)
ASAN_OBJS = $(LIB_SRCS:user/%.c=$(BUILD)/asan/obj/%.o)
SOVERSION = 1
LIBSO     = $(BUILD)/libmemtrace.so

UNIT_SRCS  = $(wildcard tests/unit/*/test_*.c)
UNIT_BINS  = $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
ASAN_BINS  = $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/asan/tests/%)
WORKLOAD_SRCS = $(wildcard tests/workloads/*.c)
WORKLOADS  = $(WORKLOAD_SRCS:tests/workloads/%.c=$(BUILD)/workloads/%)
# and one dynamic: record --allocs -- sh -c 'allocmix-dyn; ...' probes exec'd children in libc.so.6
WORKLOADS += $(BUILD)/workloads/allocmix-dyn
BENCH_SRCS = $(wildcard bench/*.c)
BENCH_BINS = $(BENCH_SRCS:bench/%.c=$(BUILD)/bench/%)

.PHONY: all user lib tests check demo bench accuracy clean deps static
all: user tests

user: $(BUILD)/memtracectl $(BUILD)/analyze-bytecode

# memtrace-analyze's modules compiled once here, not by every run that
# finds no bytecode it may write (PYTHONDONTWRITEBYTECODE, a read-only
# tree): 0.07 s of each run's start (docs/performance.md)
ANALYZE_PY = $(wildcard user/analyze/memtrace_analyze/*.py)
$(BUILD)/analyze-bytecode: $(ANALYZE_PY)
	@mkdir -p $(BUILD)
	$(Q)if [ -x /usr/bin/python3 ]; then /usr/bin/python3 -m compileall -q user/analyze/memtrace_analyze; fi
	$(Q)touch $@
lib: $(LIBSO) $(BUILD)/libmemtrace.a
tests: $(UNIT_BINS) $(ASAN_BINS) $(WORKLOADS) $(BENCH_BINS)

$(BUILD)/obj/%.o: user/%.c
	@mkdir -p $(dir $@)
	@[ -n "$(Q)" ] && echo '  CC     $<' || true
	$(Q)$(CC) $(BASEFLAGS) $(CPPFLAGS) $(CFLAGS) $(PICFLAGS) $(DEPFLAGS) -c -o $@ $<

$(BUILD)/asan/obj/%.o: user/%.c
	@mkdir -p $(dir $@)
	@[ -n "$(Q)" ] && echo '  CC     $< (asan)' || true
	$(Q)$(CC) $(BASEFLAGS) $(SANFLAGS) $(DEPFLAGS) -c -o $@ $<

# The shared library: the stages that read and compute, the public API only.
$(LIBSO): $(SO_OBJS) $(SO_MAP)
	@[ -n "$(Q)" ] && echo '  LD     $@' || true
	$(Q)$(CC) $(LDFLAGS) -shared -Wl,-soname,libmemtrace.so.$(SOVERSION) -Wl,--no-undefined \
		-Wl,--version-script=$(SO_MAP) -o $@.$(SOVERSION) $(SO_OBJS) $(SO_LIBS)
	$(Q)ln -sf libmemtrace.so.$(SOVERSION) $@

# Every stage but cmd/, for memtracectl, tests and benchmarks (not installed).
$(BUILD)/libmemtrace.a: $(LIB_OBJS)
	$(Q)rm -f $@
	$(Q)ar rcs $@ $^

$(BUILD)/asan/libmemtrace.a: $(ASAN_OBJS)
	$(Q)rm -f $@
	$(Q)ar rcs $@ $^

# pprof's profile.proto (user/cmd/profile.proto, `export --format pprof`):
# C from protoc-c into the build folder, never committed; only memtracectl
# links it (with libprotobuf-c, and zlib for the gzip).
GEN       = $(BUILD)/gen
PROTO_C   = $(GEN)/profile.pb-c.c
PROTO_OBJ = $(BUILD)/obj/gen/profile.pb-c.o
CMD_LIBS  = -lprotobuf-c -lz

$(GEN)/%.pb-c.c $(GEN)/%.pb-c.h: user/cmd/%.proto
	@mkdir -p $(GEN)
	@[ -n "$(Q)" ] && echo '  PROTOC $<' || true
	$(Q)protoc-c --proto_path=user/cmd --c_out=$(GEN) $<

$(PROTO_OBJ): $(PROTO_C)
	@mkdir -p $(dir $@)
	@[ -n "$(Q)" ] && echo '  CC     $<' || true
	$(Q)$(CC) $(BASEFLAGS) -I$(GEN) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(BUILD)/obj/cmd/export_pprof.o: $(GEN)/profile.pb-c.h
$(BUILD)/obj/cmd/export_pprof.o: CPPFLAGS += -I$(GEN)

# memtracectl holds the sources and the recorder, which the .so leaves out.
$(BUILD)/memtracectl: $(CMD_OBJS) $(PROTO_OBJ) $(BUILD)/libmemtrace.a $(LIBSO)
	@[ -n "$(Q)" ] && echo '  LD     $@' || true
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(CMD_OBJS) $(PROTO_OBJ) $(BUILD)/libmemtrace.a $(LIBS) \
		$(CMD_LIBS)

# A static memtracectl for minimal guests (tests/kernel initramfs).
static: $(BUILD)/static/memtracectl
$(BUILD)/static/memtracectl: $(CMD_SRCS) $(LIB_SRCS) $(PROTO_C)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(BASEFLAGS) -I$(GEN) $(CFLAGS) -static -o $@ $(CMD_SRCS) $(PROTO_C) $(LIB_SRCS) \
		-lprotobuf-c $(STATIC_LIBS)

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libmemtrace.a
	@mkdir -p $(dir $@)
	@[ -n "$(Q)" ] && echo '  LD     $@' || true
	$(Q)$(CC) $(BASEFLAGS) -Itests/unit $(CFLAGS) $(DEPFLAGS) -o $@ $< $(BUILD)/libmemtrace.a $(LIBS)

$(BUILD)/asan/tests/%: tests/unit/%.c $(BUILD)/asan/libmemtrace.a
	@mkdir -p $(dir $@)
	@[ -n "$(Q)" ] && echo '  LD     $@' || true
	$(Q)$(CC) $(BASEFLAGS) -Itests/unit $(SANFLAGS) $(DEPFLAGS) -o $@ $< $(BUILD)/asan/libmemtrace.a $(LIBS)

# Test workloads are static so that the same binaries run in qemu guests.
$(BUILD)/workloads/%: tests/workloads/%.c
	@mkdir -p $(dir $@)
	@[ -n "$(Q)" ] && echo '  LD     $@' || true
	$(Q)$(CC) $(BASEFLAGS) $(DEPFLAGS) -O1 -g -static -pthread -o $@ $<

$(BUILD)/workloads/%-dyn: tests/workloads/%.c
	@mkdir -p $(dir $@)
	@[ -n "$(Q)" ] && echo '  LD     $@' || true
	$(Q)$(CC) $(BASEFLAGS) $(DEPFLAGS) -O1 -g -pthread -o $@ $<

$(BUILD)/bench/%: bench/%.c $(BUILD)/libmemtrace.a
	@mkdir -p $(dir $@)
	@[ -n "$(Q)" ] && echo '  LD     $@' || true
	$(Q)$(CC) $(BASEFLAGS) $(DEPFLAGS) -O2 -g -o $@ $< $(BUILD)/libmemtrace.a $(LIBS)

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

# docs/accuracy.md's table: sampled vs exact working sets (tests/accuracy/accuracy.py)
accuracy: all
	@/usr/bin/python3 tests/accuracy/accuracy.py --write docs/accuracy.md

clean:
	rm -rf $(BUILD)

# Header dependencies written by -MMD.
-include $(shell find $(BUILD)/obj $(BUILD)/asan $(BUILD)/tests $(BUILD)/workloads $(BUILD)/bench -name '*.d' -type f 2>/dev/null)

# Areas with their own build rules (kernel module, PEBS patch checks, ...).
-include mk/*.mk
