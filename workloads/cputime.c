// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Run a command and report, on stderr after its own output, its wall
 * time and the CPU time (user and system) of all its threads:
 *
 *   cputime: status=0 wall_ns=... cpu_ns=... [vcpu_speed=...]
 *
 * With --vcpu-speed, the line ends with the CPUs' speed over the run,
 * in loop iterations per microsecond (vcpu_speed.h): the bench compares
 * one-thread runs at equal speed with it. Its sampling threads are
 * cputime's own, outside the command's CPU time.
 *
 * It exits with the command's status (128 + signal if it was killed).
 * The command runs in a process group of its own, to which SIGTERM,
 * SIGINT and SIGHUP sent to cputime are passed on: a time limit
 * (timeout, which signals its own child only) then stops every process
 * the command started too, such as a shell's server and client, and no
 * run leaves one behind to compete with the next.
 *
 * usage: cputime [--vcpu-speed] COMMAND [ARGS...]
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vcpu_speed.h"

static volatile pid_t command_group;

static unsigned long long tv_ns(struct timeval tv)
{
	return tv.tv_sec * 1000000000ULL + tv.tv_usec * 1000ULL;
}

static void pass_on(int sig)
{
	if (command_group > 0)
		kill(-command_group, sig);
}

static void pass_on_signals(void)
{
	static const int signals[] = { SIGTERM, SIGINT, SIGHUP };
	struct sigaction sa = { .sa_handler = pass_on, .sa_flags = SA_RESTART };
	size_t i;

	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
		sigaction(signals[i], &sa, NULL);
}

int main(int argc, char **argv)
{
	unsigned long long start, wall;
	int status, with_speed = 0;
	struct rusage usage;
	char speed[64] = "";
	pid_t pid;

	if (argc > 1 && !strcmp(argv[1], "--vcpu-speed")) {
		with_speed = 1;
		argv++;
		argc--;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: cputime [--vcpu-speed] COMMAND [ARGS...]\n");
		return 2;
	}
	/* Without a speed the run still counts, as one not compared at equal speed. */
	if (with_speed && vcpu_speed_start()) {
		perror("cputime: vcpu speed, run without it");
		with_speed = 0;
	}
	start = monotonic_ns();
	pid = fork();
	if (pid < 0) {
		perror("cputime: fork");
		return 1;
	}
	if (!pid) {
		setpgid(0, 0);
		execvp(argv[1], argv + 1);
		perror("cputime: exec");
		_exit(127);
	}
	/* Both sides, so that the group exists before any signal is passed on. */
	setpgid(pid, pid);
	command_group = pid;
	pass_on_signals();
	if (wait4(pid, &status, 0, &usage) != pid) {
		perror("cputime: wait4");
		return 1;
	}
	wall = monotonic_ns() - start;
	if (with_speed)
		snprintf(speed, sizeof(speed), " vcpu_speed=%.3f", vcpu_speed_stop());
	status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	fprintf(stderr, "cputime: status=%d wall_ns=%llu cpu_ns=%llu%s\n", status, wall,
		tv_ns(usage.ru_utime) + tv_ns(usage.ru_stime), speed);
	return status;
}
