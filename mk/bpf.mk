# mk/bpf.mk - the BPF programs, paired libbpf-tools style: x.bpf.c (the
# program), x.h (the records it shares with user space), x.c (the user half).
#   user/source/bpf/sample.bpf.c     the bpf backend (sample.c, bpf_*.c)
#   user/source/probes/alloc.bpf.c   record --allocs (alloc.c)
#   user/source/probes/mark.bpf.c    record --mark (mark.c)
#   user/source/bufreq/bufreq.bpf.c  -e buffer-requests (bufreq.c)
# compiled by clang for the BPF target against the CO-RE definitions in
# user/source/bpf/memtrace_vmlinux.h (no BTF of the build machine needed),
# then turned into a skeleton header (build/bpf/x.skel.h) by `bpftool gen
# skeleton`, which the user halves include.  libbpf relocates and loads them
# at run time.  Only memtracectl links libbpf: libmemtrace.so does not.

BPF_CLANG  ?= clang
# Debian installs it in /usr/sbin, which a user's PATH may lack
BPFTOOL    ?= $(shell command -v bpftool || echo /usr/sbin/bpftool)
# -idirafter: asm/errno.h for libbpf's usdt.bpf.h (mark.bpf.c)
BPF_CFLAGS  = -g -O2 -target bpf -D__TARGET_ARCH_x86 -Wall -Werror -Iuser/source/bpf \
	      -idirafter /usr/include/$(shell $(CC) -print-multiarch 2>/dev/null || echo x86_64-linux-gnu) \
	      $(BPF_EXTRA_CFLAGS)
# BPF_EXTRA_CFLAGS=-DMEMTRACE_BPF_BREAK: programs the verifier refuses (tests/harness/bpf_break.sh)
BPF_SKELS   = $(BUILD)/bpf/sample.skel.h $(BUILD)/bpf/alloc.skel.h $(BUILD)/bpf/mark.skel.h \
	      $(BUILD)/bpf/bufreq.skel.h

BASEFLAGS  += -I$(BUILD)/bpf
LIBS       += -lbpf
STATIC_LIBS := -lbpf $(STATIC_LIBS)
BPF_HDRS    = user/source/bpf/memtrace_vmlinux.h user/source/bpf/sample.h \
	      user/source/probes/alloc.h user/source/probes/mark.h \
	      user/source/bufreq/bufreq.h user/source/probes/probe_tgids.bpf.h

define bpf_prog_rule
$$(BUILD)/bpf/%.bpf.o: user/source/$(1)/%.bpf.c $$(BPF_HDRS)
	@mkdir -p $$(dir $$@)
	@[ -n "$$(Q)" ] && echo '  BPF    $$<' || true
	$$(Q)$$(BPF_CLANG) $$(BPF_CFLAGS) -c -o $$@ $$<
endef
$(eval $(call bpf_prog_rule,bpf))
$(eval $(call bpf_prog_rule,probes))
$(eval $(call bpf_prog_rule,bufreq))

$(BUILD)/bpf/%.skel.h: $(BUILD)/bpf/%.bpf.o
	@[ -n "$(Q)" ] && echo '  SKEL   $@' || true
	$(Q)$(BPFTOOL) gen skeleton $< name mt_$*_bpf >$@.tmp && mv $@.tmp $@

# the user halves include the skeletons
BPF_USERS   = source/bpf/sample source/bpf/bpf_probe source/bpf/bpf_target source/bpf/bpf_agg \
	      source/probes/alloc source/probes/mark source/bufreq/bufreq
$(foreach o,$(BPF_USERS),$(BUILD)/obj/$(o).o $(BUILD)/asan/obj/$(o).o $(BUILD)/fuzz/obj/$(o).o) \
$(BUILD)/static/memtracectl: $(BPF_SKELS)
