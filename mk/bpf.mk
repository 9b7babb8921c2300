# mk/bpf.mk - the bpf backend's BPF programs (user/source/bpf/*.bpf.c):
# compiled by clang for the BPF target against the CO-RE definitions in
# user/source/bpf/memtrace_vmlinux.h (no BTF of the build machine needed),
# then turned into a skeleton header by `bpftool gen skeleton`, which
# user/source/bpf*.c include.  libbpf relocates and loads them at run time.

BPF_CLANG  ?= clang
# Debian installs it in /usr/sbin, which a user's PATH may lack
BPFTOOL    ?= $(shell command -v bpftool || echo /usr/sbin/bpftool)
# -idirafter: asm/errno.h for libbpf's usdt.bpf.h (mark.bpf.c)
BPF_CFLAGS  = -g -O2 -target bpf -D__TARGET_ARCH_x86 -Wall -Werror -Iuser/source/bpf \
	      -idirafter /usr/include/$(shell $(CC) -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
BPF_SKELS   = $(BUILD)/bpf/sample.skel.h $(BUILD)/bpf/alloc.skel.h $(BUILD)/bpf/mark.skel.h

BASEFLAGS  += -I$(BUILD)/bpf -Iuser/source/bpf
LIBS       += -lbpf
STATIC_LIBS := -lbpf $(STATIC_LIBS)

$(BUILD)/bpf/%.bpf.o: user/source/bpf/%.bpf.c user/source/bpf/memtrace_vmlinux.h user/source/bpf/sample.h \
		user/source/bpf/alloc.h user/source/bpf/mark_rec.h
	@mkdir -p $(dir $@)
	@[ -n "$(Q)" ] && echo '  BPF    $<' || true
	$(Q)$(BPF_CLANG) $(BPF_CFLAGS) -c -o $@ $<

$(BUILD)/bpf/%.skel.h: $(BUILD)/bpf/%.bpf.o
	@[ -n "$(Q)" ] && echo '  SKEL   $@' || true
	$(Q)$(BPFTOOL) gen skeleton $< name mt_$*_bpf >$@.tmp && mv $@.tmp $@

$(BUILD)/obj/source/bpf.o $(BUILD)/obj/source/bpf_probe.o $(BUILD)/obj/source/bpf_target.o \
$(BUILD)/obj/source/bpf_agg.o $(BUILD)/asan/obj/source/bpf_agg.o $(BUILD)/fuzz/obj/source/bpf_agg.o \
$(BUILD)/asan/obj/source/bpf.o $(BUILD)/asan/obj/source/bpf_probe.o $(BUILD)/asan/obj/source/bpf_target.o \
$(BUILD)/fuzz/obj/source/bpf.o $(BUILD)/fuzz/obj/source/bpf_probe.o $(BUILD)/fuzz/obj/source/bpf_target.o \
$(BUILD)/obj/source/alloc_probe.o $(BUILD)/asan/obj/source/alloc_probe.o $(BUILD)/fuzz/obj/source/alloc_probe.o \
$(BUILD)/obj/source/mark.o $(BUILD)/asan/obj/source/mark.o $(BUILD)/fuzz/obj/source/mark.o \
$(BUILD)/static/memtracectl: $(BPF_SKELS)
