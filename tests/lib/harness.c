// SPDX-License-Identifier: LGPL-2.1-or-later
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
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

/*
 * Wait for @pid for at most @timeout_s seconds; kill it past that.
 * Returns its wait status, or -1 when it timed out.
 */
static int wait_child(pid_t pid, unsigned int timeout_s)
{
	unsigned long long deadline = now_ns() + timeout_s * 1000000000ULL;
	int status;

	for (;;) {
		pid_t ret = waitpid(pid, &status, WNOHANG);

		if (ret == pid)
			return status;
		if (ret < 0 && errno != EINTR) {
			perror("harness: waitpid");
			exit(2);
		}
		if (now_ns() > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return -1;
		}
		sleep_ms(2);
	}
}

static int run_case(const char *prefix, const struct test_case *tc)
{
	unsigned int timeout_s = tc->timeout_s ? tc->timeout_s : TEST_DEFAULT_TIMEOUT_S;
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
	if (!pid) {
		close(fds[0]);
		reason_fd = fds[1];
		tc->run();
		_exit(TEST_EXIT_PASS);
	}
	close(fds[1]);
	status = wait_child(pid, timeout_s);
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
	int failed = 0;
	size_t i;

	for (i = 0; i < nr_cases; i++) {
		if (filter && !strstr(cases[i].name, filter))
			continue;
		failed |= run_case(prefix, &cases[i]);
	}
	fflush(stdout);
	return failed;
}
