#pragma once
/*
 * utf8: decoding one character, and the one rule for what a terminal must never receive raw from
 * input (sl_term_escape_at). Every output that shows input text uses it: sl_term_safe (messages),
 * the CLI's escaping stderr stream (src/cli/term.c), the text and GitHub reports, the HTML report,
 * the JSON and SARIF writers (which spell such characters as JSON \u escapes), and the YAML writer
 * (which must quote characters YAML does not allow raw).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The length (1..4) of the well-formed UTF-8 sequence at s (n bytes available) and its code point
 * in *cp; 0 when the bytes there are not one (a stray continuation byte, an overlong form, a
 * surrogate, past U+10FFFF, or a sequence cut short by n): the caller takes one byte as invalid.
 */
size_t sl_utf8_decode(const char *s, size_t n, uint32_t *cp);

/*
 * True for the code points a terminal acts on or that change how the text around them reads:
 * C0 controls, DEL, C1 controls (U+0080..U+009F: some terminals obey U+009B as ESC [), the bidi
 * formatting characters (U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069: "Trojan Source",
 * CVE-2021-42574) and the line and paragraph separators U+2028, U+2029.
 */
bool sl_utf8_hidden(uint32_t cp);

/* SL_TERM_KEEP_NL: newline and tab pass (a stream of whole lines, such as stderr); else \n, \t. */
#define SL_TERM_KEEP_NL 1u

/*
 * One character of s (n bytes available) for a terminal: returns how many bytes it takes (at least
 * 1 when n > 0) and sets out to its escape ("\n", "\x1b", "\u202e", "\xff" for a byte of invalid
 * UTF-8), or to "" when it is shown as it is. out holds at least 11 bytes.
 */
size_t sl_term_escape_at(const char *s, size_t n, unsigned flags, char out[11]);
