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
 * transactional instructions that this CPU may lack: each call on such a
 * mutex clears it, calls glibc and sets it again, one call at a time
 * (a lock polls with trylock). Were two calls to overlap, one could set
 * the mark while the other is inside glibc, and glibc would unlock the
 * mutex as an elided one, leaving its owner field behind for the next
 * lock to assert on. Timed and clock locks pass the mark to glibc, which
 * then takes the mutex as elided: no test combines them with
 * NEXT_PROFILER_ELIDE. Neither does any lock one from a signal handler
 * or fork while another thread is inside such a call, which would spin.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
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
/* Held across a call on a marked mutex (a spin: nothing here may lock). */
static bool marked_call_busy;

typedef int (*mutex_fn)(pthread_mutex_t *);

static void *next_fn(int fn)
{
	return dlsym(RTLD_NEXT, symbols[fn]);
}

static void *next(int fn)
{
	__atomic_fetch_add(&calls[fn], 1, __ATOMIC_RELAXED);
	return next_fn(fn);
}

/* Whether calls on @m play glibc with elision on: type 0, NEXT_PROFILER_ELIDE=1. */
static bool plays_elided(const pthread_mutex_t *m)
{
	const char *elide = getenv("NEXT_PROFILER_ELIDE");

	return elide && *elide == '1' && !(m->__data.__kind & ~ELISION_FLAG);
}

/* Call @op on @m with glibc seeing it unmarked, and marked elided after. */
static int marked_call(mutex_fn op, pthread_mutex_t *m)
{
	int ret;

	while (__atomic_exchange_n(&marked_call_busy, true, __ATOMIC_ACQUIRE))
		sched_yield();
	m->__data.__kind &= ~ELISION_FLAG;
	ret = op(m);
	m->__data.__kind |= ELISION_FLAG;
	__atomic_store_n(&marked_call_busy, false, __ATOMIC_RELEASE);
	return ret;
}

int pthread_mutex_lock(pthread_mutex_t *m)
{
	mutex_fn lock = next(LOCK), trylock;
	int ret;

	if (!plays_elided(m))
		return lock(m);
	/* Not blocking in glibc while other calls on marked mutexes wait. */
	trylock = next_fn(TRYLOCK);
	while ((ret = marked_call(trylock, m)) == EBUSY)
		sched_yield();
	return ret;
}

int pthread_mutex_trylock(pthread_mutex_t *m)
{
	mutex_fn trylock = next(TRYLOCK);

	return plays_elided(m) ? marked_call(trylock, m) : trylock(m);
}

int pthread_mutex_unlock(pthread_mutex_t *m)
{
	mutex_fn unlock = next(UNLOCK);

	return plays_elided(m) ? marked_call(unlock, m) : unlock(m);
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
