/* crc32c.h - CRC32C (Castagnoli), the checksum of trace chunks. */
#ifndef MEMTRACE_TRACE_CRC32C_H
#define MEMTRACE_TRACE_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* crc32c(0, data, len) gives the standard CRC32C of data; pass the
 * previous result as crc to continue over more bytes. */
uint32_t crc32c(uint32_t crc, const void *data, size_t len);

#endif
