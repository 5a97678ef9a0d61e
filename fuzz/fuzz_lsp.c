/*
 * fuzz_lsp: arbitrary bytes as the language server's input stream
 * (`sweeplint lsp`, src/lsp/). Two forms, so that the fuzzer explores both
 * the framing and what the messages say:
 *   - an input that starts with "RAW" is the stream itself, headers and all;
 *   - any other input is a list of message bodies separated by 0xFF bytes
 *     (never in UTF-8 JSON), each framed here with its right Content-Length.
 * The server runs over an anonymous memory file as its standard input until
 * the input ends or it gets `exit`, writing to another. What must hold
 * whatever the input: no crash, no sanitizer report, and every byte the
 * server writes is a well-formed frame — "Content-Length: N\r\n\r\n" and N
 * bytes of JSON that jansson reads back (an editor drops the connection on
 * anything else). Ownership: one run (arena) per input, freed before
 * returning; both memory files closed.
 */
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sweeplint/arena.h"
#include "sweeplint/lsp.h"
#include "sweeplint/run.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* src/cli/opts.c: how a project config's host_memory is read (the CLI passes the same to the server). */
int sl_opts_size(const char *s, uint64_t *out);

static void put(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n) {
		ssize_t w = write(fd, c, n);
		if (w <= 0)
			abort();
		c += w;
		n -= (size_t)w;
	}
}

/* Every byte of out[0..n) is a frame with a JSON body; abort() otherwise. */
static void check_frames(const char *out, size_t n)
{
	static const char head[] = "Content-Length: ";
	size_t at = 0;
	while (at < n) {
		if (n - at < sizeof head - 1 || memcmp(out + at, head, sizeof head - 1) != 0)
			abort();
		at += sizeof head - 1;
		size_t len = 0, digits = 0;
		while (at < n && out[at] >= '0' && out[at] <= '9' && digits < 12) {
			len = len * 10 + (size_t)(out[at++] - '0');
			digits++;
		}
		if (!digits || n - at < 4 || memcmp(out + at, "\r\n\r\n", 4) != 0)
			abort();
		at += 4;
		if (n - at < len)
			abort();
		json_error_t err;
		json_t *j = json_loadb(out + at, len, 0, &err);
		if (!j || !json_is_object(j))
			abort();
		json_decref(j);
		at += len;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int in = memfd_create("lsp-in", MFD_CLOEXEC), out = memfd_create("lsp-out", MFD_CLOEXEC);
	if (in < 0 || out < 0)
		abort();
	if (size >= 3 && memcmp(data, "RAW", 3) == 0) {
		put(in, data + 3, size - 3);
	} else {
		for (size_t start = 0; start <= size;) {
			const uint8_t *sep = start < size ? memchr(data + start, 0xFF, size - start) : NULL;
			size_t end = sep ? (size_t)(sep - data) : size;
			char h[48];
			int k = snprintf(h, sizeof h, "Content-Length: %zu\r\n\r\n", end - start);
			put(in, h, (size_t)k);
			put(in, data + start, end - start);
			start = end + 1;
		}
	}
	if (lseek(in, 0, SEEK_SET) != 0)
		abort();

	struct sl_run *base = sl_run_new();
	const char *why = NULL;
	(void)sl_run_prepare(base, &why); /* the defaults: no GPU, no --set to refuse */
	struct sl_lsp_options o = {.base = base, .parse_size = sl_opts_size, .version = "fuzz", .log = NULL};
	(void)sl_lsp_serve(in, out, &o);
	sl_run_free(base);

	off_t n = lseek(out, 0, SEEK_END);
	if (n < 0)
		abort();
	char *bytes = n ? mmap(NULL, (size_t)n, PROT_READ, MAP_PRIVATE, out, 0) : NULL;
	if (n && bytes == MAP_FAILED)
		abort();
	check_frames(bytes, (size_t)n);
	if (n)
		munmap(bytes, (size_t)n);
	close(in);
	close(out);
	return 0;
}
