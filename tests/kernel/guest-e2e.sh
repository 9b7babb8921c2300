#!/bin/sh
# guest-e2e.sh pebs|ibs - the pebs-drain-e2e and ibs-inject tests
# (tests/kernel/guest-init.sh): synthetic PEBS records (pebs) or IBS op
# samples (ibs) delivered by pebs_e2e_test.ko (tests/pebs/e2etest) into a
# memtrace.ko session that `memtracectl record --backend module -p PID`
# reads, end to end, in the debug kernel without a PMU.  memtrace.ko is
# reloaded with selftest=1 (kernel/memtrace_selftest.h: software dummy
# counters stand in for the hardware ones; ibs: pebs_hook=0 too, the
# perf-overflow mode an IBS event takes); the session's event is an Intel
# PEBS event encoded from libpfm4's Skylake table (LIBPFM_ENCODE_INACTIVE=1:
# this CPU has none), which memtracectl would refuse here otherwise.
# The target is a shell that writes "KIND N" lines to the test module's
# ctl file: each delivery runs in that shell (or in an irq_work it
# queued), so every sample must carry the shell's pid as pid and tid.
# Checked against the module's list of what it delivered (pid,tid,addr,
# ip,weight,data_src), not against memtrace: every line exactly once in
# `memtracectl dump`, nothing else, lost/dropped as delivered.
# What this does not run: counter programming, the PMI, skid, throttling
# (docs/pebs-hook.md, docs/hwcheck.md).
what=${1:-pebs}
MT=/bin/memtracectl
ko=/memtrace.ko
tko=/pebs_e2e_test.ko
D=/sys/kernel/debug/pebs_e2e
EV=skl::MEM_INST_RETIRED:ALL_LOADS
fails=0
if [ $what = ibs ]; then pfx=ibs-inject; else pfx=pebs-drain-e2e; fi
ok() { echo "ok   $pfx-$1"; }
fail() { echo "FAIL $pfx-$1"; fails=$((fails + 1)); }

# load TAG PARAMS...: memtrace.ko with these parameters
load() {
	[ -e /sys/module/pebs_e2e_test ] && rmmod pebs_e2e_test
	[ -e /sys/module/memtrace ] && { rmmod memtrace || return 1; }
	insmod $ko "$@"
}
if [ ! -e $tko ]; then
	fail "load: no $tko in the initramfs (run-guest.sh builds it for pebs-drain-e2e/ibs-inject)"
	exit 1
fi
if [ $what = ibs ]; then params="selftest=1 pebs_hook=0"; want_mode=perf-overflow
else params="selftest=1"; want_mode=pebs-hook; fi
if ! load $params || [ "$(cat /sys/module/memtrace/parameters/selftest)" != Y ]; then
	fail "load: insmod memtrace.ko $params"
	exit 1
fi

