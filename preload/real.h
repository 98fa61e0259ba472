/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The next definitions of the functions libadaptive exports: glibc's,
 * or those of a library preloaded after libadaptive (a lock profiler
 * sees every call that libadaptive passes on). They serve the mutexes
 * libadaptive leaves to glibc, ADAPTIVE_POLICY=glibc, and the calls
 * made while the library initializes.
 *
 * All are looked up the same way, dlsym(RTLD_NEXT), once: when the
 * library initializes, or at their first use if that comes first (a
 * constructor that runs before ours). dlsym() locks no mutex through
 * these symbols: glibc's loader lock is taken through the loader's own
 * pointer to glibc's internal lock function.
 */
#ifndef ADAPTIVE_REAL_H
#define ADAPTIVE_REAL_H

#include <pthread.h>
#include <threads.h>
#include <time.h>

enum real_fn {
	REAL_MUTEX_LOCK,
	REAL_MUTEX_TRYLOCK,
	REAL_MUTEX_UNLOCK,
	REAL_MUTEX_TIMEDLOCK,
	REAL_MUTEX_CLOCKLOCK,
	REAL_MTX_LOCK,
	REAL_MTX_TRYLOCK,
	REAL_MTX_UNLOCK,
	REAL_MTX_TIMEDLOCK,
	NR_REAL_FNS
};

extern void *real_fns[NR_REAL_FNS];

void *real_lookup(enum real_fn fn);

/* Look every one up now: called when the library initializes. */
void real_lookup_all(void);

static inline void *real_fn(enum real_fn fn)
{
	void *p = __atomic_load_n(&real_fns[fn], __ATOMIC_ACQUIRE);

	return __builtin_expect(p != NULL, 1) ? p : real_lookup(fn);
}

#define REAL(fn, type) ((type) real_fn(fn))

static inline int real_mutex_lock(pthread_mutex_t *m)
{
	return REAL(REAL_MUTEX_LOCK, int (*)(pthread_mutex_t *))(m);
}

static inline int real_mutex_trylock(pthread_mutex_t *m)
{
	return REAL(REAL_MUTEX_TRYLOCK, int (*)(pthread_mutex_t *))(m);
}

static inline int real_mutex_unlock(pthread_mutex_t *m)
{
	return REAL(REAL_MUTEX_UNLOCK, int (*)(pthread_mutex_t *))(m);
}

static inline int real_mutex_timedlock(pthread_mutex_t *m, const struct timespec *abstime)
{
	return REAL(REAL_MUTEX_TIMEDLOCK,
		    int (*)(pthread_mutex_t *, const struct timespec *))(m, abstime);
}

static inline int real_mutex_clocklock(pthread_mutex_t *m, clockid_t clockid,
				       const struct timespec *abstime)
{
	return REAL(REAL_MUTEX_CLOCKLOCK,
		    int (*)(pthread_mutex_t *, clockid_t, const struct timespec *))(m, clockid,
										abstime);
}

static inline int real_mtx_lock(mtx_t *m)
{
	return REAL(REAL_MTX_LOCK, int (*)(mtx_t *))(m);
}

static inline int real_mtx_trylock(mtx_t *m)
{
	return REAL(REAL_MTX_TRYLOCK, int (*)(mtx_t *))(m);
}

static inline int real_mtx_unlock(mtx_t *m)
{
	return REAL(REAL_MTX_UNLOCK, int (*)(mtx_t *))(m);
}

static inline int real_mtx_timedlock(mtx_t *m, const struct timespec *abstime)
{
	return REAL(REAL_MTX_TIMEDLOCK, int (*)(mtx_t *, const struct timespec *))(m, abstime);
}

#endif /* ADAPTIVE_REAL_H */
