// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A benchmark baseline, not part of libadaptive: an LD_PRELOAD library
 * that hands every mutex of a program to one of glibc's own mutex kinds,
 * so that vm-bench compares our policies with glibc's code, not with an
 * imitation of it. Built twice from this file:
 *
 *   -DKIND_ADAPTIVE  libglibc-adaptive.so: every normal (default-type)
 *                    mutex becomes PTHREAD_MUTEX_ADAPTIVE_NP, glibc's
 *                    spin-count mutex (nptl/pthread_mutex_lock.c, at most
 *                    glibc.mutex.spin_count = 100 spins);
 *   -DKIND_PI        libkernel-spin.so: every mutex gets
 *                    PTHREAD_PRIO_INHERIT, glibc's PI mutex, whose waiters
 *                    sleep in FUTEX_LOCK_PI; since Linux 5.15 the kernel's
 *                    rt_mutex spins its top waiter while the owner runs
 *                    (rtmutex_spin_on_owner() in kernel/locking/rtmutex.c):
 *                    spinning on a running owner, done in the kernel.
 *
 * How: pthread_mutex_init() gets an attribute with the type or protocol
 * set, and glibc initializes the mutex. A statically initialized mutex
 * (PTHREAD_MUTEX_INITIALIZER, __kind 0) is converted on its first lock:
 * every lock entry point below sets __kind from 0 to the kind's value
 * before it calls glibc. The value is glibc's own, read from a probe mutex
 * that glibc initialized with the same attribute, so no bit of glibc's
 * encoding is hard-coded here. A thread enters glibc's lock only after its
 * own compare-and-swap or after seeing another's, so no thread locks the
 * mutex as normal once it is converted; the PI kind, whose lock word holds
 * the owner's thread id, depends on that. Mutexes that glibc locks only
 * internally (never through these entry points) stay as they are.
 *
 * Unversioned definitions: the dynamic linker binds references to any
 * version of these symbols (GLIBC_2.2.5 or GLIBC_2.34) to them.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#if defined(KIND_ADAPTIVE) == defined(KIND_PI)
#error "build with exactly one of -DKIND_ADAPTIVE and -DKIND_PI"
#endif

#define EXPORT __attribute__((visibility("default")))

typedef int (*mutex_fn)(pthread_mutex_t *);
typedef int (*init_fn)(pthread_mutex_t *, const pthread_mutexattr_t *);
typedef int (*timed_fn)(pthread_mutex_t *, const struct timespec *);
typedef int (*clock_fn)(pthread_mutex_t *, clockid_t, const struct timespec *);

static struct {
	init_fn init;
	mutex_fn lock, trylock;
	timed_fn timedlock;
	clock_fn clocklock;
} real;

/* glibc's __kind for a default mutex initialized with our attribute. */
static int converted_kind;

static void *next_symbol(const char *name)
{
	void *fn = dlsym(RTLD_NEXT, name);

	if (!fn) {
		fprintf(stderr, "glibc-mutex-kind: dlsym(%s): %s\n", name, dlerror());
		abort();
	}
	return fn;
}

/* Our attribute on top of @attr (or the default); 0 or an error number. */
static int set_kind(pthread_mutexattr_t *out, const pthread_mutexattr_t *attr)
{
	int ret;
#ifdef KIND_ADAPTIVE
	int type;
#endif

	if (attr)
		*out = *attr;
	else if ((ret = pthread_mutexattr_init(out)))
		return ret;
#ifdef KIND_ADAPTIVE
	/* Only normal mutexes: a recursive or error-checking one keeps its type. */
	if ((ret = pthread_mutexattr_gettype(out, &type)))
		return ret;
	if (type == PTHREAD_MUTEX_NORMAL)
		return pthread_mutexattr_settype(out, PTHREAD_MUTEX_ADAPTIVE_NP);
	return 0;
#else
	return pthread_mutexattr_setprotocol(out, PTHREAD_PRIO_INHERIT);
#endif
}

__attribute__((constructor)) static void resolve(void)
{
	pthread_mutexattr_t attr;
	pthread_mutex_t probe;
	int ret;

	if (real.init)
		return;
	real.lock = (mutex_fn)next_symbol("pthread_mutex_lock");
	real.trylock = (mutex_fn)next_symbol("pthread_mutex_trylock");
	real.timedlock = (timed_fn)next_symbol("pthread_mutex_timedlock");
	real.clocklock = (clock_fn)next_symbol("pthread_mutex_clocklock");
	if ((ret = set_kind(&attr, NULL)) ||
	    (ret = ((init_fn)next_symbol("pthread_mutex_init"))(&probe, &attr))) {
		fprintf(stderr, "glibc-mutex-kind: a probe mutex of our kind: error %d\n", ret);
		abort();
	}
	converted_kind = probe.__data.__kind;
	__atomic_store_n(&real.init, (init_fn)next_symbol("pthread_mutex_init"), __ATOMIC_RELEASE);
}

/* A statically initialized mutex becomes our kind before glibc sees it. */
static void convert(pthread_mutex_t *m)
{
	int normal = 0;

	if (!__atomic_load_n(&real.init, __ATOMIC_ACQUIRE))
		resolve();
	if (__atomic_load_n(&m->__data.__kind, __ATOMIC_RELAXED) == 0)
		__atomic_compare_exchange_n(&m->__data.__kind, &normal, converted_kind, false,
					    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

EXPORT int pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *attr)
{
	pthread_mutexattr_t ours;
	int ret;

	if (!__atomic_load_n(&real.init, __ATOMIC_ACQUIRE))
		resolve();
	if ((ret = set_kind(&ours, attr)))
		return ret;
	return real.init(m, &ours);
}

EXPORT int pthread_mutex_lock(pthread_mutex_t *m)
{
	convert(m);
	return real.lock(m);
}

EXPORT int pthread_mutex_trylock(pthread_mutex_t *m)
{
	convert(m);
	return real.trylock(m);
}

EXPORT int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *abstime)
{
	convert(m);
	return real.timedlock(m, abstime);
}

EXPORT int pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t clock,
				   const struct timespec *abstime)
{
	convert(m);
	return real.clocklock(m, clock, abstime);
}
