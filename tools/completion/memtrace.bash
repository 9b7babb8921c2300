# bash completion for memtracectl and memtrace-analyze (make install puts it
# in share/bash-completion/completions).  Verbs are listed here; a verb's
# options are read from `PROG VERB --help`, so they never go stale.

_memtrace_opts()
{
	"$1" "$2" --help 2>/dev/null | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u
}

_memtrace()
{
	local cur prev prog verbs verb i
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	prog=${COMP_WORDS[0]}
	case ${prog##*/} in
	memtracectl) verbs="record report import export dump status" ;;
	*) verbs="report heatmap wss hot regions damon compare info" ;;
	esac
	verb=
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-*) ;;
		*) verb=${COMP_WORDS[i]}; break ;;
		esac
	done
	if [ -z "$verb" ]; then
		COMPREPLY=($(compgen -W "$verbs --help --version" -- "$cur"))
		return
	fi
	case $prev in
	-p|--pid)
		COMPREPLY=($(compgen -W "$(ps -e -o pid= 2>/dev/null)" -- "$cur")); return ;;
	--backend)
		COMPREPLY=($(compgen -W "auto module bpf perf valgrind damon" -- "$cur")); return ;;
	-f|--format)
		if [ "$verb" = export ]; then
			COMPREPLY=($(compgen -W "pprof" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "lackey perf" -- "$cur"))
		fi
		return ;;
	--by)
		COMPREPLY=($(compgen -W "code data site span" -- "$cur")); return ;;
	-e|--event)
		COMPREPLY=($(compgen -W "auto loads stores llc-miss-loads load-latency ibs-op page-faults hint-faults damon" -- "$cur")); return ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_memtrace_opts "$prog" "$verb")" -- "$cur"))
		return
	fi
	case $verb in
	record) COMPREPLY=($(compgen -c -- "$cur")) ;;
	*) COMPREPLY=($(compgen -f -- "$cur")) ;;
	esac
}
complete -o filenames -o bashdefault -F _memtrace memtracectl memtrace-analyze
