#!/bin/sh
# guest-pebs.sh - the pebs-boot test (tests/kernel/guest-init.sh): memtrace.ko
# in a kernel built with kernel/perf-pebs-hook.patch (the debug kernel,
# tests/kernel/build-debug-kernel.sh), under qemu TCG: no PMU, so no PEBS.
# Checks, with memtrace.ko loaded by guest-init.sh:
#   pebs-boot-kernel        the kernel has the hook (x86_pebs_sink_attach and
#                           _detach in /proc/kallsyms)
#   pebs-boot-memtrace      the module found it (symbol_get): parameter mode
#                           pebs-hook, "PEBS sink hook v1 found" in dmesg
#   pebs-boot-status        `memtracectl status` says mode pebs-hook
#   pebs-boot-record        `memtracectl record --backend module -e loads`
#                           refused with its reason (no PEBS/IBS PMU), exit 1
#   pebs-boot-hooked-*      mtktest pebs: the module's START of a PEBS event
#                           fails with the errno of the guest's PMU state,
#                           page faults still work, outside the hook
# then reloads it with pebs_hook=0 (pebs-boot-compat-*: mode perf-overflow,
# the same refusals) and once more without (pebs-boot-reload).
# What only hardware shows (records through the hook, large PEBS) is
# tests/hwcheck's.
MT=/bin/memtracectl
ko=/memtrace.ko
fails=0
ok() { echo "ok   pebs-boot-$1"; }
fail() { echo "FAIL pebs-boot-$1"; fails=$((fails + 1)); }
mode() { cat /sys/module/memtrace/parameters/mode 2>/dev/null || echo "not loaded"; }
# lines of this module's dmesg messages matching $1
dcount() { dmesg | grep -c "$1"; }

if grep -qE ' [Tt] x86_pebs_sink_attach$' /proc/kallsyms &&
   grep -qE ' [Tt] x86_pebs_sink_detach$' /proc/kallsyms; then
	ok "kernel: x86_pebs_sink_attach/_detach in this kernel (perf-pebs-hook.patch applied); $(dmesg | grep -m1 -E 'Performance Events|PMU' | sed 's/^\[[^]]*\] //' | cut -c1-100)"
else
	fail "kernel: no x86_pebs_sink_attach/_detach in /proc/kallsyms: the kernel was built without kernel/perf-pebs-hook.patch"
fi
found=$(dcount 'memtrace: PEBS sink hook v1 found')
if [ "$(mode)" = pebs-hook ] && [ "$found" -ge 1 ]; then
	ok "memtrace: mode pebs-hook, dmesg: $(dmesg | grep -m1 'memtrace: PEBS sink hook' | sed 's/^\[[^]]*\] //')"
else
	fail "memtrace: mode '$(mode)', $found 'PEBS sink hook v1 found' lines in dmesg"
fi

status() {	# status TAG MODE
	if $MT status >/tmp/pebs-status.out 2>&1 &&
	   grep -q "module: loaded, mode $2 " /tmp/pebs-status.out; then
		ok "$1: $(grep 'module: loaded' /tmp/pebs-status.out | sed 's/^ *//')"
	else
		fail "$1: memtracectl status: $(grep 'module:' /tmp/pebs-status.out | head -2 | tr '\n' ' ')"
	fi
}
status status pebs-hook

# no PMU here: memtracectl refuses a PEBS event before the module sees it
rm -f /tmp/pebs.mtrace
if $MT record --backend module -e loads -o /tmp/pebs.mtrace -- /bin/true 2>/tmp/pebs-rec.err; then
	fail "record: memtracectl record -e loads succeeded in a guest without a PMU"
elif grep -q "needs a hardware PMU with memory sampling (Intel PEBS or AMD IBS) and this machine has none" /tmp/pebs-rec.err; then
	ok "record: -e loads refused: $(head -1 /tmp/pebs-rec.err | cut -c1-160)"
else
	fail "record: -e loads failed without the no-PMU reason: $(head -2 /tmp/pebs-rec.err | tr '\n' ' ')"
fi

# the module itself, past memtracectl's check (mtktest pebs)
timeout $((120 * ${GUEST_SLOW:-1})) /bin/mtktest pebs hooked || fails=$((fails + 1))

# pebs_hook=0: the compatible mode
if rmmod memtrace && insmod $ko pebs_hook=0; then
	if [ "$(mode)" = perf-overflow ] &&
	   [ "$(dcount 'memtrace: PEBS sink hook disabled (pebs_hook=0): compatible mode')" -ge 1 ] &&
	   [ "$(dcount 'memtrace: PEBS sink hook v1 found')" = "$found" ]; then
		ok "compat: pebs_hook=0: mode perf-overflow, 'hook disabled (pebs_hook=0)' in dmesg"
	else
		fail "compat: pebs_hook=0: mode '$(mode)', dmesg: $(dmesg | grep 'memtrace: .*PEBS' | tail -2 | tr '\n' ' ')"
	fi
	status compat-status perf-overflow
	timeout $((120 * ${GUEST_SLOW:-1})) /bin/mtktest pebs compat || fails=$((fails + 1))
	rmmod memtrace || fail "compat: rmmod after pebs_hook=0"
else
	fail "compat: rmmod memtrace / insmod pebs_hook=0 failed"
fi
# as guest-init.sh left it, for the tests after this one
if [ -e /sys/module/memtrace ] || insmod $ko; then
	if [ "$(mode)" = pebs-hook ]; then
		ok "reload: insmod again: mode pebs-hook"
	else
		fail "reload: insmod again: mode '$(mode)'"
	fi
else
	fail "reload: insmod $ko failed"
fi
[ "$fails" = 0 ]
