// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What a sleeping handoff costs: two threads pass a token back and
 * forth, each sleeping in futex until the other wakes it. Reports the
 * wall time and the CPU time (both threads, user and system) per
 * handoff: the price a waiter pays for sleeping instead of spinning,
 * from which libadaptive's spin bound (preload/config.c) is chosen.
 *
 * usage: futex_cost [-n HANDOFFS] [-c]   (-c: pin the threads on CPUs 0 and 1)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static unsigned int token;
static long handoffs = 100000;
static bool pin;

static void futex(unsigned int *word, int op, unsigned int val)
{
	syscall(SYS_futex, word, op, val, NULL, NULL, 0);
}

static void pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("futex_cost: sched_setaffinity");
		exit(1);
	}
}

/* Thread @me waits for the token to be @me, then hands it to the other. */
static void *player(void *arg)
{
	unsigned int me = (unsigned int) (long) arg;
	long i;

	if (pin)
		pin_to(me);
	for (i = 0; i < handoffs / 2; i++) {
		unsigned int seen;

		while ((seen = __atomic_load_n(&token, __ATOMIC_ACQUIRE)) != me)
			futex(&token, FUTEX_WAIT_PRIVATE, seen);
		__atomic_store_n(&token, !me, __ATOMIC_RELEASE);
		futex(&token, FUTEX_WAKE_PRIVATE, 1);
	}
	return NULL;
}

static double seconds(struct timeval tv)
{
	return tv.tv_sec + tv.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
	struct timespec start, end;
	pthread_t threads[2];
	struct rusage usage;
	double wall, cpu;
	int opt, i;

	while ((opt = getopt(argc, argv, "n:c")) != -1) {
		switch (opt) {
		case 'n':
			handoffs = strtol(optarg, NULL, 10);
			break;
		case 'c':
			pin = true;
			break;
		default:
			fprintf(stderr, "usage: %s [-n HANDOFFS] [-c]\n", argv[0]);
			return 2;
		}
	}
	if (handoffs < 2) {
		fprintf(stderr, "futex_cost: -n must be at least 2\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (i = 0; i < 2; i++) {
		int ret = pthread_create(&threads[i], NULL, player, (void *) (long) i);

		if (ret) {
			fprintf(stderr, "futex_cost: pthread_create: %s\n", strerror(ret));
			return 1;
		}
	}
	for (i = 0; i < 2; i++)
		pthread_join(threads[i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &end);
	getrusage(RUSAGE_SELF, &usage);
	wall = (end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) / 1e9;
	cpu = seconds(usage.ru_utime) + seconds(usage.ru_stime);
	printf("handoffs=%ld wall_ns_per_handoff=%.0f cpu_ns_per_handoff=%.0f\n", handoffs,
	       wall * 1e9 / handoffs, cpu * 1e9 / handoffs);
	return 0;
}
