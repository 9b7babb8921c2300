# mk/fuzz.mk - libFuzzer harnesses (tests/fuzz/fuzz_*.c), built by clang with
# ASan and UBSan over a clang build of the library sources.
#
#   make fuzzers    build/fuzz/fuzz_* and their seed corpora (part of `make all`
#                   when clang is installed)
#   make fuzz       run every harness for FUZZ_SECONDS (default 300) each;
#                   FUZZERS="trace report" picks some.  Crashes are kept in
#                   build/fuzz/crashes/, new inputs in build/fuzz/work/
#
# `make check` runs each for a short fixed time (tests/suites.d/15-fuzz.sh).
# See tests/fuzz/README.md.

FUZZ_CC     ?= clang-14
FUZZ_DIR     = $(BUILD)/fuzz
FUZZ_SAN     = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS  = $(filter-out -Werror,$(BASEFLAGS)) -Wno-unused-command-line-argument \
	       -g -O1 $(FUZZ_SAN)
FUZZ_OBJS    = $(LIB_SRCS:user/%.c=$(FUZZ_DIR)/obj/%.o)
FUZZ_SRCS    = $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS    = $(FUZZ_SRCS:tests/fuzz/%.c=$(FUZZ_DIR)/%)
FUZZ_SECONDS ?= 300
FUZZERS      ?= $(FUZZ_SRCS:tests/fuzz/fuzz_%.c=%)

.PHONY: fuzzers fuzz
ifneq ($(shell command -v $(FUZZ_CC) 2>/dev/null),)
tests: fuzzers
endif
fuzzers: $(FUZZ_BINS) $(FUZZ_DIR)/corpus/.stamp

$(FUZZ_DIR)/obj/%.o: user/%.c
	@mkdir -p $(dir $@)
	@[ -n "$(Q)" ] && echo '  CC     $< (fuzz)' || true
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link $(DEPFLAGS) -c -o $@ $<

$(FUZZ_DIR)/libmemtrace-fuzz.a: $(FUZZ_OBJS)
	$(Q)rm -f $@
	$(Q)ar rcs $@ $^

$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_input.h $(FUZZ_DIR)/libmemtrace-fuzz.a
	@[ -n "$(Q)" ] && echo '  LD     $@' || true
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -Itests/fuzz -fsanitize=fuzzer $(DEPFLAGS) -o $@ $< \
		$(FUZZ_DIR)/libmemtrace-fuzz.a $(LIBS)

# Seeds: small traces written by the library's own writer, lackey logs
# (plain, xz, zstd), this machine's /proc/self/maps, committed texts.
$(FUZZ_DIR)/mkseeds: tests/fuzz/mkseeds.c $(BUILD)/libmemtrace.a
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(BASEFLAGS) $(CFLAGS) -o $@ $< $(BUILD)/libmemtrace.a $(LIBS)

$(FUZZ_DIR)/corpus/.stamp: $(FUZZ_DIR)/mkseeds tests/fuzz/make-seeds.sh $(wildcard tests/fuzz/seeds/*/*)
	$(Q)tests/fuzz/make-seeds.sh $(FUZZ_DIR)/mkseeds $(FUZZ_DIR)/corpus
	@touch $@

fuzz: fuzzers
	@for f in $(FUZZERS); do tests/fuzz/run.sh $$f $(FUZZ_SECONDS) || exit 1; done

-include $(shell find $(FUZZ_DIR) -name '*.d' -type f 2>/dev/null)
