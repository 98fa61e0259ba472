// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Run one copy of a command on each CPU that per_cpu may use, each copy
 * pinned to its CPU, until per_cpu is told to stop (SIGTERM, SIGINT) or
 * a copy ends; then stop the other copies (SIGTERM, and SIGKILL for
 * those left after STOP_GRACE_S) and wait for them. A copy gets SIGTERM
 * too if per_cpu itself dies. Exits 0 when told to stop, 1 when a copy
 * ended first (or could not start), 2 on bad usage.
 *
 * The co-runner of workloads/defs/corunner.sh: left to the load
 * balancer, stress-ng's workers moved between the vCPUs during nearly
 * every run (docs/bench/corunner-modes-1207).
 *
 * usage: per_cpu COMMAND [ARGS...]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define STOP_GRACE_S	5

static pid_t copies[CPU_SETSIZE];
static int nr_copies;
static int nr_running;

static pid_t start_copy(int cpu, char **argv, const sigset_t *child_mask, pid_t parent)
{
	cpu_set_t one;
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	sigprocmask(SIG_SETMASK, child_mask, NULL);
	/* Not left running if per_cpu dies before it could stop the copy. */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) || getppid() != parent)
		_exit(127);
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one)) {
		perror("per_cpu: sched_setaffinity");
		_exit(127);
	}
	execvp(argv[0], argv);
	fprintf(stderr, "per_cpu: %s: %m\n", argv[0]);
	_exit(127);
}

/* Reaps the copies that ended, without waiting; returns how many. */
static int reap_ended(void)
{
	int ended = 0, i;
	pid_t pid;

	while ((pid = waitpid(-1, NULL, WNOHANG)) > 0) {
		for (i = 0; i < nr_copies; i++)
			if (copies[i] == pid)
				copies[i] = 0;
		ended++;
	}
	nr_running -= ended;
	return ended;
}

static void signal_copies(int sig)
{
	int i;

	for (i = 0; i < nr_copies; i++)
		if (copies[i] > 0)
			kill(copies[i], sig);
}

/* With SIGCHLD blocked: stop every copy and reap it. */
static void stop_copies(void)
{
	const struct timespec grace = { .tv_sec = STOP_GRACE_S };
	sigset_t child;
	int sig = SIGTERM;

	sigemptyset(&child);
	sigaddset(&child, SIGCHLD);
	reap_ended();
	while (nr_running > 0) {
		signal_copies(sig);
		if (sigtimedwait(&child, NULL, &grace) < 0 && errno == EAGAIN)
			sig = SIGKILL;
		reap_ended();
	}
}

int main(int argc, char **argv)
{
	sigset_t handled, child_mask;
	cpu_set_t allowed;
	int cpu, sig, status = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: per_cpu COMMAND [ARGS...]\n");
		return 2;
	}
	if (sched_getaffinity(0, sizeof(allowed), &allowed)) {
		perror("per_cpu: sched_getaffinity");
		return 1;
	}
	/*
	 * The signals that end the wait stay blocked and are taken with
	 * sigwait(): a handler would race with the wait for the copies.
	 * Blocked, they are queued even if ignored (a shell ignores SIGINT
	 * in its background jobs), except SIGCHLD: under an inherited
	 * SIG_IGN the kernel reaps the copies and sends none.
	 */
	signal(SIGCHLD, SIG_DFL);
	sigemptyset(&handled);
	sigaddset(&handled, SIGTERM);
	sigaddset(&handled, SIGINT);
	sigaddset(&handled, SIGCHLD);
	sigprocmask(SIG_BLOCK, &handled, &child_mask);

	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &allowed))
			continue;
		copies[nr_copies] = start_copy(cpu, argv + 1, &child_mask, getpid());
		if (copies[nr_copies] < 0) {
			perror("per_cpu: fork");
			stop_copies();
			return 1;
		}
		nr_copies++;
		nr_running++;
	}

	for (;;) {
		if (sigwait(&handled, &sig)) {
			perror("per_cpu: sigwait");
			status = 1;
			break;
		}
		if (sig != SIGCHLD)
			break;
		if (reap_ended()) {
			fprintf(stderr, "per_cpu: a copy of %s ended\n", argv[1]);
			status = 1;
			break;
		}
	}
	stop_copies();
	return status;
}
