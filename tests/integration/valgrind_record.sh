#!/bin/bash
# valgrind_record.sh - `memtracectl record --backend valgrind` on pageramp:
# the trace equals the reference computed from the very same lackey stream
# (kept through MEMTRACE_LACKEY_LOG), the program's own output is
# untouched, the sawtooth's working set is what the paper says, and Ctrl-C
# leaves a complete file.  Run by tests/suites.d/30-valgrind.sh, or alone.
set -u
VG_STANDALONE=0
if [ -z "${VG_COMMON_LOADED:-}" ]; then
	VG_STANDALONE=1
	. "$(dirname "${BASH_SOURCE[0]}")/valgrind_common.sh"
fi

vg_record_tests() {
	vg_prereq record_prerequisites || return 0
	local d="$VG_TMP/rec" log rc pages=128
	mkdir -p "$d"
	log="$d/lackey.log"

	local t0 t1
	t0=$(date +%s%N)
	MEMTRACE_LACKEY_LOG="$log" timeout 300 "$MT" record --backend valgrind -o "$d/r.mtrace" \
		-- "$PAGERAMP" -n $pages -c 2 >"$d/out" 2>"$d/err"
	rc=$?
	t1=$(date +%s%N)
	if [ $rc != 0 ]; then
		fail record_valgrind "exit $rc: $(head -c 300 "$d/err")"
		return 0
	fi
	# the program's stdout is its own; lackey's lines went to the pipe only
	if grep -q "^base=0x[0-9a-f]* pages=$pages cycles=2 " "$d/out" && [ "$(wc -l <"$d/out")" = 1 ] &&
	   ! grep -q '^==[0-9]*==\|^ [LSM] \|^I  ' "$d/out" "$d/err" && grep -q '^I  ' "$log"; then
		ok "record_valgrind (pageramp -n $pages -c 2: $(grep -c '^I ' "$log") instructions in $(( (t1 - t0) / 1000000 )) ms)"
	else
		fail record_valgrind "stdout: $(head -c 200 "$d/out" | tr '\n' '|') stderr: $(head -c 200 "$d/err" | tr '\n' '|')"
	fi

	local pid acc
	pid=$(sed -n 's/.* tid=\([0-9]*\) .*/\1/p' "$d/out")
	acc=$(grep -c '^ [LSM] ' "$log")
	if [ "$(meta "$d/r.mtrace" backend)" = valgrind ] &&
	   [ "$(meta "$d/r.mtrace" source)" = valgrind-lackey ] &&
	   [ "$(meta "$d/r.mtrace" event)" = all-data-accesses ] &&
	   [ "$(meta "$d/r.mtrace" time_unit)" = insn ] &&
	   [ "$(meta "$d/r.mtrace" fields)" = ip,data_src ] &&
	   [ "$(meta "$d/r.mtrace" target_comm)" = pageramp ] &&
	   [ "$(meta "$d/r.mtrace" target_pid)" = "$pid" ] &&
	   [ "$(meta "$d/r.mtrace" end_reason)" = target-exited ] &&
	   [ "$(meta "$d/r.mtrace" samples)" = "$acc" ] &&
	   [ "$(meta "$d/r.mtrace" end_time)" = "$(awk '/^I  /{n++} /^ [LSM] /{t=n} END{print t}' "$log")" ]; then
		ok record_header_and_count
	else
		fail record_header_and_count "backend=$(meta "$d/r.mtrace" backend) pid=$(meta "$d/r.mtrace" target_pid) (want $pid) samples=$(meta "$d/r.mtrace" samples) (want $acc) end=$(meta "$d/r.mtrace" end_reason)"
	fi

	# its words: every access (period 1), a working set; same JSON keys as page faults
	"$MT" report "$d/r.mtrace" >"$d/r.txt" 2>&1
	"$MT" report --json "$d/r.mtrace" >"$d/r.json" 2>&1
	if [ "$(meta "$d/r.mtrace" sample_class)" = every-access ] &&
	   grep -qx 'measures:  accesses (every-access)' "$d/r.txt" &&
	   grep -Eq "^samples:   $acc accesses   lost 0" "$d/r.txt" &&
	   grep -Eq '^span:      [0-9]+ insn recorded; accesses from [0-9]+ insn to [0-9]+ insn$' "$d/r.txt" &&
	   grep -q '^Data WSS avg/peak/total: ' "$d/r.txt" && grep -q '^Code WSS avg/peak/total: ' "$d/r.txt" &&
	   grep -Eq '^Hot data buckets \(top 10 of [0-9]+\):$' "$d/r.txt" &&
	   grep -qx '      accesses  address             location  \[accessed by\]' "$d/r.txt" &&
	   grep -qx 'Hot working set by access frequency:' "$d/r.txt" &&
	   grep -qx '  >= accesses     buckets          size  share of accesses' "$d/r.txt" &&
	   grep -Eq '^Peaks of the data WSS \(' "$d/r.txt" &&
	   /usr/bin/python3 - "$d/r.json" <<'PY'; then
import json, sys
j = json.load(open(sys.argv[1]))
assert j["sample_class"] == "every-access" and j["target_comm"] == "pageramp"
assert j["measure"] == ("each sample is one memory access (every data access): wss_data and wss_code count "
                        "distinct buckets accessed per window (the working set), hot_* and hot_wss count accesses")
assert j["duration"] == j["last_sample"] > 0     # an instruction trace ends at its last access
PY
		ok record_words_every_access
	else
		fail record_words_every_access "$(grep -E '^(measures|samples|span|Data|Hot)' "$d/r.txt" | tr '\n' '|')"
	fi

	compare_ref record_wss_tau1000_T1000 "$d/r.mtrace" "$log" 1000 1000 4096
	compare_ref record_wss_tau20000_T2000 "$d/r.mtrace" "$log" 20000 2000 4096
	compare_ref record_wss_tau500_T4000 "$d/r.mtrace" "$log" 500 4000 4096
	compare_ref record_wss_tau3_T1_bucket64 "$d/r.mtrace" "$log" 3 1 64
	compare_ref record_wss_bucket256 "$d/r.mtrace" "$log" 5000 1000 256
	compare_ref record_wss_bucket64K "$d/r.mtrace" "$log" 100000 10000 65536
	# the miss-ratio curve against an OrderedDict LRU over the log (mrc_ref.py)
	mrc_ref record_mrc_bucket4K "$d/r.mtrace" "$log" 4096 16K
	mrc_ref record_mrc_bucket256 "$d/r.mtrace" "$log" 256 100K

	# the paper's sawtooth: every second claimed page is written, so the
	# region's working set reaches PAGES/2 pages once tau spans a cycle,
	# and the whole trace's data WSS is that plus a few data pages and the
	# 256 KiB (64 pages) of stack the workload faults in before it starts
	local base end cyc big small whole
	base=$(sed -n 's/^base=\(0x[0-9a-f]*\) .*/\1/p' "$d/out")
	end=$(printf '0x%x' $((base + pages * 4096)))
	cyc=$(grep -c '^I  ' "$log")
	big=$($REF "$log" --window "$cyc" --interval 1000 --range "$base:$end" --max-data)
	small=$($REF "$log" --window 50 --interval 50 --range "$base:$end" --max-data)
	# the whole trace as one window: its span (start to END), the longest the report takes
	series "$d/r.mtrace" $(( $(meta "$d/r.mtrace" end_time) - $(meta "$d/r.mtrace" start_time) )) 1000 4096 \
		"$d/whole.csv"
	whole=$(awk -F, 'NR > 1 && $2 > m {m = $2} END {print m + 0}' "$d/whole.csv")
	if [ "$big" = $((pages / 2)) ] && [ "$small" -lt $((pages / 2)) ] &&
	   [ "$whole" -ge $((pages / 2)) ] && [ "$whole" -le $((pages / 2 + 24 + 65)) ]; then
		ok "record_pageramp_wss_half_the_pages (region $big, whole trace $whole <= $((pages / 2 + 24 + 65)))"
	else
		fail record_pageramp_wss_half_the_pages "region max $big (want $((pages / 2))), tau=50: $small, whole trace max $whole"
	fi

	# ... and with tau = T = 2000 instructions it is a sawtooth: one climb
	# from below PAGES/4 up to PAGES/2 per cycle (2 cycles)
	local teeth
	$REF "$log" --window 2000 --interval 2000 --range "$base:$end" --csv "$d/saw.csv" >/dev/null
	teeth=$(awk -F, -v half=$((pages / 2)) -v low=$((pages / 4)) '
		NR > 1 && $2 < low { armed = 1 }
		NR > 1 && armed && $2 == half { n++; armed = 0 }
		END { print n + 0 }' "$d/saw.csv")
	if [ "$teeth" = 2 ]; then
		ok record_pageramp_sawtooth
	else
		fail record_pageramp_sawtooth "$teeth climbs to $((pages / 2)) pages, expected 2: $(awk -F, 'NR > 1 {printf "%s ", $2}' "$d/saw.csv" | head -c 300)"
	fi

	# the guest's main stack, an anonymous mapping of valgrind's, is named
	# [stack]: the one holding the guest's first data access (its entry
	# code reads argc there); every stack sample resolves to it
	local first stackline
	first=$(grep -m1 '^ [LSM] ' "$log" | sed 's/^ [LSM] \([0-9a-f]*\),.*/\1/')
	stackline=$("$MT" dump --meta "$d/r.mtrace" | awk -v a="$first" '
		/^# maps/ { n++ } n == 1 && $NF == "[stack]" { split($1, r, "-");
			if (length(r[1]) == length(a) ? r[1] <= a : length(r[1]) < length(a)) if (length(r[2]) == length(a) ? a < r[2] : length(a) < length(r[2])) print }')
	if [ -n "$first" ] && [ "$(printf '%s\n' "$stackline" | grep -c .)" = 1 ] &&
	   "$MT" report "$d/r.mtrace" -n 1000 | grep -q "  \[stack\]+0x"; then
		ok "record_guest_stack_named ($(echo $stackline | cut -d' ' -f1) holds the first access 0x$first)"
	else
		fail record_guest_stack_named "first access 0x$first, [stack] lines holding it: '$stackline'"
	fi

	# every 3rd access, same stream
	MEMTRACE_LACKEY_LOG="$d/c3.log" timeout 300 "$MT" record --backend valgrind -c 3 --fixed-period \
		-o "$d/c3.mtrace" -- "$PAGERAMP" -n 64 -c 2 >/dev/null 2>"$d/c3.err"
	rc=$?
	if [ $rc = 0 ]; then
		compare_ref record_period3_wss "$d/c3.mtrace" "$d/c3.log" 3 1 64 --period 3
	else
		fail record_period3_wss "exit $rc: $(head -c 200 "$d/c3.err")"
	fi

	# a command valgrind cannot start
	timeout 60 "$MT" record --backend valgrind -o "$d/bad.mtrace" -- "$d/no-such-program" \
		>/dev/null 2>"$d/bad.err"
	rc=$?
	if [ $rc != 0 ] && grep -q '^memtracectl: .*no-such-program' "$d/bad.err"; then
		ok record_missing_command
	else
		fail record_missing_command "exit $rc: $(head -c 300 "$d/bad.err" | tr '\n' '|')"
	fi

	# Ctrl-C: valgrind is stopped, the file is complete
	MEMTRACE_LACKEY_LOG="$d/int.log" "$MT" record --backend valgrind -o "$d/int.mtrace" \
		-- "$PAGERAMP" -n 2048 -c 1000 >"$d/int.out" 2>"$d/int.err" &
	local mpid=$! vpid i
	for i in $(seq 1 100); do
		[ -s "$d/int.out" ] && break
		sleep 0.1
	done
	sleep 1
	vpid=$(sed -n 's/.* tid=\([0-9]*\) .*/\1/p' "$d/int.out")
	kill -INT $mpid
	for i in $(seq 1 100); do
		kill -0 $mpid 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 $mpid 2>/dev/null; then
		kill -KILL $mpid
		[ -n "$vpid" ] && kill -KILL "$vpid" 2>/dev/null
		fail record_sigint "memtracectl still running 10 s after SIGINT"
	else
		wait $mpid
		rc=$?
		if [ $rc = 0 ] && [ "$(meta "$d/int.mtrace" end_reason)" = signal ] &&
		   [ -n "$vpid" ] && ! kill -0 "$vpid" 2>/dev/null &&
		   [ "$(meta "$d/int.mtrace" samples)" -gt 0 ] &&
		   series "$d/int.mtrace" 100000 100000 4096 "$d/int.csv"; then
			ok record_sigint
		else
			[ -n "$vpid" ] && kill -KILL "$vpid" 2>/dev/null
			fail record_sigint "exit $rc, end_reason=$(meta "$d/int.mtrace" end_reason), valgrind pid $vpid, $(head -c 200 "$d/int.err")"
		fi
	fi
}

vg_record_tests
if [ "$VG_STANDALONE" = 1 ]; then
	vg_summary
fi