# run TAG RING CMD...: a target shell writes each CMD to ctl once the
# session runs; memtracectl records it (--ring RING records per CPU when
# not 0); leaves /tmp/e2e.{exp,got,meta,err}, $tp the target's pid
run() {
	tag=$1 ring=$2; shift 2
	[ -e /sys/module/pebs_e2e_test ] && rmmod pebs_e2e_test
	insmod $tko || { fail "$tag: insmod $tko"; return 1; }
	rm -f /tmp/e2e.mtrace /tmp/e2e.bad
	# the first write fails (ENODEV) until START has given the session its counters
	sh -c 'n=0
		until echo "$1" >'$D'/ctl 2>/dev/null; do
			n=$((n + 1)); [ $n -gt 600 ] && { echo "no session after 60 s" >/tmp/e2e.bad; exit 1; }
			sleep 0.1
		done
		shift
		for c in "$@"; do echo "$c" >'$D'/ctl || { echo "write $c failed" >/tmp/e2e.bad; exit 1; }; done
		sleep 0.3' e2e-target "$@" &
	tp=$!
	LIBPFM_ENCODE_INACTIVE=1 $MT record --backend module -e $EV ${ring:+--ring $ring} \
		-p $tp -o /tmp/e2e.mtrace 2>/tmp/e2e.err &
	rec=$!
	wait $tp
	trc=$?
	wait $rec
	rrc=$?
	cat $D/log >/tmp/e2e.kinds	# the delivered samples, with their kind
	cut -d, -f1-6 /tmp/e2e.kinds >/tmp/e2e.exp
	lost_made=$(cat $D/lost)
	rmmod pebs_e2e_test || fail "$tag: rmmod pebs_e2e_test"
	if [ $trc != 0 ] || [ $rrc != 0 ]; then
		fail "$tag: target exit $trc ($(cat /tmp/e2e.bad 2>/dev/null)), memtracectl record exit $rrc: $(tail -2 /tmp/e2e.err | tr '\n' ' ')"
		return 1
	fi
	$MT dump --meta /tmp/e2e.mtrace | grep '=' >/tmp/e2e.meta
	# pid,tid,addr,ip,weight,data_src of each sample
	$MT dump /tmp/e2e.mtrace | sed 1d | cut -d, -f2,3,5-8 >/tmp/e2e.got
	meta() { sed -n "s/^$1=//p" /tmp/e2e.meta | tail -1; }
	mode=$(meta mode) lost=$(meta lost) dropped=$(meta dropped)
	nexp=$(wc -l </tmp/e2e.exp) ngot=$(wc -l </tmp/e2e.got)
	# the injector's pid/tid are the target shell's
	others=$(grep -cv "^$tp,$tp," /tmp/e2e.exp)
	if [ "$mode" != $want_mode ] || [ "$others" != 0 ] || [ "$nexp" = 0 ]; then
		fail "$tag: mode '$mode' (want $want_mode), $nexp delivered, $others of them not from the target $tp"
		return 1
	fi
	return 0
}

# only_in A B: the lines of B that are not in A (busybox has no comm)
only_in() { awk 'NR == FNR { a[$0] = 1; next } !($0 in a)' "$1" "$2"; }

# kind KIND N WHAT: the N samples delivered as KIND, each in the trace
kind() {
	awk -F, -v k=$1 '$7 == k' /tmp/e2e.kinds | cut -d, -f1-6 >/tmp/e2e.k
	n=$(wc -l </tmp/e2e.k)
	miss=$(only_in /tmp/e2e.got /tmp/e2e.k | wc -l)
	if [ "$n" = "$2" ] && [ "$miss" = 0 ]; then
		ok "$1: $3: all $n in the trace, exact pid=tid=$tp, addr, ip, weight, data_src"
	else
		fail "$1: $n delivered (want $2), $miss of them not in the trace"
		only_in /tmp/e2e.got /tmp/e2e.k | head -2 | sed 's/^/    delivered, not in the trace: /'
	fi
}

# exact TAG: every delivered sample once in the trace, nothing else
exact() {
	sort /tmp/e2e.exp >/tmp/e2e.exp.s
	sort /tmp/e2e.got >/tmp/e2e.got.s
	if cmp -s /tmp/e2e.exp.s /tmp/e2e.got.s && [ "$dropped" = 0 ] && [ "$lost" = "$lost_made" ]; then
		return 0
	fi
	fail "$1: $ngot samples in the trace, $nexp delivered, dropped $dropped, lost $lost (made $lost_made); first differences (pid,tid,addr,ip,weight,data_src):"
	only_in /tmp/e2e.got.s /tmp/e2e.exp.s | head -2 | sed 's/^/    delivered, not in the trace: /'
	only_in /tmp/e2e.exp.s /tmp/e2e.got.s | head -2 | sed 's/^/    in the trace, not delivered: /'
	return 1
}

