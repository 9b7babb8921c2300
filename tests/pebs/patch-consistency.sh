#!/bin/bash
# patch-consistency.sh - kernel/perf-pebs-hook.patch carries a copy of
# kernel/pebs-hook/pebs_extract.h (as arch/x86/events/intel/pebs_extract.h)
# and names the pinned kernel in its header; check both.  Offline, instant.
# Prints "ok   NAME" / "FAIL NAME: why" lines; exits 1 on a failure.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/pebs/kernel-pin.sh"
patchfile=$top/kernel/perf-pebs-hook.patch
rc=0

# The added file: the '+' lines of its hunk, up to the next "diff ".
embedded=$(awk '
	/^diff / { inside = ($0 ~ /pebs_extract\.h$/); next }
	inside && /^\+\+\+ / { next }
	inside && /^@@ / { next }
	inside && /^\+/ { print substr($0, 2) }
' "$patchfile")
if [ -z "$embedded" ]; then
	echo "FAIL pebs-patch-embeds-extractor: no pebs_extract.h in the patch"
	rc=1
elif [ "$embedded" != "$(cat "$top/kernel/pebs-hook/pebs_extract.h")" ]; then
	echo "FAIL pebs-patch-embeds-extractor: the patch's pebs_extract.h differs from kernel/pebs-hook/pebs_extract.h (regenerate: tests/pebs/regen-patch.sh)"
	rc=1
else
	echo "ok   pebs-patch-embeds-extractor"
fi

if grep -q "^Base: Debian linux-source-$PIN_SERIES $PIN_DEB_VERSION " "$patchfile" &&
   grep -q "$PIN_TARBALL_SHA256" "$patchfile"; then
	echo "ok   pebs-patch-names-pinned-base"
else
	echo "FAIL pebs-patch-names-pinned-base: header does not name linux-source-$PIN_SERIES $PIN_DEB_VERSION and its sha256"
	rc=1
fi
exit $rc
