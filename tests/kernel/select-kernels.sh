#!/bin/bash
# select-kernels.sh - keeps the lines "ABI ROOT" of stdin (fetch-kernels.sh's
# list) that $KERNELS names, all of them when it is unset or empty.  A name
# matches the ABI with or without its "+debNN" suffix (6.12.117 or
# 6.12.117+deb12); a name matching no kernel is an error, so a typo never
# silently runs nothing.
set -u
list=$(cat)
[ -z "${KERNELS:-}" ] && { printf '%s\n' "$list"; exit 0; }
for want in $KERNELS; do
	if ! awk -v w="$want" '{ a = $1; sub(/\+.*/, "", a) } $1 == w || a == w { f = 1 } END { exit !f }' <<<"$list"; then
		echo "KERNELS: no kernel named $want (known: $(awk '{ printf "%s%s", s, $1; s = " " }' <<<"$list"))" >&2
		exit 1
	fi
done
awk -v ks=" $KERNELS " '{ a = $1; sub(/\+.*/, "", a) } index(ks, " " $1 " ") || index(ks, " " a " ")' <<<"$list"
