/*
 * measure: run a command and report what it cost, for run_hostile.py.
 *   measure REPORT SECONDS [--close-stdin] -- COMMAND ARGS...
 * The child inherits stdin/stdout/stderr (stdin closed with --close-stdin)
 * and is killed (SIGKILL) when it runs past SECONDS.
 * REPORT gets one line: "EXIT SECONDS MAXRSS_KIB CPU_SECONDS" (EXIT 128+N for a
 * signal N; CPU_SECONDS user + system, steadier than wall time on a shared machine).
 * The peak RSS is wait4()'s for that child alone, measured from a small
 * parent so that memory the parent had before exec() is not counted.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr, "usage: measure REPORT SECONDS [--close-stdin] -- COMMAND ARGS...\n");
		return 2;
	}
	const char *report = argv[1];
	double limit = atof(argv[2]);
	int i = 3, close_stdin = 0;
	if (strcmp(argv[i], "--close-stdin") == 0)
		close_stdin = 1, i++;
	if (strcmp(argv[i], "--") != 0 || i + 1 >= argc) {
		fprintf(stderr, "measure: expected -- COMMAND\n");
		return 2;
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid_t pid = fork();
	if (pid < 0) {
		perror("measure: fork");
		return 2;
	}
	if (pid == 0) {
		if (close_stdin)
			close(0);
		execv(argv[i + 1], argv + i + 1);
		perror("measure: exec");
		_exit(127);
	}
	int status;
	struct rusage ru;
	double secs;
	for (;;) {
		pid_t r = wait4(pid, &status, WNOHANG, &ru);
		if (r < 0) {
			perror("measure: wait4");
			return 2;
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
		if (r == pid)
			break;
		if (secs > limit)
			kill(pid, SIGKILL);
		usleep(2000);
	}
	int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	FILE *f = fopen(report, "w");
	if (!f) {
		perror(report);
		return 2;
	}
	double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
		     (double)ru.ru_stime.tv_usec / 1e6;
	fprintf(f, "%d %.3f %ld %.3f\n", code, secs, ru.ru_maxrss, cpu);
	fclose(f);
	return 0;
}
