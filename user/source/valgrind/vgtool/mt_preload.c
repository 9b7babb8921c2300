/* mt_preload.c - vgpreload_memtrace-amd64-linux.so is Valgrind's malloc
 * replacement library (libreplacemalloc_toolpreload) whole, as massif's and
 * DHAT's preloads are; the replacement functions hand each call to the tool
 * (mt_main.c).  This unit adds only a version string, compiled with -g like
 * the tool, so that the library carries debug information of its own. */
const char memtrace_vgpreload_version[] = "memtrace vgpreload 1";
