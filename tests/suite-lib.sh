# suite-lib.sh - the loop every script-per-test suite in tests/suites.d
# shares: run each script with a time limit, print "ok NAME (T s)",
# "FAIL NAME: last lines" or "skip NAME [CAP]: why", and end with
# "N passed, N failed, N skipped" (run-all.sh adds those up).  Source it
# from the repository root.
#
#   run_scripts DIR SECONDS TAG SHOW NAME...   DIR/NAME.sh for each NAME;
#       TAG is appended to each name (e.g. " (bpf)"); SHOW is what follows
#       an ok line: none, last (the script's last output line) or all
#       (its output joined by ';')
#   suite_skip CAP NAME WHY                    a test this machine cannot run
#   suite_end                                  the summary; exit status
#
# Skips.  A test that cannot run here says which capability it lacks: it
# prints "skip [CAP]: WHY" and exits 77 (tests/integration/lib.sh: skip);
# one that ran but left a part out prints such a line and passes.  CAP is
# one of: bpf, cgroup2, numa-balancing, redis, mariadb, postgresql, prometheus, deb,
# vgtool, kernel-cache (the 50-kernel downloads), pebs-hw, opt-in (a test
# run only when asked).
# MEMTRACE_REQUIRE (comma-separated CAPs, or "all": all but opt-in) makes a skip of a
# required capability a failure: .ci/run declares what the CI machine has.
suite_pass=0 suite_fail=0 suite_skip=0

# suite_required CAP: MEMTRACE_REQUIRE names CAP (or all)
suite_required()
{
	case ",${MEMTRACE_REQUIRE:-}," in
	*",$1,"*) return 0 ;;
	*,all,*) [ "$1" != opt-in ] && return 0 ;;
	esac
	return 1
}

suite_skip()
{
	local cap=$1 name=$2
	shift 2
	if suite_required "$cap"; then
		echo "FAIL $name: skipped for lack of $cap, which MEMTRACE_REQUIRE says this machine has: $*"
		suite_fail=$((suite_fail + 1))
	else
		echo "skip $name [$cap]: $*"
		suite_skip=$((suite_skip + 1))
	fi
}

# the "skip [CAP]: WHY" lines of a test's output, each a skip of NAME
skip_lines()
{
	local name=$1 out=$2 l cap why
	while IFS= read -r l; do
		cap=$(echo "$l" | sed -n 's/^skip \[\([a-z0-9-]*\)\]: .*/\1/p')
		why=${l#*]: }
		[ -n "$cap" ] && suite_skip "$cap" "$name" "$why"
	done <<<"$(echo "$out" | grep '^skip \[')"
}

run_scripts()
{
	local dir=$1 secs=$2 tag=$3 show=$4 t start out took extra rc
	shift 4
	for t in "$@"; do
		start=$(date +%s.%N)
		out=$(timeout "$secs" bash "$dir/$t.sh" 2>&1)
		rc=$?
		if [ $rc = 0 ]; then
			took=$(echo "$(date +%s.%N) - $start" | bc)
			case $show in
			last) extra=" $(echo "$out" | grep -v '^skip \[' | tail -1)" ;;
			all) extra=": $(echo "$out" | grep -v '^skip \[' | tr '\n' ';' | sed 's/;$//')" ;;
			*) extra="" ;;
			esac
			printf 'ok   %s%s (%.1f s)%s\n' "$t" "$tag" "$took" "$extra"
			suite_pass=$((suite_pass + 1))
			skip_lines "$t$tag (a part)" "$out"
		elif [ $rc = 77 ] && echo "$out" | grep -q '^skip \['; then
			skip_lines "$t$tag" "$(echo "$out" | grep '^skip \[' | tail -1)"
		else
			[ $rc = 77 ] && out="$out (exit 77 without a skip [CAP] line)"
			echo "FAIL $t$tag: $(echo "$out" | tail -5 | tr '\n' ' ')"
			suite_fail=$((suite_fail + 1))
		fi
	done
}

suite_end()
{
	echo "$suite_pass passed, $suite_fail failed, $suite_skip skipped"
	[ "$suite_fail" = 0 ]
}
