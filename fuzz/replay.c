/*
 * replay: a main() for a fuzz target without libFuzzer (any compiler). It
 * runs LLVMFuzzerTestOneInput once on every file named on the command line,
 * descending into directories, so that the seeds and every input a fuzzer
 * ever crashed on run in the ordinary sanitizer test run. Prints how many
 * inputs it ran; a crash or sanitizer report fails the test. Ownership: each
 * file's bytes are malloc'd, passed, and freed.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_path(const char *path, size_t *count)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		perror(path);
		return 1;
	}
	if (S_ISDIR(st.st_mode)) {
		struct dirent **names;
		int n = scandir(path, &names, NULL, alphasort);
		if (n < 0) {
			perror(path);
			return 1;
		}
		int rc = 0;
		for (int i = 0; i < n; i++) {
			if (names[i]->d_name[0] != '.') {
				size_t len = strlen(path) + strlen(names[i]->d_name) + 2;
				char *child = malloc(len);
				if (!child)
					abort();
				snprintf(child, len, "%s/%s", path, names[i]->d_name);
				rc |= run_path(child, count);
				free(child);
			}
			free(names[i]);
		}
		free(names);
		return rc;
	}
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return 1;
	}
	size_t cap = (size_t)st.st_size + 1, len = 0;
	uint8_t *buf = malloc(cap);
	if (!buf)
		abort();
	len = fread(buf, 1, cap, f);
	fclose(f);
	/* an exact-size copy, so that a read past the end is a sanitizer report */
	uint8_t *exact = malloc(len ? len : 1);
	if (!exact)
		abort();
	memcpy(exact, buf, len);
	free(buf);
	LLVMFuzzerTestOneInput(exact, len);
	free(exact);
	(*count)++;
	return 0;
}

int main(int argc, char **argv)
{
	size_t count = 0;
	int rc = 0;
	for (int i = 1; i < argc; i++)
		rc |= run_path(argv[i], &count);
	printf("%zu inputs replayed\n", count);
	return rc;
}
