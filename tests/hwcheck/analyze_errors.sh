#!/bin/bash
# memtrace-hwcheck-analyze on bad input: one line on stderr, exit 2.
set -u
cd "$(dirname "$0")/../.." || exit 1
a=${BUILD:-build}/hwcheck/memtrace-hwcheck-analyze
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
${BUILD:-build}/tests/hwcheck/mksynth loads-pass "$dir" || exit 1
expect() {	# expect STDERR-REGEX CMD...: exit 2, one stderr line matching (usage: 3 lines)
	local want=$1 lines=1; shift
	[ "$want" = '^usage: ' ] && lines=3
	"$@" > /dev/null 2> "$dir/err"
	local rc=$?
	[ "$rc" = 2 ] || { echo "exit $rc, not 2: $*"; exit 1; }
	[ "$(wc -l < "$dir/err")" = "$lines" ] && head -1 "$dir/err" | grep -qE "$want" ||
		{ echo "stderr of $*: $(cat "$dir/err")"; exit 1; }
}
expect '^usage: ' "$a"
expect '^usage: ' "$a" check "$dir/loads-pass.mtrace" "$dir/loads-pass.layout"
expect '^usage: ' "$a" check --kind writes "$dir/loads-pass.mtrace" "$dir/loads-pass.layout"
expect 'not a fraction' "$a" check --kind loads --tolerance 2 "$dir/loads-pass.mtrace" "$dir/loads-pass.layout"
expect 'nothere.layout: No such file' "$a" check --kind loads "$dir/loads-pass.mtrace" "$dir/nothere.layout"
printf 'pid 1\nrounds 2\nbogus line\n' > "$dir/bad.layout"
expect 'bad.layout:3: not a hwload layout line: bogus line' "$a" check --kind loads "$dir/loads-pass.mtrace" "$dir/bad.layout"
printf 'pid 1\nrounds 2\n' > "$dir/short.layout"
expect 'incomplete hwload layout' "$a" check --kind loads "$dir/loads-pass.mtrace" "$dir/short.layout"
printf 'garbage\n' > "$dir/junk.mtrace"
expect '^memtrace-hwcheck-analyze: .*junk.mtrace: ' "$a" check --kind loads "$dir/junk.mtrace" "$dir/loads-pass.layout"
printf 'loads untraced 200 1 100 -\nloads sometracer 200 1 100 5\n' > "$dir/runs"
expect 'runs:2: not a run line' "$a" slowdown "$dir/runs"
expect 'nothere: No such file' "$a" slowdown "$dir/nothere"
# meta: a HEADER key, the counts, and exit 1 for a key the trace lacks
[ "$("$a" meta "$dir/loads-pass.mtrace" source)" = pebs ] || exit 1
[ "$("$a" meta "$dir/loads-pass.mtrace" samples)" = 4022 ] || exit 1
"$a" meta "$dir/loads-pass.mtrace" no_such_key > /dev/null; [ $? = 1 ] || exit 1
