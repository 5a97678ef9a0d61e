/* json_bound: JSON refused by its count of values before jansson parses it (sweeplint/json_bound.h). */
#include "sweeplint/json_bound.h"

#include <stdio.h>
#include <string.h>

#include "sweeplint/arena.h"

size_t sl_json_values_past(const char *bytes, size_t len, size_t max_values)
{
	size_t values = 1;
	for (size_t i = 0; i < len; i++) {
		char c = bytes[i];
		if (c == '"') {
			for (i++; i < len && bytes[i] != '"'; i++)
				if (bytes[i] == '\\')
					i++;
		} else if (c == ',' || c == ':' || c == '[' || c == '{') {
			if (++values > max_values)
				return i;
		}
	}
	return len;
}

json_t *sl_json_loadb_bounded(const char *bytes, size_t len, size_t flags, size_t max_values, json_error_t *err)
{
	size_t at = sl_json_values_past(bytes, len, max_values);
	if (at == len)
		return json_loadb(bytes, len, flags, err);
	memset(err, 0, sizeof *err);
	int line = 1, column = 0;
	for (size_t i = 0; i <= at; i++) {
		if (bytes[i] == '\n') {
			line++;
			column = 0;
		} else if (((unsigned char)bytes[i] & 0xC0) != 0x80) {
			column++;
		}
	}
	err->line = line;
	err->column = column;
	err->position = (int)(at < (size_t)0x7fffffff ? at : 0x7fffffff);
	snprintf(err->text, sizeof err->text, "more than %zu values in the document", max_values);
	return NULL;
}

const char *sl_json_error_what(struct sl_arena *a, const json_error_t *err)
{
	/* jansson appends " near '<up to 20 bytes of the input>'" or " near end of file" to its message */
	const char *near = strstr(err->text, " near '");
	const char *eof = strstr(err->text, " near end of file");
	const char *cut = near && (!eof || near < eof) ? near : eof;
	size_t n = cut ? (size_t)(cut - err->text) : strnlen(err->text, sizeof err->text);
	return sl_arena_strndup(a, err->text, n);
}
