#pragma once
/*
 * json_out: JSON text as jansson writes it, with the characters a terminal or a viewer must not
 * receive raw (DEL, C1 controls, bidi controls, U+2028/U+2029: sl_utf8_hidden, utf8.h) spelled as
 * \u escapes. The JSON value is the same (jansson already escapes C0); a `-f json` or `-f sarif`
 * printed on a terminal, or shown by a viewer, cannot be reordered or driven by a string from input.
 */
#include <jansson.h>
#include <stdio.h>

/* Write n bytes of JSON text to out so. Only whole characters may be cut between calls (jansson's
 * output is: its runs end at character boundaries). */
void sl_json_write(FILE *out, const char *s, size_t n);

/* json_dumpf through sl_json_write: 0, or -1 when jansson fails or out has an error. */
int sl_json_dumpf(const json_t *j, FILE *out, size_t flags);
