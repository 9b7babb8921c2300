# mk/deb.mk - Debian packages (debian/, docs/install.md).
#
#   make deb     build/deb/memtrace_VERSION_ARCH.deb and
#                build/deb/memtrace-dkms_VERSION_all.deb, then lintian
#
# The package is built from a copy of the files git knows (tracked and
# untracked, not ignored) in build/deb/memtrace-VERSION/, so the tree's
# build/ is not touched and the .debs land in build/deb/.
DEB_DIR = $(BUILD)/deb
DEB_SRC = $(DEB_DIR)/memtrace-$(VERSION)
LINTIAN_TAGS = debian/lintian-expected.txt

.PHONY: deb
deb:
	rm -rf $(DEB_DIR) && mkdir -p $(DEB_SRC)
	git ls-files -z -c -o --exclude-standard | grep -zv '^debian/lintian-expected' | \
		xargs -0 tar -c --no-recursion | tar -x -C $(DEB_SRC)
	cd $(DEB_SRC) && dpkg-buildpackage -us -uc -b > ../build.log 2>&1 || \
		{ tail -30 ../build.log; exit 1; }
	lintian --no-tag-display-limit --info $(DEB_DIR)/memtrace_*.changes \
		> $(DEB_DIR)/lintian.txt 2>&1 || true
	@grep -E '^[EWIP]: ' $(DEB_DIR)/lintian.txt | sed -E 's/^([EWIP]): ([^ ]+)( \(binary\))?: ([^ ]+).*/\1 \2 \4/' | \
		sort -u > $(DEB_DIR)/lintian-tags.txt
	@ls $(DEB_DIR)/*.deb
	@if ! diff -u $(LINTIAN_TAGS) $(DEB_DIR)/lintian-tags.txt; then \
		echo "deb: lintian tags differ from $(LINTIAN_TAGS) (explained in docs/install.md); see $(DEB_DIR)/lintian.txt"; \
		exit 1; fi
