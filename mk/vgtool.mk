# mk/vgtool.mk - the memtrace Valgrind tool (user/source/valgrind/vgtool/), built
# against the installed Valgrind's tool headers and static libraries, the
# way Valgrind links its own tools (Makefile.tool.am: -static
# -nodefaultlibs -nostartfiles -u _start, text at valt_load_address).
#
# build/vgtool/ is a Valgrind library directory (VALGRIND_LIB) holding
#   memtrace-amd64-linux              the tool
#   vgpreload_memtrace-amd64-linux.so malloc replacement (libreplacemalloc_toolpreload)
#   memtracenoalloc-amd64-linux       the same tool without the preload: the
#                                     guest's own malloc runs (lackey-equal traces)
#   vgpreload_core-amd64-linux.so, default.supp  links to the system's
# Without Valgrind's development files (Debian's valgrind package ships
# them) nothing is built and the valgrind backend uses lackey.

VG_PLATFORM  = amd64-linux
VG_INCDIR   ?= $(shell pkg-config --variable=includedir valgrind 2>/dev/null || echo /usr/include/valgrind)
VG_LIBDIR   ?= $(shell pkg-config --variable=libdir valgrind 2>/dev/null || echo /usr/lib/x86_64-linux-gnu)/valgrind
VG_LOAD_ADDR ?= $(shell pkg-config --variable=valt_load_address valgrind 2>/dev/null || echo 0x58000000)
# where the installed valgrind keeps its tools, core preload and suppressions
VG_PKGLIBEXEC ?= $(firstword $(wildcard /usr/libexec/valgrind /usr/lib/x86_64-linux-gnu/valgrind /usr/local/libexec/valgrind))
VGTOOL_DIR   = $(BUILD)/vgtool
VGTOOL_HAVE := $(and $(wildcard $(VG_INCDIR)/pub_tool_basics.h),$(wildcard $(VG_LIBDIR)/libcoregrind-$(VG_PLATFORM).a),$(VG_PKGLIBEXEC))

VGTOOL_CFLAGS = -std=gnu11 -O2 -g -m64 -I$(VG_INCDIR) -Iuser/source/valgrind/vgtool \
	-DVGA_amd64=1 -DVGO_linux=1 -DVGP_amd64_linux=1 -DVGPV_amd64_linux_vanilla=1 \
	-Wall -Wextra -Werror -Wno-unused-parameter -Wno-missing-field-initializers \
	-fno-strict-aliasing -fno-builtin -fno-stack-protector -fno-pie -fomit-frame-pointer
VGTOOL_LDFLAGS = -m64 -static -nodefaultlibs -nostartfiles -u _start -no-pie \
	-Wl,-Ttext-segment=$(VG_LOAD_ADDR)
VGTOOL_LIBS = $(VG_LIBDIR)/libcoregrind-$(VG_PLATFORM).a $(VG_LIBDIR)/libvex-$(VG_PLATFORM).a \
	-lgcc $(wildcard $(VG_LIBDIR)/libgcc-sup-$(VG_PLATFORM).a)

.PHONY: vgtool
ifneq ($(VGTOOL_HAVE),)
all: vgtool
vgtool: $(VGTOOL_DIR)/memtrace-$(VG_PLATFORM) $(VGTOOL_DIR)/vgpreload_memtrace-$(VG_PLATFORM).so \
	$(VGTOOL_DIR)/memtracenoalloc-$(VG_PLATFORM) $(VGTOOL_DIR)/vgpreload_core-$(VG_PLATFORM).so \
	$(VGTOOL_DIR)/default.supp

$(BUILD)/vgtool-obj/mt_main.o: user/source/valgrind/vgtool/mt_main.c user/source/valgrind/vgtool/mt_stream.h
	@mkdir -p $(dir $@)
	@[ -n "$(Q)" ] && echo '  CC     $< (valgrind tool)' || true
	$(Q)$(CC) $(VGTOOL_CFLAGS) -c -o $@ $<

$(VGTOOL_DIR)/memtrace-$(VG_PLATFORM): $(BUILD)/vgtool-obj/mt_main.o
	@mkdir -p $(dir $@)
	@[ -n "$(Q)" ] && echo '  LD     $@' || true
	$(Q)$(CC) $(VGTOOL_LDFLAGS) -o $@ $< $(VGTOOL_LIBS)

$(VGTOOL_DIR)/memtracenoalloc-$(VG_PLATFORM): $(VGTOOL_DIR)/memtrace-$(VG_PLATFORM)
	$(Q)ln -sf memtrace-$(VG_PLATFORM) $@

# As massif's: Valgrind's replacement functions whole (mt_preload.c: a version string).
$(VGTOOL_DIR)/vgpreload_memtrace-$(VG_PLATFORM).so: user/source/valgrind/vgtool/mt_preload.c
	@mkdir -p $(dir $@)
	@[ -n "$(Q)" ] && echo '  LD     $@' || true
	$(Q)$(CC) -m64 -g -O2 -fPIC -shared -nodefaultlibs -Wl,-z,interpose,-z,initfirst -o $@ $< \
		-Wl,--whole-archive $(VG_LIBDIR)/libreplacemalloc_toolpreload-$(VG_PLATFORM).a \
		-Wl,--no-whole-archive

$(VGTOOL_DIR)/vgpreload_core-$(VG_PLATFORM).so $(VGTOOL_DIR)/default.supp:
	@mkdir -p $(dir $@)
	$(Q)ln -sf $(VG_PKGLIBEXEC)/$(notdir $@) $@
else
vgtool:
	@echo "vgtool: Valgrind's tool headers/libraries not found (apt-get install valgrind): not built"
endif

# make install: the tool's Valgrind library directory, where memtracectl looks
# for it (BINDIR/../libexec/memtrace/valgrind); links to the system's core files.
# LIBEXECDIR is memtrace's own (mk/hwcheck.mk's too): PREFIX/libexec/memtrace
LIBEXECDIR ?= $(PREFIX)/libexec/memtrace
VGTOOL_INSTDIR = $(DESTDIR)$(LIBEXECDIR)/valgrind
.PHONY: install-vgtool uninstall-vgtool
install: install-vgtool
uninstall: uninstall-vgtool
ifneq ($(VGTOOL_HAVE),)
install-vgtool: vgtool
	$(INSTALL) -d $(VGTOOL_INSTDIR)
	$(INSTALL) -m 755 $(VGTOOL_DIR)/memtrace-$(VG_PLATFORM) $(VGTOOL_INSTDIR)/
	$(INSTALL) -m 644 $(VGTOOL_DIR)/vgpreload_memtrace-$(VG_PLATFORM).so $(VGTOOL_INSTDIR)/
	ln -sf memtrace-$(VG_PLATFORM) $(VGTOOL_INSTDIR)/memtracenoalloc-$(VG_PLATFORM)
	ln -sf $(VG_PKGLIBEXEC)/vgpreload_core-$(VG_PLATFORM).so $(VG_PKGLIBEXEC)/default.supp \
		$(VGTOOL_INSTDIR)/
else
install-vgtool:
endif
uninstall-vgtool:
	rm -rf $(VGTOOL_INSTDIR)
	-rmdir $(DESTDIR)$(LIBEXECDIR) 2>/dev/null
