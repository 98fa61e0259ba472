// SPDX-License-Identifier: LGPL-2.1-or-later
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

/* Write end of the pipe carrying the reason of a failure or skip. */
static int reason_fd = -1;

static void __attribute__((noreturn)) end_case(int status, const char *fmt, va_list ap)
{
	char msg[512];
	int len = vsnprintf(msg, sizeof(msg), fmt, ap);

	if (len > (int) sizeof(msg) - 1)
		len = sizeof(msg) - 1;
	/* Outside a case (a helper process of one), the reason goes to stderr. */
	if (reason_fd < 0 && len > 0 && len < (int) sizeof(msg) - 1)
		msg[len++] = '\n';
	if (len > 0 && write(reason_fd >= 0 ? reason_fd : STDERR_FILENO, msg, len) < 0)
		perror("harness: write reason");
	_exit(status);
}

void test_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	end_case(TEST_EXIT_FAIL, fmt, ap);
}

void test_skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	end_case(TEST_EXIT_SKIP, fmt, ap);
}

void sleep_ms(unsigned int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Read the reason the child sent, until it closes the pipe. */
static void read_reason(int fd, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;

	while (len < size - 1 && (n = read(fd, buf + len, size - 1 - len)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		len += n;
	}
	buf[len] = '\0';
}

/* The case being run, whose process group is also its id; 0 between cases. */
static volatile sig_atomic_t running_case;

/*
 * The harness killed (by a script's timeout, or ^C): take the running
 * case's process group along, which is not the harness's own group.
 */
static void kill_running_case(int sig)
{
	if (running_case)
		kill(-running_case, SIGKILL);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void kill_case_group(pid_t pid)
{
	if (kill(-pid, SIGKILL) && errno != ESRCH) {
		perror("harness: kill");
		exit(2);
	}
}

/*
 * Wait for case @pid for at most @timeout_s seconds, then kill its
 * process group: the case itself if it timed out, and any process it
 * left behind, which would otherwise keep the reason pipe open and
 * read_reason() waiting. The case is reaped only after that, so that
 * its pid, the group's id, cannot have been reused by then. Returns its
 * wait status, or -1 when it timed out.
 */
static int wait_case(pid_t pid, unsigned int timeout_s)
{
	unsigned long long deadline = now_ns() + timeout_s * 1000000000ULL;
	bool timed_out = false;
	siginfo_t info;
	int status;

	for (;;) {
		info.si_pid = 0;
		if (waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT) && errno != EINTR) {
			perror("harness: waitid");
			exit(2);
		}
		if (info.si_pid == pid)
			break;
		if (now_ns() > deadline) {
			timed_out = true;
			break;
		}
		sleep_ms(2);
	}
	kill_case_group(pid);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			perror("harness: waitpid");
			exit(2);
		}
	}
	return timed_out ? -1 : status;
}

/* $TEST_TIMEOUT_SCALE, a positive integer, or 1 when unset. */
static unsigned int timeout_scale(void)
{
	const char *env = getenv("TEST_TIMEOUT_SCALE");
	unsigned long scale;
	char *end;

	if (!env)
		return 1;
	errno = 0;
	scale = strtoul(env, &end, 10);
	if (errno || end == env || *end || !scale || scale > 1000) {
		fprintf(stderr, "harness: TEST_TIMEOUT_SCALE=%s: expected an integer from 1 to 1000\n",
			env);
		exit(2);
	}
	return scale;
}

static int run_case(const char *prefix, const struct test_case *tc, unsigned int scale)
{
	unsigned int timeout_s = (tc->timeout_s ? tc->timeout_s : TEST_DEFAULT_TIMEOUT_S) * scale;
	char reason[512];
	int fds[2], status;
	pid_t pid;

	fflush(stdout);
	if (pipe(fds)) {
		perror("harness: pipe");
		exit(2);
	}
	pid = fork();
	if (pid < 0) {
		perror("harness: fork");
		exit(2);
	}
	/*
	 * The case leads a process group of its own, so that its processes
	 * can be killed with it. Both sides set it, so that it exists
	 * whichever of them runs first.
	 */
	if (!pid) {
		if (setpgid(0, 0)) {
			perror("harness: setpgid");
			_exit(2);
		}
		close(fds[0]);
		reason_fd = fds[1];
		tc->run();
		_exit(TEST_EXIT_PASS);
	}
	/* EACCES: the case exec()ed already, after its own setpgid(). */
	if (setpgid(pid, pid) && errno != EACCES) {
		perror("harness: setpgid");
		exit(2);
	}
	running_case = pid;
	close(fds[1]);
	status = wait_case(pid, timeout_s);
	running_case = 0;
	read_reason(fds[0], reason, sizeof(reason));
	close(fds[0]);

	if (status == -1) {
		printf("FAIL %s/%s: timed out after %u s\n", prefix, tc->name, timeout_s);
		return 1;
	}
	if (WIFSIGNALED(status)) {
		printf("FAIL %s/%s: killed by signal %d (%s)\n", prefix, tc->name,
		       WTERMSIG(status), strsignal(WTERMSIG(status)));
		return 1;
	}
	switch (WEXITSTATUS(status)) {
	case TEST_EXIT_PASS:
		printf("PASS %s/%s\n", prefix, tc->name);
		return 0;
	case TEST_EXIT_SKIP:
		printf("SKIP %s/%s: %s\n", prefix, tc->name, reason);
		return 0;
	case TEST_EXIT_FAIL:
		printf("FAIL %s/%s: %s\n", prefix, tc->name, reason);
		return 1;
	default:
		printf("FAIL %s/%s: exited with status %d %s\n", prefix, tc->name,
		       WEXITSTATUS(status), reason);
		return 1;
	}
}

int run_tests(const char *prefix, const struct test_case *cases, size_t nr_cases,
	      const char *filter)
{
	unsigned int scale = timeout_scale();
	int failed = 0;
	size_t i;

	signal(SIGTERM, kill_running_case);
	signal(SIGINT, kill_running_case);
	signal(SIGHUP, kill_running_case);
	for (i = 0; i < nr_cases; i++) {
		if (filter && !strstr(cases[i].name, filter))
			continue;
		failed |= run_case(prefix, &cases[i], scale);
	}
	fflush(stdout);
	return failed;
}
