#ifndef SWEEPLINT_JSON_BOUND_H
#define SWEEPLINT_JSON_BOUND_H
/*
 * JSON parsed with a bound on its size in values, checked before jansson builds anything: jansson
 * spends ~40 bytes per value, so a 16 MB array of 8 million zeros took 343 MB. The count is a scan
 * of the bytes (1 + commas + colons + opening brackets outside strings: an upper bound on the values
 * that is exact but for empty containers), the same bound as the YAML loader's nodes.
 */
#include <jansson.h>
#include <stddef.h>

#include "sweeplint/ydoc.h"

struct sl_arena;

#define SL_JSON_MAX_VALUES SL_YDOC_MAX_NODES

/*
 * The byte offset where the bytes pass max_values values, or len when they do not. Strings
 * (with their escapes) are skipped; invalid JSON is counted the same way and left to the parser.
 */
size_t sl_json_values_past(const char *bytes, size_t len, size_t max_values);

/*
 * json_loadb(bytes, len, flags, err) when the bytes hold at most max_values values; otherwise NULL
 * with err's text "more than N values in the document" and its line, column (characters, 1-based,
 * as jansson counts them) and position at the value that passed the bound.
 */
json_t *sl_json_loadb_bounded(const char *bytes, size_t len, size_t flags, size_t max_values, json_error_t *err);

/*
 * jansson's error text without the input it quotes: "'[' or '{' expected near 'AKIA...'" is
 * "'[' or '{' expected". A message about a file names the place (line:col), never the file's bytes:
 * a path that names a credential file must not print its first token.
 */
const char *sl_json_error_what(struct sl_arena *a, const json_error_t *err);

#endif
