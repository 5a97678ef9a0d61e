/*
 * uri: file: URIs <-> paths (uri.h). "file:///p" and "file://localhost/p"
 * name the local path /p; other authorities and schemes are no local file.
 * Percent-escapes are decoded (case-insensitive hex); encoding escapes every
 * byte outside RFC 3986's unreserved set and '/'.
 */
#include "uri.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "sweeplint/arena.h"

static int hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

char *sl_lsp_uri_path(const char *uri)
{
	if (strncasecmp(uri, "file://", 7) != 0)
		return NULL;
	const char *p = uri + 7;
	if (strncasecmp(p, "localhost/", 10) == 0)
		p += 9;
	if (*p != '/')
		return NULL;
	size_t n = strcspn(p, "?#");
	char *out = malloc(n + 1);
	if (!out)
		sl_oom();
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (p[i] == '%' && i + 2 < n + 1 && hex(p[i + 1]) >= 0 && hex(p[i + 2]) >= 0) {
			char c = (char)(hex(p[i + 1]) * 16 + hex(p[i + 2]));
			if (c == '\0') {
				free(out);
				return NULL;
			}
			out[k++] = c;
			i += 2;
		} else
			out[k++] = p[i];
	}
	out[k] = '\0';
	return out;
}

char *sl_lsp_path_uri(const char *path)
{
	char *cwd = NULL;
	if (path[0] != '/')
		cwd = getcwd(NULL, 0);
	size_t n = strlen(path) + (cwd ? strlen(cwd) + 1 : 0);
	char *out = malloc(7 + 3 * n + 1);
	if (!out)
		sl_oom();
	size_t k = 0;
	memcpy(out, "file://", 7);
	k = 7;
	static const char digits[] = "0123456789ABCDEF";
	for (int part = 0; part < 2; part++) {
		const char *s = part == 0 ? cwd : path;
		if (!s)
			continue;
		if (part == 1 && cwd)
			out[k++] = '/';
		for (const unsigned char *q = (const unsigned char *)s; *q; q++) {
			unsigned char c = *q;
			if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
			    c == '.' || c == '_' || c == '~' || c == '/')
				out[k++] = (char)c;
			else {
				out[k++] = '%';
				out[k++] = digits[c >> 4];
				out[k++] = digits[c & 15];
			}
		}
	}
	out[k] = '\0';
	free(cwd);
	return out;
}
