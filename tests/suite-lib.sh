# suite-lib.sh - the loop every script-per-test suite in tests/suites.d
# shares: run each script with a time limit, print "ok NAME (T s)" or
# "FAIL NAME: last lines", and end with "N passed, N failed" (run-all.sh
# adds those up).  Source it from the repository root.
#
#   run_scripts DIR SECONDS TAG SHOW NAME...   DIR/NAME.sh for each NAME;
#       TAG is appended to each name (e.g. " (bpf)"); SHOW is what follows
#       an ok line: none, last (the script's last output line) or all
#       (its output joined by ';')
#   suite_end                                  the summary; exit status
suite_pass=0 suite_fail=0

run_scripts()
{
	local dir=$1 secs=$2 tag=$3 show=$4 t start out took extra
	shift 4
	for t in "$@"; do
		start=$(date +%s.%N)
		if out=$(timeout "$secs" bash "$dir/$t.sh" 2>&1); then
			took=$(echo "$(date +%s.%N) - $start" | bc)
			case $show in
			last) extra=" $(echo "$out" | tail -1)" ;;
			all) extra=": $(echo "$out" | tr '\n' ';' | sed 's/;$//')" ;;
			*) extra="" ;;
			esac
			printf 'ok   %s%s (%.1f s)%s\n' "$t" "$tag" "$took" "$extra"
			suite_pass=$((suite_pass + 1))
		else
			echo "FAIL $t$tag: $(echo "$out" | tail -5 | tr '\n' ' ')"
			suite_fail=$((suite_fail + 1))
		fi
	done
}

suite_end()
{
	echo "$suite_pass passed, $suite_fail failed"
	[ "$suite_fail" = 0 ]
}
