/*
 * data: the files under rules/ embedded in the binary at build time, so an
 * installed sweeplint needs no data directory. The bytes are static and
 * read-only.
 */
#ifndef SWEEPLINT_DATA_H
#define SWEEPLINT_DATA_H

#include <stddef.h>

struct sl_blob {
	const char *name;   /* file name under rules/, e.g. "models.yaml" */
	const char *bytes;  /* contents, NUL-terminated */
	size_t len;         /* bytes, excluding the NUL */
};

/* The embedded file name, or NULL. */
const struct sl_blob *sl_data_get(const char *name);

/* All embedded files; *n receives the count. */
const struct sl_blob *sl_data_all(size_t *n);

#endif
