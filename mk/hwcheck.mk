# mk/hwcheck.mk - memtrace-hwcheck: prove or refute the hardware claims on
# the machine at hand (docs/hwcheck.md).
#
#   make hwcheck [HWCHECK_ARGS="--runs 5 --out DIR"]
#                      detect the PMU, record hwload through every backend
#                      that works here, check the traces, measure slowdowns,
#                      write hwcheck-report.md (exit 1 on a failed check)
#
# Programs: build/hwcheck/hwload (the workload with a known access pattern)
# and build/hwcheck/memtrace-hwcheck-analyze (checks and tables, through the
# public API of libmemtrace only); tools/memtrace-hwcheck runs them.
# make install puts the script in BINDIR and both programs in LIBEXECDIR.

LIBEXECDIR ?= $(PREFIX)/libexec/memtrace
HWCHECK_SRCS = tools/hwcheck/analyze.c tools/hwcheck/check.c tools/hwcheck/layout.c \
	       tools/hwcheck/slowdown.c
HWCHECK_ANALYZE = $(BUILD)/hwcheck/memtrace-hwcheck-analyze
HWCHECK_LOAD = $(BUILD)/hwcheck/hwload
HWCHECK_SYNTH = $(BUILD)/tests/hwcheck/mksynth
HWCHECK_ARGS ?=

user: $(HWCHECK_ANALYZE) $(HWCHECK_LOAD)
tests: $(HWCHECK_SYNTH)

# -O2 keeps hwload's loop state in registers; volatile makes each access one
# load or store instruction (tools/hwcheck/hwload.c).
$(HWCHECK_LOAD): tools/hwcheck/hwload.c
	@mkdir -p $(dir $@)
	@[ -n "$(Q)" ] && echo '  LD     $@' || true
	$(Q)$(CC) $(BASEFLAGS) $(CPPFLAGS) $(CFLAGS) -O2 $(LDFLAGS) -o $@ $<

$(HWCHECK_ANALYZE): $(HWCHECK_SRCS) tools/hwcheck/hwcheck.h $(LIBSO)
	@mkdir -p $(dir $@)
	@[ -n "$(Q)" ] && echo '  LD     $@' || true
	$(Q)$(CC) $(BASEFLAGS) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $(HWCHECK_SRCS) \
		-L$(BUILD) -lmemtrace -Wl,-rpath,'$$ORIGIN/..' -lm

$(HWCHECK_SYNTH): tests/hwcheck/mksynth.c $(BUILD)/libmemtrace.a
	@mkdir -p $(dir $@)
	@[ -n "$(Q)" ] && echo '  LD     $@' || true
	$(Q)$(CC) $(BASEFLAGS) $(CFLAGS) -o $@ $< $(BUILD)/libmemtrace.a $(LIBS)

.PHONY: hwcheck install-hwcheck uninstall-hwcheck
hwcheck: user
	@tools/memtrace-hwcheck $(HWCHECK_ARGS)

# The analyzer linked again with an rpath from LIBEXECDIR to LIBDIR (none
# where the dynamic linker looks anyway), like memtracectl in install.mk.
$(BUILD)/install/memtrace-hwcheck-analyze: $(HWCHECK_SRCS) tools/hwcheck/hwcheck.h $(LIBSO) FORCE
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(BASEFLAGS) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $(HWCHECK_SRCS) -L$(BUILD) \
		-lmemtrace $(if $(INSTALL_RPATH),-Wl$(comma)-rpath$(comma)'$$ORIGIN/$(call rel,$(LIBEXECDIR),$(LIBDIR))') -lm

comma := ,
install: install-hwcheck
uninstall: uninstall-hwcheck
install-hwcheck: $(BUILD)/install/memtrace-hwcheck-analyze $(HWCHECK_LOAD)
	$(INSTALL) -d $(D)$(BINDIR) $(D)$(LIBEXECDIR)
	$(INSTALL) -m 755 $(BUILD)/install/memtrace-hwcheck-analyze $(HWCHECK_LOAD) $(D)$(LIBEXECDIR)/
	sed 's|^HWCHECK_LIBEXEC_REL=.*|HWCHECK_LIBEXEC_REL="$(call rel,$(BINDIR),$(LIBEXECDIR))"|' \
		tools/memtrace-hwcheck > $(D)$(BINDIR)/memtrace-hwcheck
	chmod 755 $(D)$(BINDIR)/memtrace-hwcheck

uninstall-hwcheck:
	rm -f $(D)$(BINDIR)/memtrace-hwcheck $(D)$(LIBEXECDIR)/memtrace-hwcheck-analyze \
		$(D)$(LIBEXECDIR)/hwload
	-rmdir $(D)$(LIBEXECDIR) 2>/dev/null
