/* utf8: one character's decoding, and which characters never reach a terminal raw (utf8.h). */
#include <stdio.h>

#include "sweeplint/utf8.h"

size_t sl_utf8_decode(const char *s, size_t n, uint32_t *cp)
{
	const unsigned char *p = (const unsigned char *)s;
	if (n == 0)
		return 0;
	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	}
	size_t len;
	uint32_t c, min;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2, c = p[0] & 0x1f, min = 0x80;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3, c = p[0] & 0x0f, min = 0x800;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4, c = p[0] & 0x07, min = 0x10000;
	else
		return 0;
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

bool sl_utf8_hidden(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x061c || cp == 0x200e || cp == 0x200f ||
	       (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

size_t sl_term_escape_at(const char *s, size_t n, unsigned flags, char out[11])
{
	out[0] = 0;
	if (n == 0)
		return 0;
	uint32_t cp;
	size_t len = sl_utf8_decode(s, n, &cp);
	if (len == 0) {
		snprintf(out, 11, "\\x%02x", (unsigned char)s[0]);
		return 1;
	}
	if (!sl_utf8_hidden(cp))
		return len;
	switch (cp) {
	case '\n':
		if (!(flags & SL_TERM_KEEP_NL))
			snprintf(out, 11, "\\n");
		break;
	case '\t':
		if (!(flags & SL_TERM_KEEP_NL))
			snprintf(out, 11, "\\t");
		break;
	case '\r':
		snprintf(out, 11, "\\r");
		break;
	default:
		snprintf(out, 11, cp < 0x80 ? "\\x%02x" : "\\u%04x", (unsigned)cp);
	}
	return len;
}