if [ $what = pebs ]; then
	# fixed-format and adaptive records through the drain; records without
	# meminfo lost; samples from hard IRQ between them, while memtracectl reads
	if run mixed "" "fixed 64" "adaptive 64" "lost 5" "irq 200" "fixed 300" \
		"adaptive 300" "irq 500" "fixed 2000" "fmt1 50" "fmt2 80"; then
		exact mixed &&
			ok "mixed: the $ngot samples in the trace = the $nexp delivered (pid,tid,addr,ip,weight,data_src), each once, mode $mode, large_pebs $(meta large_pebs), dropped 0"
		# each kind on its own: its samples all in the trace, as many as sent
		kind fixed 2364 "fmt3 records (drains of 64, 300, 2000) through x86_pebs_sink_selftest_drain into memtrace's sink"
		kind adaptive 364 "fmt4 basic+meminfo records (drains of 64, 300) through the drain"
		kind fmt1 50 "fmt1 records (no TSC, no real IP) through the drain"
		kind fmt2 80 "fmt2 records (no TSC) through the drain"
		kind irq 700 "x86_pebs_samples handed to the sink from irq_work (hard IRQ) while memtracectl read"
		if [ "$lost" = 5 ] && [ "$lost_made" = 5 ] && ! grep -q ',lost$' /tmp/e2e.kinds; then
			ok "lost: 5 adaptive records without meminfo: the trace's END lost=5, no sample for them"
		else
			fail "lost: END lost=$lost, $lost_made made, $(grep -c ',lost$' /tmp/e2e.kinds) listed as samples"
		fi
	fi
	# ring full: 128 records per CPU, 3 x 4000 records in single drains
	if run ring-full 128 "fixed 4000" "adaptive 4000" "fixed 4000"; then
		sort /tmp/e2e.exp >/tmp/e2e.exp.s
		sort /tmp/e2e.got >/tmp/e2e.got.s
		extra=$(only_in /tmp/e2e.exp.s /tmp/e2e.got.s | wc -l)
		dup=$(uniq -d /tmp/e2e.got.s | wc -l)
		if [ "$extra" = 0 ] && [ "$dup" = 0 ] && [ "$ngot" -gt 0 ] && [ "$dropped" -gt 0 ] &&
		   [ $((ngot + dropped)) = "$nexp" ]; then
			ok "ring-full: --ring 128, $nexp records in drains of 4000: $ngot in the trace + dropped $dropped = $nexp, each kept one exact, none twice"
		else
			fail "ring-full: $nexp delivered, $ngot in the trace ($extra not delivered, $dup twice), dropped $dropped"
			only_in /tmp/e2e.exp.s /tmp/e2e.got.s | head -2 | sed 's/^/    in the trace, not delivered: /'
		fi
	fi
else
	# IBS op samples (load miss, load hit, store, no data address) through
	# the overflow handler from hard IRQ, during the recording
	if run ops "" "ibs 100" "ibs 400" "ibs 1000"; then
		exact ops &&
			ok "ops: $ngot IBS op samples (perf_sample_data as ibs.c fills it) through memtrace's overflow handler from irq_work: exact pid=tid=$tp, addr, ip, weight, data_src, mode $mode"
		# ops cycle load miss, load hit, store, load without an address:
		# of 1500, 375 carry a weight and 375 address 0, in the trace
		w=$(awk -F, '$5 != 0' /tmp/e2e.got | wc -l)
		z=$(awk -F, '$3 == "0x0"' /tmp/e2e.got | wc -l)
		if [ "$w" = 375 ] && [ "$z" = 375 ]; then
			ok "fields: in the trace 375 samples with a weight (the load misses' latency) and 375 with address 0 (no valid linear address), as sent"
		else
			fail "fields: in the trace $w samples with a weight, $z with address 0 (want 375 and 375)"
		fi
	fi
fi

# stop, unload, and memtrace.ko as guest-init.sh left it
if load; then
	ok "unload: pebs_e2e_test and memtrace.ko (selftest=1) removed, memtrace.ko loaded again"
else
	fail "unload: rmmod/insmod memtrace.ko"
fi
[ "$fails" = 0 ]
