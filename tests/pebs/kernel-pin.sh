# kernel-pin.sh - the kernel source the PEBS hook patch is made against.
# Sourced by tests/pebs/*.sh and mk/pebs.mk (make reads it as variables too:
# keep it to plain NAME=value lines).
# Debian's tarball already has the Debian patches applied; the patch is made
# against exactly this tree.
PIN_SERIES=6.12
PIN_DEB_VERSION=6.12.117-1~deb12u1
PIN_UPSTREAM=6.12.117
PIN_TARBALL_SHA256=585a4a074597aefa2b1a68ada83a3184ba351c127544dea80618bbcceaa3961f
