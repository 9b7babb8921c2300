#!/bin/bash
# 17-install.sh - make install/uninstall into a DESTDIR with the README's
# commands run through the installed programs (tests/install/readme_commands.sh,
# ~15 s), and the Debian packages (tests/install/deb_smoke.sh: make deb,
# install into the machine, smoke test, purge; ~2-4 min) when
# MEMTRACE_TEST_DEB=1 or dpkg-buildpackage and dh_dkms are installed.
cd "$(dirname "$0")/../.." || exit 1
tests="readme_commands"
if [ "${MEMTRACE_TEST_DEB:-auto}" = 1 ] ||
   { [ "${MEMTRACE_TEST_DEB:-auto}" = auto ] && command -v dpkg-buildpackage >/dev/null &&
     command -v dh_dkms >/dev/null && [ -e tests/install/deb_smoke.sh ]; }; then
	tests="$tests deb_smoke"
	nodeb=""
else
	nodeb=1
fi
. tests/suite-lib.sh
[ -z "$nodeb" ] || suite_skip deb deb_smoke "MEMTRACE_TEST_DEB=0 or debhelper/dh-dkms missing (tools/deps/install.txt)"
run_scripts tests/install 600 "" none $tests
suite_end
