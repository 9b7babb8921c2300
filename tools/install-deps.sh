#!/bin/sh
# Installs the Debian packages listed in tools/deps/*.txt that are missing.
# Idempotent and quiet; needs root only when something is missing.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
want=$(cat "$here"/deps/*.txt | sed 's/#.*//' | tr -s ' \t' '\n' | grep -v '^$' | sort -u)
missing=""
for p in $want; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$st" in *" installed") ;; *) missing="$missing $p" ;; esac
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "install-deps: missing Debian packages:$missing (run as root to install)" >&2
	exit 1
fi
echo "install-deps: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y -qq --no-install-recommends $missing >/dev/null 2>&1; then
	apt-get update -qq >/dev/null
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
