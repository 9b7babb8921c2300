/* agg.c - AGG chunk payloads (trace/agg.h). */
#include "trace/agg.h"

int trace_agg_parse(const unsigned char *p, size_t len, struct trace_agg *a)
{
	if (len < AGG_HDR_SIZE)
		return -1;
	a->interval = get_le64(p);
	a->time = get_le64(p + 8);
	a->samples = get_le64(p + 16);
	a->full = get_le64(p + 24);
	a->rows = get_le64(p + 32);
	a->shift = get_le32(p + 40);
	a->row = p + AGG_HDR_SIZE;
	if (!a->interval || a->shift < 6 || a->shift > 21 ||
	    a->rows > (len - AGG_HDR_SIZE) / AGG_ROW_SIZE ||
	    AGG_HDR_SIZE + a->rows * AGG_ROW_SIZE != len)
		return -1;
	return 0;
}
