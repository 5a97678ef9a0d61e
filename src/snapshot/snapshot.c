/*
 * snapshot: decoding the serialised patterns of the build-time snapshot
 * (see snapshot.h). The decoded codes belong to the arena they were decoded
 * into (one deferred free for the set).
 */
#define PCRE2_CODE_UNIT_WIDTH 8

#include "snapshot.h"

#include <pcre2.h>
#include <stdint.h>

#include "sweeplint/arena.h"

struct codes {
	pcre2_code **v;
	size_t n;
};

static void free_codes(void *p)
{
	struct codes *c = p;
	for (size_t i = 0; i < c->n; i++)
		pcre2_code_free(c->v[i]);
}

bool sl_snapshot_decode(struct sl_arena *a, const unsigned char *bytes, size_t len, size_t n, void **codes)
{
	if (n == 0)
		return true;
	/* the header: magic, version, configuration, count (pcre2_serialize.c) */
	if (!bytes || len < 4 * sizeof(uint32_t) || n > INT32_MAX)
		return false;
	if (pcre2_serialize_get_number_of_codes(bytes) != (int32_t)n)
		return false; /* another PCRE2 version or configuration, or a different count */
	struct codes *c = sl_arena_alloc(a, sizeof *c);
	c->v = sl_arena_array(a, n, sizeof *c->v);
	int32_t rc = pcre2_serialize_decode(c->v, (int32_t)n, bytes, NULL);
	if (rc == PCRE2_ERROR_NOMEMORY)
		sl_oom();
	if (rc != (int32_t)n)
		return false;
	c->n = n;
	sl_arena_defer(a, free_codes, c);
	for (size_t i = 0; i < n; i++)
		codes[i] = c->v[i];
	return true;
}
