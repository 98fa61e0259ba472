// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The cost of a return to user space: one thread makes a number of
 * getppid() system calls, each one entry into the kernel and one return.
 * It first takes a mutex once, so that under LD_PRELOAD=libadaptive.so a
 * sched_state is attached to it: whatever the patched kernel adds to the
 * way back to user space for such a thread shows here. Under QEMU's
 * icount (workloads/kernel-cost-icount.sh), ns are guest instructions.
 *
 * usage: syscall_return [-n SYSCALLS]   (default 1000000)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s [-n SYSCALLS]\n", prog);
	exit(2);
}

int main(int argc, char **argv)
{
	static pthread_mutex_t registration = PTHREAD_MUTEX_INITIALIZER;
	struct timespec start, end;
	long i, syscalls = 1000000;
	char *rest = "";
	int opt;

	while ((opt = getopt(argc, argv, "n:")) != -1) {
		if (opt != 'n')
			usage(argv[0]);
		syscalls = strtol(optarg, &rest, 10);
		if (*rest || syscalls < 1)
			usage(argv[0]);
	}
	if (optind != argc)
		usage(argv[0]);
	pthread_mutex_lock(&registration);
	pthread_mutex_unlock(&registration);
	clock_gettime(CLOCK_MONOTONIC, &start);
	/* Not getppid(): the system call itself, whatever glibc does. */
	for (i = 0; i < syscalls; i++)
		syscall(SYS_getppid);
	clock_gettime(CLOCK_MONOTONIC, &end);
	printf("syscalls=%ld ns_per_syscall=%.1f\n", syscalls,
	       ((end.tv_sec - start.tv_sec) * 1e9 + (end.tv_nsec - start.tv_nsec)) / syscalls);
	return 0;
}
