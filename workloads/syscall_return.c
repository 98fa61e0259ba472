// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The cost of a return to user space: one thread makes a number of
 * getppid() system calls, each one entry into the kernel and one return.
 * With -s it first attaches a sched_state of its own (own_state.h):
 * whatever the patched kernel adds to the way back to user space for
 * such a thread shows here. Under QEMU's icount
 * (workloads/kernel-cost-icount.sh), ns are guest instructions.
 *
 * usage: syscall_return [-s] [-n SYSCALLS]   (default 1000000)
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "own_state.h"

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s [-s] [-n SYSCALLS]\n", prog);
	exit(2);
}

int main(int argc, char **argv)
{
	struct timespec start, end;
	long i, syscalls = 1000000;
	bool with_state = false;
	char *rest = "";
	int opt;

	while ((opt = getopt(argc, argv, "sn:")) != -1) {
		if (opt == 's') {
			with_state = true;
			continue;
		}
		if (opt != 'n')
			usage(argv[0]);
		syscalls = strtol(optarg, &rest, 10);
		if (*rest || syscalls < 1)
			usage(argv[0]);
	}
	if (optind != argc)
		usage(argv[0]);
	own_state_attach(with_state);
	clock_gettime(CLOCK_MONOTONIC, &start);
	/* Not getppid(): the system call itself, whatever glibc does. */
	for (i = 0; i < syscalls; i++)
		syscall(SYS_getppid);
	clock_gettime(CLOCK_MONOTONIC, &end);
	printf("syscalls=%ld states=%d ns_per_syscall=%.1f\n", syscalls, own_states_attached,
	       ((end.tv_sec - start.tv_sec) * 1e9 + (end.tv_nsec - start.tv_nsec)) / syscalls);
	return 0;
}
