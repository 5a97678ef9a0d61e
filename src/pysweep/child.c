/*
 * child: one bounded run of the user's python3 over an embedded script (see child.h). The script is
 * sent on stdin behind its length (BOOT reads it and runs it), then the request; stdin and stdout are
 * served together by poll(), so a large request and a large answer cannot block each other.
 */
#include "child.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sweeplint/arena.h"
#include "sweeplint/program.h"

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* What python3 -c runs: the script's length on the first line, the script, then the script reads the rest. */
static const char BOOT[] = "import sys;b=sys.stdin.buffer;n=int(b.readline());"
			   "exec(compile(b.read(n),'sweeplint-pysweep','exec'))";

static void child(int in_fd, int out_fd, const char *python)
{
	struct rlimit as = {SL_PROGRAM_MAX_AS, SL_PROGRAM_MAX_AS};
	struct rlimit cpu = {SL_PROGRAM_TIMEOUT_MS / 1000, SL_PROGRAM_TIMEOUT_MS / 1000 + 1};
	struct rlimit core = {0, 0};
	setrlimit(RLIMIT_AS, &as);
	setrlimit(RLIMIT_CPU, &cpu);
	setrlimit(RLIMIT_CORE, &core);
	int devnull = open("/dev/null", O_RDWR);
	if (devnull >= 0)
		dup2(devnull, 2);
	dup2(in_fd, 0);
	dup2(out_fd, 1);
	char *argv[] = {(char *)python, "-I", "-S", "-B", "-c", (char *)BOOT, NULL};
	execvp(python, argv);
	_exit(127);
}

char *sl_pychild_run(struct sl_arena *a, const char *python, const char *script, const char *request,
		     size_t request_len, size_t *len, const char **why)
{
	if (!python)
		python = "python3";
	int out[2], in[2];
	if (pipe2(out, O_CLOEXEC) != 0) {
		*why = sl_arena_printf(a, "cannot start %s: %s", python, strerror(errno));
		return NULL;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) != 0) {
		*why = sl_arena_printf(a, "cannot start %s: %s", python, strerror(errno));
		close(out[0]);
		close(out[1]);
		return NULL;
	}
	pid_t pid = fork();
	if (pid == 0) {
		if (chdir("/") != 0)
			_exit(126);
		child(in[0], out[1], python);
	}
	close(out[1]);
	close(in[0]);
	if (pid < 0) {
		close(out[0]);
		close(in[1]);
		*why = sl_arena_printf(a, "cannot start %s: %s", python, strerror(errno));
		return NULL;
	}
	/* stdin (a socket: a child that died is an error, never SIGPIPE): head, script, request, written as
	 * the child reads them */
	struct sl_buf buf;
	sl_buf_init(&buf, a);
	size_t slen = strlen(script);
	sl_buf_addf(&buf, "%zu\n", slen);
	sl_buf_add(&buf, script, slen);
	sl_buf_add(&buf, request, request_len);
	sl_buf_addc(&buf, '\n');
	size_t sent = 0;
	int in_fd = in[1];
	long long deadline = now_ms() + SL_PROGRAM_TIMEOUT_MS;
	bool timed_out = false, too_big = false;
	struct sl_buf outb;
	sl_buf_init(&outb, a);
	for (;;) {
		long long left = deadline - now_ms();
		if (left <= 0) {
			timed_out = true;
			break;
		}
		struct pollfd p[2] = {{.fd = out[0], .events = POLLIN}, {.fd = in_fd, .events = POLLOUT}};
		int r = poll(p, in_fd >= 0 ? 2 : 1, (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		if (r == 0) {
			timed_out = true;
			break;
		}
		if (in_fd >= 0 && (p[1].revents & (POLLOUT | POLLERR | POLLHUP))) {
			ssize_t n = send(in_fd, buf.buf + sent, buf.len - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
			if (n > 0)
				sent += (size_t)n;
			if ((n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) || sent == buf.len) {
				shutdown(in_fd, SHUT_WR);
				close(in_fd);
				in_fd = -1;
			}
		}
		if (p[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			char chunk[65536];
			ssize_t n = read(out[0], chunk, sizeof chunk);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			if (outb.len + (size_t)n > SL_PROGRAM_MAX_OUTPUT) {
				too_big = true;
				break;
			}
			sl_buf_add(&outb, chunk, (size_t)n);
		}
	}
	if (in_fd >= 0)
		close(in_fd);
	close(out[0]);
	if (timed_out || too_big)
		kill(pid, SIGKILL);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (timed_out) {
		*why = sl_arena_printf(a, "%s did not read it within %d s", python, SL_PROGRAM_TIMEOUT_MS / 1000);
		return NULL;
	}
	if (too_big) {
		*why = "the reader's output passed its bound";
		return NULL;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		*why = sl_arena_printf(a, "%s was not found: the sweeps defined in Python are not read (install python3)",
				       python);
		return NULL;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		*why = WIFSIGNALED(status)
			       ? sl_arena_printf(a, "%s stopped (signal %d: past its memory or CPU bound)", python,
						 WTERMSIG(status))
			       : sl_arena_printf(a, "%s failed (exit %d)", python, WEXITSTATUS(status));
		return NULL;
	}
	*len = outb.len;
	return outb.buf;
}
