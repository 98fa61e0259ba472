// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Preloaded before libadaptive (LD_PRELOAD="libcount_clock.so
 * libadaptive.so"), it counts the calls of clock_gettime() on the
 * monotonic clock, the one the library's lock paths read, forwards every
 * call to glibc, and prints the count at exit:
 *
 *   count_clock: monotonic_reads=N
 *
 * The program it runs must not read that clock itself.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>

static unsigned long monotonic_reads;

int clock_gettime(clockid_t clockid, struct timespec *ts)
{
	static int (*next)(clockid_t, struct timespec *);

	if (!next)
		next = (int (*)(clockid_t, struct timespec *)) dlsym(RTLD_NEXT, "clock_gettime");
	if (clockid == CLOCK_MONOTONIC)
		__atomic_fetch_add(&monotonic_reads, 1, __ATOMIC_RELAXED);
	return next(clockid, ts);
}

static void __attribute__((destructor)) report(void)
{
	fprintf(stderr, "count_clock: monotonic_reads=%lu\n",
		__atomic_load_n(&monotonic_reads, __ATOMIC_RELAXED));
}
