/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Placing a helper's threads on two CPUs: the first two this process
 * may use. Helpers that need them exit with status 3 without them.
 * Include it with _GNU_SOURCE defined.
 */
#ifndef TWO_CPUS_H
#define TWO_CPUS_H

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* The first two CPUs this process may use, in @cpus. */
static inline bool two_cpus(int cpus[2])
{
	cpu_set_t set;
	int cpu, n = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return false;
	for (cpu = 0; cpu < CPU_SETSIZE && n < 2; cpu++)
		if (CPU_ISSET(cpu, &set))
			cpus[n++] = cpu;
	return n == 2;
}

/* Keep the calling thread on @cpu. */
static inline int stay_on(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "%s: sched_setaffinity: %s\n", program_invocation_short_name,
			strerror(errno));
		return -1;
	}
	return 0;
}

/* Start @fn(@arg) on @cpu. */
static inline int start_on(pthread_t *thread, void *(*fn)(void *), void *arg, int cpu)
{
	pthread_attr_t attr;
	cpu_set_t set;
	int ret;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_attr_init(&attr);
	pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	ret = pthread_create(thread, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	if (ret)
		fprintf(stderr, "%s: pthread_create: %s\n", program_invocation_short_name,
			strerror(ret));
	return ret;
}

#endif /* TWO_CPUS_H */
