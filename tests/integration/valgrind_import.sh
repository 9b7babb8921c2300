#!/bin/bash
# valgrind_import.sh - `memtracectl import --format lackey` against the
# independent reference (lackey_ref.py) on a log of the pageramp workload
# made by valgrind itself.  Run by tests/suites.d/30-valgrind.sh, or alone.
set -u
VG_STANDALONE=0
if [ -z "${VG_COMMON_LOADED:-}" ]; then
	VG_STANDALONE=1
	. "$(dirname "${BASH_SOURCE[0]}")/valgrind_common.sh"
fi

vg_import_tests() {
	vg_prereq import_prerequisites || return 0
	local d="$VG_TMP/imp" log rc
	mkdir -p "$d"
	log="$d/pageramp.log"

	# --help, and the error paths: one line, non-zero exit, no output file
	if "$MT" import --help >"$d/help.out" 2>&1 && grep -q '^usage: memtracectl import' "$d/help.out"; then
		ok import_help
	else
		fail import_help "no usage text or non-zero exit"
	fi
	timeout 20 "$MT" import -o "$d/x.mtrace" "$d/does-not-exist.log" 2>"$d/e1"
	one_line_error import_missing_file $? "$d/e1"
	timeout 20 "$MT" import -o "$d/x.mtrace" "$PAGERAMP" 2>"$d/e2"
	one_line_error import_garbage_binary $? "$d/e2"
	printf 'hello\nthis is not\na lackey log\n' >"$d/text.log"
	timeout 20 "$MT" import -o "$d/x.mtrace" "$d/text.log" 2>"$d/e3"
	one_line_error import_garbage_text $? "$d/e3"
	: >"$d/empty.log"
	timeout 20 "$MT" import -o "$d/x.mtrace" "$d/empty.log" 2>"$d/e4"
	one_line_error import_empty $? "$d/e4"
	timeout 20 "$MT" import --format perf -o "$d/x.mtrace" "$d/text.log" 2>"$d/e5"
	one_line_error import_unknown_format $? "$d/e5"
	if [ -e "$d/x.mtrace" ]; then
		fail import_errors_write_nothing "an output file was created for bad input"
	else
		ok import_errors_write_nothing
	fi

	# a real log, made by valgrind directly (not by our backend)
	if ! timeout 120 valgrind --tool=lackey --trace-mem=yes --log-file="$log" \
		"$PAGERAMP" -n 128 -c 2 >"$d/ramp.out" 2>"$d/ramp.err"; then
		fail import_make_log "valgrind failed: $(tail -2 "$d/ramp.err")"
		return 0
	fi
	local t0 t1
	t0=$(date +%s%N)
	timeout 120 "$MT" import -c 1 -o "$d/exact.mtrace" "$log" 2>"$d/imp.err"
	rc=$?
	t1=$(date +%s%N)
	if [ $rc != 0 ] || [ -s "$d/imp.err" ]; then
		fail import_exact "exit $rc: $(head -c 300 "$d/imp.err")"
		return 0
	fi
	ok "import_exact ($(wc -l <"$log") lines in $(( (t1 - t0) / 1000000 )) ms)"

	# header and end keys, sample count = every L/S/M line
	local acc
	acc=$(grep -c '^ [LSM] ' "$log")
	if [ "$(meta "$d/exact.mtrace" backend)" = lackey-import ] &&
	   [ "$(meta "$d/exact.mtrace" source)" = valgrind-lackey ] &&
	   [ "$(meta "$d/exact.mtrace" time_unit)" = insn ] &&
	   [ "$(meta "$d/exact.mtrace" clock)" = instructions ] &&
	   [ "$(meta "$d/exact.mtrace" sample_period)" = 1 ] &&
	   [ "$(meta "$d/exact.mtrace" target_comm)" = pageramp ] &&
	   [ "$(meta "$d/exact.mtrace" end_reason)" = input-ended ] &&
	   [ "$(meta "$d/exact.mtrace" samples)" = "$acc" ]; then
		ok import_header_and_count
	else
		fail import_header_and_count "backend=$(meta "$d/exact.mtrace" backend) samples=$(meta "$d/exact.mtrace" samples) (want $acc) end=$(meta "$d/exact.mtrace" end_reason)"
	fi

	# WSS(t, tau) equals the reference for several (tau, T), tau != T too
	compare_ref import_wss_tau1000_T1000 "$d/exact.mtrace" "$log" 1000 1000 4096
	compare_ref import_wss_tau10000_T1000 "$d/exact.mtrace" "$log" 10000 1000 4096
	compare_ref import_wss_tau1000_T7000 "$d/exact.mtrace" "$log" 1000 7000 4096
	compare_ref import_wss_tau50000_T3000 "$d/exact.mtrace" "$log" 50000 3000 4096
	compare_ref import_wss_tau250_T100 "$d/exact.mtrace" "$log" 250 100 4096
	# tau=3, T=1: one row per instruction, catches any time off-by-one
	compare_ref import_wss_tau3_T1_bucket64 "$d/exact.mtrace" "$log" 3 1 64
	compare_ref import_wss_bucket64 "$d/exact.mtrace" "$log" 10000 1000 64
	compare_ref import_wss_bucket2M "$d/exact.mtrace" "$log" 100000 10000 2097152

	# the same log compressed (xz, zstd, no telling name) and from stdin
	series "$d/exact.mtrace" 10000 1000 64 "$d/plain.csv"
	xz -c "$log" >"$d/log.xz"
	zstd -q -c "$log" >"$d/log.zst"
	cp "$d/log.zst" "$d/zst-without-suffix"
	local f
	for f in log.xz log.zst zst-without-suffix; do
		if timeout 120 "$MT" import -o "$d/$f.mtrace" "$d/$f" 2>"$d/$f.err" &&
		   series "$d/$f.mtrace" 10000 1000 64 "$d/$f.csv" && cmp -s "$d/plain.csv" "$d/$f.csv"; then
			ok "import_compressed_$f"
		else
			fail "import_compressed_$f" "differs from the plain import: $(head -c 200 "$d/$f.err")"
		fi
	done
	if timeout 120 "$MT" import -o "$d/stdin.mtrace" - <"$d/log.xz" 2>"$d/stdin.err" &&
	   series "$d/stdin.mtrace" 10000 1000 64 "$d/stdin.csv" && cmp -s "$d/plain.csv" "$d/stdin.csv"; then
		ok import_stdin_xz
	else
		fail import_stdin_xz "differs from the plain import: $(head -c 200 "$d/stdin.err")"
	fi

	# corrupt compressed data: one-line error, non-zero exit, and the
	# samples decoded before the damage are still a readable trace
	/usr/bin/python3 -c 'import sys; d = bytearray(open(sys.argv[1], "rb").read()); d[len(d) // 2] ^= 0xff; open(sys.argv[2], "wb").write(d)' "$d/log.xz" "$d/bad.xz"
	timeout 60 "$MT" import -o "$d/bad.mtrace" "$d/bad.xz" 2>"$d/bad.err"
	rc=$?
	if [ $rc != 0 ] && [ "$(wc -l <"$d/bad.err")" = 1 ] && grep -q '^memtracectl: .*corrupt xz' "$d/bad.err" &&
	   [ "$(meta "$d/bad.mtrace" end_reason)" = input-ended ] && series "$d/bad.mtrace" 1000 1000 4096 "$d/bad.csv"; then
		ok import_corrupt_xz
	else
		fail import_corrupt_xz "exit $rc: $(head -c 300 "$d/bad.err" | tr '\n' '|')"
	fi

	# every 3rd access
	if timeout 120 "$MT" import -c 3 --fixed-period -o "$d/c3.mtrace" "$log" 2>"$d/c3.err"; then
		compare_ref import_period3_wss "$d/c3.mtrace" "$log" 5000 1000 64 --period 3
		compare_ref import_period3_wss_tau3_T1 "$d/c3.mtrace" "$log" 3 1 64 --period 3
	else
		fail import_period3_wss "import -c 3 failed: $(head -c 200 "$d/c3.err")"
	fi

	# random periods: same seed, same trace; other seed, other samples
	local s1 s2 s3
	for s in 7 7b 8; do
		timeout 120 "$MT" import -c 5 --random-period --seed "${s%b}" -o "$d/r$s.mtrace" "$log" 2>/dev/null
		series "$d/r$s.mtrace" 1000 1000 64 "$d/r$s.csv"
	done
	s1=$(meta "$d/r7.mtrace" samples)
	s3=$(meta "$d/r8.mtrace" samples)
	if [ -s "$d/r7.csv" ] && cmp -s "$d/r7.csv" "$d/r7b.csv" && ! cmp -s "$d/r7.csv" "$d/r8.csv" &&
	   [ "$(meta "$d/r7.mtrace" random_period)" = 1 ] && [ "$(meta "$d/r7.mtrace" seed)" = 7 ] &&
	   [ -n "$s1" ] && [ $((s1 * 5)) -gt $((acc * 9 / 10)) ] && [ $((s1 * 5)) -lt $((acc * 11 / 10)) ]; then
		ok import_random_period_deterministic
	else
		fail import_random_period_deterministic "seed 7: $s1 samples, seed 8: $s3, accesses $acc"
	fi

	# a log cut in the middle of a line: warning, exit 0, the rest exact
	head -n $(($(wc -l <"$log") / 2)) "$log" >"$d/cut.log"
	printf ' L 1fff00' >>"$d/cut.log"	# the cut: half a line
	timeout 120 "$MT" import -o "$d/cut.mtrace" "$d/cut.log" 2>"$d/cut.err"
	rc=$?
	if [ $rc = 0 ] && grep -q 'warning: .*middle of a line' "$d/cut.err"; then
		compare_ref import_cut_log "$d/cut.mtrace" "$d/cut.log" 10000 1000 4096
	else
		fail import_cut_log "exit $rc, stderr: $(head -c 200 "$d/cut.err")"
	fi
}

vg_import_tests
if [ "$VG_STANDALONE" = 1 ]; then
	vg_summary
fi
