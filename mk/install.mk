# mk/install.mk - make install / make uninstall (docs/install.md).
#
#   make install [PREFIX=/usr/local] [DESTDIR=/tmp/root] [LIBDIR=...]
#   make uninstall (same PREFIX/DESTDIR/... as the install)
#
# Installs memtracectl, memtrace-analyze and its Python package, pg-shmem-labels, mariadb-labels,
# libmemtrace.so.1 with include/memtrace/*.h and memtrace.pc, the man pages
# memtracectl(1), memtrace-analyze(1) and memtrace-hwcheck(1), bash completion
# the docs, and the systemd unit memtrace-record@.service (tools/systemd: a
# recording of a service that runs for days, with record-example.conf among
# the docs' examples) (memtrace-hwcheck and its programs: mk/hwcheck.mk).
# The installed programs find the library and the Python package through
# paths relative to themselves ($ORIGIN rpath, memtrace_analyze/install_paths.py),
# so an install under DESTDIR runs in place, and PREFIX may be anywhere.
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
DATADIR    ?= $(PREFIX)/share
MANDIR     ?= $(DATADIR)/man
DOCDIR     ?= $(DATADIR)/doc/memtrace
PKGCONFIGDIR   ?= $(LIBDIR)/pkgconfig
COMPLETIONSDIR ?= $(DATADIR)/bash-completion/completions
# systemd looks in /usr/lib/systemd/system and /usr/local/lib/systemd/system
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
PY_VERSION := $(shell $(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)
# Debian's python3 searches /usr/lib/python3/dist-packages and
# /usr/local/lib/python3.X/dist-packages.
ifeq ($(PREFIX),/usr)
PYTHONDIR  ?= $(PREFIX)/lib/python3/dist-packages
else
PYTHONDIR  ?= $(PREFIX)/lib/python$(PY_VERSION)/dist-packages
endif
VERSION    = 0.1
INSTALL    ?= install

# No rpath where the dynamic linker looks anyway (Debian's package); else
# one relative to the binary, so that DESTDIR installs run as they lie.
SYSTEM_LIBDIRS = /usr/lib /lib /usr/lib/$(shell $(CC) -print-multiarch 2>/dev/null)
rel = $(shell realpath -m --relative-to=$(1) $(2))
ifneq ($(filter $(LIBDIR),$(SYSTEM_LIBDIRS)),)
INSTALL_RPATH =
else
INSTALL_RPATH = -Wl,-rpath,'$$ORIGIN/$(call rel,$(BINDIR),$(LIBDIR))'
endif

MANPAGES = docs/man/memtracectl.1 docs/man/memtrace-analyze.1 docs/man/memtrace-hwcheck.1 docs/man/pg-shmem-labels.1 docs/man/mariadb-labels.1
INSTALL_DOCS = README.md $(wildcard docs/*.md)
PY_FILES = $(wildcard user/analyze/memtrace_analyze/*.py)
D = $(DESTDIR)

.PHONY: install uninstall check-man
# the unit runs the memtracectl installed with it
$(BUILD)/install/memtrace-record@.service: tools/systemd/memtrace-record@.service FORCE
	@mkdir -p $(dir $@)
	$(Q)sed 's|@BINDIR@|$(BINDIR)|g' $< > $@

# memtracectl holds the library's stages itself (build/libmemtrace.a): the
# build's binary installs as it is.
$(BUILD)/install/memtracectl: $(BUILD)/memtracectl
	@mkdir -p $(dir $@)
	$(Q)cp $< $@

$(BUILD)/install/memtrace.pc: mk/install.mk
	@mkdir -p $(dir $@)
	@printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$(LIBDIR)' 'includedir=$(INCLUDEDIR)' '' \
		'Name: memtrace' \
		'Description: read memtrace traces, compute working-set reports, resolve addresses' \
		'Version: $(VERSION)' \
		'Libs: -L$${libdir} -lmemtrace' \
		'Libs.private: $(SO_LIBS)' \
		'Cflags: -I$${includedir}' > $@

FORCE:

install: $(LIBSO) $(BUILD)/install/memtracectl $(BUILD)/install/memtrace.pc \
	 $(BUILD)/install/memtrace-record@.service
	$(INSTALL) -d $(D)$(BINDIR) $(D)$(LIBDIR) $(D)$(PKGCONFIGDIR) $(D)$(INCLUDEDIR)/memtrace \
		$(D)$(PYTHONDIR)/memtrace_analyze $(D)$(MANDIR)/man1 $(D)$(COMPLETIONSDIR) $(D)$(DOCDIR) \
		$(D)$(DOCDIR)/examples $(D)$(SYSTEMDUNITDIR)
	$(INSTALL) -m 755 $(BUILD)/install/memtracectl $(D)$(BINDIR)/memtracectl
	$(INSTALL) -m 755 tools/pg-shmem-labels $(D)$(BINDIR)/pg-shmem-labels
	$(INSTALL) -m 755 tools/mariadb-labels $(D)$(BINDIR)/mariadb-labels
	$(INSTALL) -m 644 $(LIBSO).$(SOVERSION) $(D)$(LIBDIR)/libmemtrace.so.$(SOVERSION)
	ln -sf libmemtrace.so.$(SOVERSION) $(D)$(LIBDIR)/libmemtrace.so
	$(INSTALL) -m 644 include/memtrace/*.h $(D)$(INCLUDEDIR)/memtrace/
	$(INSTALL) -m 644 $(BUILD)/install/memtrace.pc $(D)$(PKGCONFIGDIR)/memtrace.pc
	$(INSTALL) -m 644 $(PY_FILES) $(D)$(PYTHONDIR)/memtrace_analyze/
	printf '%s\n' '"""Written by make install: where libmemtrace is, relative to this package."""' \
		'LIBRARY = "$(call rel,$(PYTHONDIR)/memtrace_analyze,$(LIBDIR))/libmemtrace.so.$(SOVERSION)"' \
		> $(D)$(PYTHONDIR)/memtrace_analyze/install_paths.py
	sed 's|^sys.path.insert(0, .*|sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "$(call rel,$(BINDIR),$(PYTHONDIR))"))|' \
		user/analyze/memtrace-analyze > $(D)$(BINDIR)/memtrace-analyze
	chmod 755 $(D)$(BINDIR)/memtrace-analyze
	$(INSTALL) -m 644 $(MANPAGES) $(D)$(MANDIR)/man1/
	$(INSTALL) -m 644 tools/completion/memtrace.bash $(D)$(COMPLETIONSDIR)/memtracectl
	ln -sf memtracectl $(D)$(COMPLETIONSDIR)/memtrace-analyze
	$(INSTALL) -m 644 $(INSTALL_DOCS) $(D)$(DOCDIR)/
	$(INSTALL) -m 644 $(BUILD)/install/memtrace-record@.service $(D)$(SYSTEMDUNITDIR)/
	$(INSTALL) -m 644 tools/systemd/record-example.conf $(D)$(DOCDIR)/examples/

uninstall:
	rm -f $(D)$(BINDIR)/memtracectl $(D)$(BINDIR)/memtrace-analyze $(D)$(BINDIR)/pg-shmem-labels $(D)$(BINDIR)/mariadb-labels \
		$(D)$(LIBDIR)/libmemtrace.so.$(SOVERSION) $(D)$(LIBDIR)/libmemtrace.so \
		$(D)$(PKGCONFIGDIR)/memtrace.pc \
		$(D)$(COMPLETIONSDIR)/memtracectl $(D)$(COMPLETIONSDIR)/memtrace-analyze \
		$(addprefix $(D)$(MANDIR)/man1/,$(notdir $(MANPAGES))) \
		$(D)$(SYSTEMDUNITDIR)/memtrace-record@.service
	rm -rf $(D)$(INCLUDEDIR)/memtrace $(D)$(PYTHONDIR)/memtrace_analyze $(D)$(DOCDIR)

# The man pages render without a warning (tests/suites.d/17-install.sh).
check-man:
	@for m in $(MANPAGES); do groff -ww -man -z $$m 2>&1 | sed "s|^|$$m: |"; done | \
		{ ! grep .; }
