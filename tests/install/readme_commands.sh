#!/bin/bash
# readme_commands.sh - `make install` into a DESTDIR, then the README's "Use"
# commands run from a scratch directory through the installed programs alone
# (PATH = DESTDIR's bin, nothing from the source tree).  The commands are
# taken from README.md itself; the only edits: `-d 30` becomes `-d 2`,
# compare's before/after are the q and db recordings made before it, and
# the -G line (needs PostgreSQL's systemd unit) is left out.  `mydb` is a
# copy of build/workloads/pageramp running meanwhile, `./query` a script
# that runs it.  Also: the man pages render without a warning, `man` and
# pkg-config find what was installed, and `make uninstall` leaves nothing.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d /tmp/memtrace-install.XXXXXX)
mydb_pid=
cleanup() { [ -n "$mydb_pid" ] && kill "$mydb_pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
die() { echo "FAIL: $*" >&2; exit 1; }

root=$tmp/root prefix=/usr/local
make -s -C "$top" install DESTDIR="$root" PREFIX=$prefix >"$tmp/install.log" 2>&1 ||
	die "make install: $(tail -3 "$tmp/install.log")"
bin=$root$prefix/bin
for f in bin/memtracectl bin/memtrace-analyze lib/libmemtrace.so.1 lib/pkgconfig/memtrace.pc \
	 include/memtrace/memtrace.h share/man/man1/memtracectl.1 share/man/man1/memtrace-analyze.1 \
	 share/bash-completion/completions/memtracectl share/doc/memtrace/README.md \
	 lib/systemd/system/memtrace-record@.service share/doc/memtrace/examples/record-example.conf; do
	[ -e "$root$prefix/$f" ] || die "not installed: $prefix/$f"
done
# the unit runs the memtracectl installed with it
grep -q "^ExecStart=$prefix/bin/memtracectl record --pidfile " \
	"$root$prefix/lib/systemd/system/memtrace-record@.service" ||
	die "memtrace-record@.service: ExecStart is not $prefix/bin/memtracectl record --pidfile"
for m in memtracectl memtrace-analyze; do
	w=$(groff -ww -man -z "$root$prefix/share/man/man1/$m.1" 2>&1) || die "groff $m.1"
	[ -z "$w" ] || die "groff warns on $m.1: $w"
	MANPATH=$root$prefix/share/man man -w "$m" >/dev/null 2>&1 || die "man -w $m"
done
# libmemtrace through pkg-config: a program reading a trace links and runs
pc=$(PKG_CONFIG_PATH=$root$prefix/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$root pkg-config --cflags --libs memtrace)
printf '#include <memtrace/memtrace.h>\nint main(void) { return memtrace_trace_open == 0; }\n' >"$tmp/t.c"
cc -o "$tmp/t" "$tmp/t.c" $pc -Wl,-rpath,"$root$prefix/lib" || die "cc with pkg-config ($pc)"
"$tmp/t" || die "program linked through pkg-config"
# bash completion: verbs, and a verb's options read from the installed `VERB --help`
comp() {	# WORDS... -> the completions of the last word
	PATH="$root$prefix/bin:$PATH" bash -c '. "$0"; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1));
		_memtrace; echo "${COMPREPLY[*]}"' \
		"$root$prefix/share/bash-completion/completions/memtracectl" "$@"
}
[ "$(comp memtracectl re)" = "record report" ] || die "completion of 're': '$(comp memtracectl re)'"
comp memtracectl import --fo | grep -qx -- '--force --format' || die "completion of 'import --fo': '$(comp memtracectl import --fo)'"
[ "$(comp memtracectl import --format p)" = perf ] || die "completion of '--format p'"
[ "$(comp memtrace-analyze he)" = heatmap ] || die "completion of 'memtrace-analyze he'"

# The README's commands, from another directory, with the installed programs
work=$tmp/work && mkdir -p "$work" && cd "$work"
cp "$top/build/workloads/pageramp" mydb
printf '#!/bin/sh\nexec %s/mydb -n 64 -c 4\n' "$work" >query && chmod +x query
./mydb -n 256 -c 100000 -g 20 >/dev/null &
mydb_pid=$!
awk '/^## Use/ {u = 1} u && /^```/ {if (f++) exit; next} u && f' "$top/README.md" |
	grep '^memt' | grep -v ' -G ' | sed 's/#.*//; s/ -d 30 / -d 2 /; s/ before\.mtrace after\.mtrace / q.mtrace db.mtrace /' >commands
[ "$(wc -l <commands)" -ge 7 ] || die "README's Use section: $(wc -l <commands) commands found"
env -i HOME="$work" PATH="$bin:/usr/bin:/bin" bash -c 'command -v memtracectl' | grep -q "^$bin/" ||
	die "memtracectl is not the installed one"
while read -r cmd; do
	env -i HOME="$work" PATH="$bin:/usr/bin:/bin" MPLBACKEND=Agg bash -c "$cmd" >out 2>err ||
		die "'$cmd' exited $?: $(tail -2 err)"
	echo "ran: $cmd"
done <commands
for f in db.mtrace q.mtrace wss.csv db-report/index.html db-report/heatmap.png; do
	[ -s "$f" ] || die "README's commands did not write $f"
done
# memtrace-analyze used the installed library, not the source tree's
env -i PATH="$bin:/usr/bin:/bin" python3 -c "
import sys; sys.path.insert(0, '$(echo $root$prefix/lib/python3*/dist-packages)')
from memtrace_analyze import lib; print(lib.library_path())" | grep -q "^$root$prefix/lib/libmemtrace.so.1$" ||
	die "installed memtrace_analyze does not load the installed libmemtrace.so.1"

make -s -C "$top" uninstall DESTDIR="$root" PREFIX=$prefix >/dev/null 2>&1 || die "make uninstall"
left=$(find "$root" -type f -o -type l)
[ -z "$left" ] || die "make uninstall left: $left"
echo "install, README commands, uninstall: ok"
