#!/bin/bash
# check-accessed.sh CONSOLE OUTDIR TAG - checks the files guest-accessed.sh
# shipped on the guest's console: the page sets of the accessed-bit source
# against pglike's own oracle (tests/integration/check_accessed.py), the
# run without TLB flushes reported (what it lost; not asserted), the meta
# (backend, mode, nothing dropped).  A missing file is a FAIL.
set -u
log=$1 d=$2 tag=$3
top=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$d" && mkdir -p "$d"
awk -v d="$d" '/^BEGIN-FILE /{f=d"/"$2".b64"; next} /^END-FILE/{f=""; next}
	/^\[ *[0-9]+\.[0-9]+\]/{next} f{print > f}' "$log" 2>/dev/null
for b in "$d"/*.b64; do [ -e "$b" ] && base64 -d "$b" >"${b%.b64}"; done
for n in accessed accessed-noflush accessed-busy accessed-busy-noflush; do
	if ! [ -s "$d/$n.csv.gz" ] || ! gunzip -f "$d/$n.csv.gz" || ! [ -s "$d/$n.oracle" ]; then
		echo "FAIL $tag $n-sets: no trace or oracle shipped"
		continue
	fi
	opt=
	case $n in *-noflush) opt=--report-only ;; esac
	if res=$(/usr/bin/python3 "$top/tests/integration/check_accessed.py" "$d/$n.csv" "$d/$n.oracle" $opt 2>&1); then
		echo "ok   $tag $n-sets: $res"
	else
		echo "FAIL $tag $n-sets: $res"
	fi
	if grep -qx 'backend=module' "$d/$n.meta" && grep -qx 'mode=accessed' "$d/$n.meta" &&
	   grep -qx 'sample_class=accessed-bit' "$d/$n.meta" && grep -qx 'pass_period_ms=1000' "$d/$n.meta" &&
	   grep -qx 'dropped=0' "$d/$n.meta"; then
		echo "ok   $tag $n-meta: backend=module mode=accessed sample_class=accessed-bit pass_period_ms=1000 dropped=0"
	else
		echo "FAIL $tag $n-meta: $(grep -E '^(backend|mode|sample_class|pass_period_ms|dropped|tlb_flush)=' "$d/$n.meta" 2>/dev/null | tr '\n' ' ')"
	fi
done
for n in accessed-noflush accessed-busy-noflush; do
	flush=$(grep -x 'tlb_flush=[01]' "$d/$n.meta" 2>/dev/null)
	[ "$flush" = tlb_flush=0 ] && echo "ok   $tag $n-meta: tlb_flush=0 in the trace" ||
		echo "FAIL $tag $n-meta: '$flush'"
done
