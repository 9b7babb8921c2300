# mk/pebs.mk - the PEBS sink hook: kernel/perf-pebs-hook.patch, its record
# extractor (kernel/pebs-hook/pebs_extract.h, code of the patched kernel, not
# of the module) and their checks.  See docs/pebs-hook.md.
#
#   make pebs-unit     build and run the extractor unit test (normal, ASan)
#   make pebs-kbuild   apply the patch to the pinned kernel source and compile
#                      the objects it touches (cached under
#                      /var/tmp/memtrace-cache/pebs; ~1 min cold, ~10 s warm)
#   make pebs-check    both, plus the patch/extractor consistency check
#
# `make check` runs the same through tests/suites.d/60-pebs.sh.

PEBS_UNIT_BIN  = $(BUILD)/tests/pebs/test_pebs_extract
PEBS_UNIT_ASAN = $(BUILD)/asan/tests/pebs/test_pebs_extract

tests: $(PEBS_UNIT_BIN) $(PEBS_UNIT_ASAN)

$(PEBS_UNIT_BIN): tests/pebs/test_pebs_extract.c kernel/pebs-hook/pebs_extract.h
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) -Ikernel $(CFLAGS) -o $@ $<

$(PEBS_UNIT_ASAN): tests/pebs/test_pebs_extract.c kernel/pebs-hook/pebs_extract.h
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) -Ikernel $(SANFLAGS) -o $@ $<

.PHONY: pebs-unit pebs-kbuild pebs-check
pebs-unit: $(PEBS_UNIT_BIN) $(PEBS_UNIT_ASAN)
	$(PEBS_UNIT_BIN)
	$(PEBS_UNIT_ASAN)

pebs-kbuild:
	tests/pebs/kbuild-check.sh

pebs-check: pebs-unit
	tests/pebs/patch-consistency.sh
	tests/pebs/kbuild-check.sh
