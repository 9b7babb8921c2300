#!/bin/bash
# bpf_break.sh - breaking the BPF programs' load on purpose fails the bpf
# suite where bpf is required (.ci/run), instead of ~25 tests vanishing:
# memtracectl built with BPF_EXTRA_CFLAGS=-DMEMTRACE_BPF_BREAK (a write past
# a map value in sample.bpf.c, which the verifier refuses) into
# build/bpf-broken; its status must say the programs do not load, and
# tests/suites.d/25-bpf.sh gated on it must end "0 passed, 1 failed" with
# MEMTRACE_REQUIRE=bpf and "1 skipped" without.  Prints one line; exit 1 on
# a failure.  Run from 25-bpf (only where the real programs load).
cd "$(dirname "$0")/../.." || exit 1
B=build/bpf-broken
make -s -j"$(nproc)" BUILD=$B BPF_EXTRA_CFLAGS=-DMEMTRACE_BPF_BREAK $B/memtracectl >$B.log 2>&1 ||
	{ echo "the broken build failed: $(tail -3 $B.log)"; exit 1; }
line=$($B/memtracectl status 2>&1 | grep '^  bpf: page-faults: ')
case "$line" in
*"unavailable - loading the BPF programs failed"*) ;;
*) echo "status of the broken build: '$line', want the programs refused"; exit 1 ;;
esac
req=$(MEMTRACE_MT=$B/memtracectl MEMTRACE_REQUIRE=bpf bash tests/suites.d/25-bpf.sh 2>&1)
rc=$?
[ $rc != 0 ] && [ "$(echo "$req" | tail -1)" = "0 passed, 1 failed, 0 skipped" ] ||
	{ echo "with MEMTRACE_REQUIRE=bpf: exit $rc, '$(echo "$req" | tail -2 | tr '\n' ' ')'"; exit 1; }
opt=$(MEMTRACE_MT=$B/memtracectl MEMTRACE_REQUIRE= bash tests/suites.d/25-bpf.sh 2>&1)
rc=$?
[ $rc = 0 ] && [ "$(echo "$opt" | tail -1)" = "0 passed, 0 failed, 1 skipped" ] &&
	echo "$opt" | grep -q '^skip .*\[bpf\]: .*loading the BPF programs failed' ||
	{ echo "without: exit $rc, '$(echo "$opt" | tr '\n' ' ')'"; exit 1; }
echo "verifier refusal: status says so; 25-bpf fails where bpf is required, one skip elsewhere"
