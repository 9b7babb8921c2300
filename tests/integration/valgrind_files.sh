#!/bin/bash
# valgrind_files.sh - `record --backend valgrind` and `import` never replace
# an existing output file unless something was recorded: a command that
# cannot be executed (or that valgrind cannot start), an empty or invalid
# import input leave FILE byte-identical, no FILE.old and no temporary file,
# with one "memtracectl: " error line and a non-zero exit status.  A run that
# records renames FILE to FILE.old (docs/memtracectl.md, "Output file").
# Run by tests/suites.d/30-valgrind.sh, or alone.
set -u
VG_STANDALONE=0
if [ -z "${VG_COMMON_LOADED:-}" ]; then
	VG_STANDALONE=1
	. "$(dirname "${BASH_SOURCE[0]}")/valgrind_common.sh"
fi

# file_kept NAME FILE RC WANT_RC ERRFILE WANT_LINE: FILE is the old bytes,
# nothing else was made, the exit status and the last stderr line are exact.
file_kept() {
	local name=$1 f=$2 rc=$3 want_rc=$4 err=$5 want=$6 left
	left=$(find "$(dirname "$f")" -maxdepth 1 -name ".$(basename "$f").*" | head -1)
	if [ "$rc" != "$want_rc" ]; then
		fail "$name" "exit $rc, not $want_rc: $(tr '\n' '|' <"$err" | head -c 300)"
	elif [ "$(grep -c '^memtracectl: ' "$err")" != 1 ] || [ "$(tail -1 "$err")" != "$want" ]; then
		fail "$name" "stderr: $(tr '\n' '|' <"$err" | head -c 300), want: $want"
	elif ! cmp -s "$VG_TMP/files/old.bin" "$f"; then
		fail "$name" "$f was changed"
	elif [ -e "$f.old" ] || [ -n "$left" ]; then
		fail "$name" "left behind: $(ls -d "$f.old" $left 2>/dev/null | tr '\n' ' ')"
	else
		ok "$name"
	fi
}

vg_files_tests() {
	vg_prereq files_prerequisites || return 0
	local d="$VG_TMP/files" f rc
	mkdir -p "$d"
	f="$d/t.mtrace"
	head -c 3000 /dev/urandom >"$d/old.bin"

	# import: empty, not lackey, no trace lines, missing
	: >"$d/empty.log"
	printf 'hello\nthis is not\na lackey log\n' >"$d/text.log"
	printf '==4242== Lackey, an example Valgrind tool\n==4242== Command: ./x\n' >"$d/msgs.log"
	cp "$d/old.bin" "$f"
	"$MT" import -o "$f" "$d/empty.log" 2>"$d/e"
	file_kept import_empty_keeps_file "$f" $? 1 "$d/e" \
		"memtracectl: $d/empty.log: empty input, not a lackey log"
	"$MT" import -o "$f" "$d/text.log" 2>"$d/e"
	file_kept import_invalid_keeps_file "$f" $? 1 "$d/e" \
		"memtracectl: $d/text.log: not a lackey log (expected the output of valgrind --tool=lackey --trace-mem=yes)"
	"$MT" import -o "$f" "$d/msgs.log" 2>"$d/e"
	file_kept import_no_trace_lines_keeps_file "$f" $? 1 "$d/e" \
		"memtracectl: $d/msgs.log: no trace lines (was valgrind run with --trace-mem=yes?)"
	"$MT" import --force -o "$f" "$d/msgs.log" 2>"$d/e"
	file_kept import_force_no_trace_lines_keeps_file "$f" $? 1 "$d/e" \
		"memtracectl: $d/msgs.log: no trace lines (was valgrind run with --trace-mem=yes?)"
	"$MT" import -o "$f" "$d/nosuch.log" 2>"$d/e"
	file_kept import_missing_keeps_file "$f" $? 1 "$d/e" \
		"memtracectl: $d/nosuch.log: No such file or directory"

	# record --backend valgrind: commands that cannot run
	printf '#!/nonexistent/interp\necho hi\n' >"$d/bad.sh"
	chmod +x "$d/bad.sh"
	printf 'echo hi\n' >"$d/noexec.sh"
	head -c 100 "$PAGERAMP" >"$d/cut.elf"	# valgrind itself refuses it
	chmod +x "$d/cut.elf"
	"$MT" record --backend valgrind -o "$f" -- "$d/nosuch" >/dev/null 2>"$d/e"
	file_kept record_vg_missing_keeps_file "$f" $? 127 "$d/e" \
		"memtracectl: cannot execute $d/nosuch: No such file or directory"
	"$MT" record --backend valgrind -o "$f" -- nosuch-command-xyz >/dev/null 2>"$d/e"
	file_kept record_vg_not_in_path_keeps_file "$f" $? 127 "$d/e" \
		"memtracectl: cannot execute nosuch-command-xyz: command not found"
	"$MT" record --backend valgrind -o "$f" -- "$d/noexec.sh" >/dev/null 2>"$d/e"
	file_kept record_vg_not_executable_keeps_file "$f" $? 126 "$d/e" \
		"memtracectl: cannot execute $d/noexec.sh: Permission denied"
	"$MT" record --backend valgrind -o "$f" -- "$d/bad.sh" >/dev/null 2>"$d/e"
	file_kept record_vg_bad_interpreter_keeps_file "$f" $? 127 "$d/e" \
		"memtracectl: cannot execute $d/bad.sh: bad interpreter /nonexistent/interp: No such file or directory"
	timeout 60 "$MT" record --backend valgrind -o "$f" -- "$d/cut.elf" >/dev/null 2>"$d/e"
	file_kept record_vg_refused_keeps_file "$f" $? 126 "$d/e" \
		"memtracectl: valgrind produced no trace (exit status 126)"

	# something recorded: FILE becomes FILE.old, byte for byte
	timeout 120 "$MT" record --backend valgrind -o "$f" -- /bin/true >/dev/null 2>"$d/e"
	rc=$?
	if [ $rc = 0 ] && cmp -s "$d/old.bin" "$f.old" && [ "$(meta "$f" backend)" = valgrind ]; then
		ok record_vg_renames_old
	else
		fail record_vg_renames_old "exit $rc, $(tr '\n' '|' <"$d/e" | head -c 300)"
	fi
	rm -f "$f.old"
	cp "$d/old.bin" "$f"
	printf 'I  04001d80,3\n L 7ff000a58,8\n' >"$d/one.log"
	"$MT" import -o "$f" "$d/one.log" 2>"$d/e"
	rc=$?
	if [ $rc = 0 ] && cmp -s "$d/old.bin" "$f.old" && [ "$(meta "$f" samples)" = 1 ]; then
		ok import_renames_old
	else
		fail import_renames_old "exit $rc, $(tr '\n' '|' <"$d/e" | head -c 300)"
	fi
}

vg_files_tests
if [ "$VG_STANDALONE" = 1 ]; then
	vg_summary
fi
