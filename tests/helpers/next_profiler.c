// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A stand-in for a lock profiler preloaded after libadaptive
 * (LD_PRELOAD="libadaptive.so libnext_profiler.so"): it counts the calls
 * that reach it, forwards them to the next definition, and prints the
 * counts at exit. Every call libadaptive passes on must reach it.
 *
 * NEXT_PROFILER_ELIDE=1 makes it behave as glibc with lock elision on:
 * a mutex of type 0 that it locks comes back marked elided (kind flag
 * 256). glibc itself never sees the mark, which would make it run
 * transactional instructions that this CPU may lack.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define ELISION_FLAG	256

enum { LOCK, TRYLOCK, UNLOCK, TIMEDLOCK, CLOCKLOCK, NR_FNS };

static const char *const names[NR_FNS] = { "lock", "trylock", "unlock", "timedlock",
					   "clocklock" };
static const char *const symbols[NR_FNS] = {
	"pthread_mutex_lock", "pthread_mutex_trylock", "pthread_mutex_unlock",
	"pthread_mutex_timedlock", "pthread_mutex_clocklock",
};
static unsigned long calls[NR_FNS];

static void *next(int fn)
{
	__atomic_fetch_add(&calls[fn], 1, __ATOMIC_RELAXED);
	return dlsym(RTLD_NEXT, symbols[fn]);
}

/* Call @op on @m with glibc seeing it unmarked, and marked elided after. */
static int as_if_elided(int (*op)(pthread_mutex_t *), pthread_mutex_t *m)
{
	const char *elide = getenv("NEXT_PROFILER_ELIDE");
	bool mark = elide && *elide == '1' && !(m->__data.__kind & ~ELISION_FLAG);
	int ret;

	if (!mark)
		return op(m);
	m->__data.__kind &= ~ELISION_FLAG;
	ret = op(m);
	m->__data.__kind |= ELISION_FLAG;
	return ret;
}

int pthread_mutex_lock(pthread_mutex_t *m)
{
	return as_if_elided(next(LOCK), m);
}

int pthread_mutex_trylock(pthread_mutex_t *m)
{
	return ((int (*)(pthread_mutex_t *)) next(TRYLOCK))(m);
}

int pthread_mutex_unlock(pthread_mutex_t *m)
{
	return as_if_elided(next(UNLOCK), m);
}

int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *abstime)
{
	return ((int (*)(pthread_mutex_t *, const struct timespec *)) next(TIMEDLOCK))(m, abstime);
}

int pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t clockid, const struct timespec *abstime)
{
	return ((int (*)(pthread_mutex_t *, clockid_t, const struct timespec *)) next(CLOCKLOCK))(
		m, clockid, abstime);
}

static void __attribute__((destructor)) report(void)
{
	int fn;

	printf("next_profiler:");
	for (fn = 0; fn < NR_FNS; fn++)
		printf(" %s=%lu", names[fn], calls[fn]);
	printf("\n");
}
