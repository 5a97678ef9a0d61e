/* json_out: jansson's JSON text with hidden characters as \u escapes (json_out.h). */
#include "sweeplint/json_out.h"

#include "sweeplint/utf8.h"

void sl_json_write(FILE *out, const char *s, size_t n)
{
	size_t run = 0, i = 0;
	while (i < n) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x7f) {
			i++;
			continue;
		}
		uint32_t cp;
		size_t k = sl_utf8_decode(s + i, n - i, &cp);
		if (k == 0) {
			i++; /* not UTF-8 (jansson writes none): as it is */
			continue;
		}
		if (sl_utf8_hidden(cp)) {
			fwrite(s + run, 1, i - run, out);
			fprintf(out, "\\u%04x", (unsigned)cp);
			run = i + k;
		}
		i += k;
	}
	fwrite(s + run, 1, n - run, out);
}

static int dump_cb(const char *buffer, size_t size, void *data)
{
	FILE *out = data;
	sl_json_write(out, buffer, size);
	return ferror(out) ? -1 : 0;
}

int sl_json_dumpf(const json_t *j, FILE *out, size_t flags)
{
	return json_dump_callback(j, dump_cb, out, flags) == 0 && !ferror(out) ? 0 : -1;
}
