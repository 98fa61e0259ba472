// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The symbols libadaptive exports, at every version programs link
 * against (glibc 2.34 moved pthread and C11 threads into libc and gave
 * most of these symbols new versions; binaries built earlier still
 * reference the old ones): see libadaptive.map. Each routes the simple
 * mutex kinds to mutex.h and leaves the others to the next definition
 * (real.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <threads.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "glibc-mutex.h"
#include "mutex.h"
#include "real.h"
#include "stats.h"
#include "syscall.h"

#define EXPORT __attribute__((visibility("default")))

/* Export @impl as @name at a version that is not the default one. */
#define COMPAT_SYMBOL(impl, name, version)					\
	__typeof__(impl) impl##_compat __attribute__((alias(#impl))) EXPORT;	\
	__asm__(".symver " #impl "_compat, " #name "@" #version)

/* Versioned below; their prototypes are glibc's. */
__typeof__(pthread_mutex_trylock) adaptive_pthread_mutex_trylock;
__typeof__(pthread_mutex_timedlock) adaptive_pthread_mutex_timedlock;
__typeof__(pthread_mutex_clocklock) adaptive_pthread_mutex_clocklock;

/* Whether libadaptive handles @kind; counts what it leaves to glibc. */
static inline bool adaptive_handles(int kind)
{
	if (__builtin_expect(glibc_mutex_is_simple(kind), 1))
		return adaptive_enabled();
	if (adaptive_enabled())
		stat_inc(adaptive_thread_self(), STAT_PASSTHROUGH);
	return false;
}

/*
 * lock and unlock run inline, in about as many instructions as glibc's,
 * when the calling thread already used the library (so it is
 * initialized and enabled) and the mutex is of a simple kind. All else
 * goes through the *_any() functions.
 */
static __attribute__((noinline)) int lock_any(pthread_mutex_t *m)
{
	int kind = glibc_mutex_kind(m);

	if (adaptive_handles(kind))
		return adaptive_mutex_lock(m, glibc_mutex_type(kind), adaptive_thread_self(),
					   CLOCK_REALTIME, NULL);
	return real_mutex_lock(m);
}

static inline int lock(pthread_mutex_t *m)
{
	struct adaptive_thread *self = &adaptive_self;
	int kind = glibc_mutex_kind(m);

	if (__builtin_expect(self->tid && glibc_mutex_is_simple(kind), 1))
		return adaptive_mutex_lock(m, glibc_mutex_type(kind), self, CLOCK_REALTIME, NULL);
	return lock_any(m);
}

EXPORT int pthread_mutex_lock(pthread_mutex_t *m)
{
	return lock(m);
}

static __attribute__((noinline)) int unlock_any(pthread_mutex_t *m)
{
	int kind = glibc_mutex_kind(m);

	if (adaptive_handles(kind))
		return adaptive_mutex_unlock(m, glibc_mutex_type(kind));
	return real_mutex_unlock(m);
}

static inline int unlock(pthread_mutex_t *m)
{
	int kind = glibc_mutex_kind(m);

	if (__builtin_expect(adaptive_self.tid && glibc_mutex_is_simple(kind), 1))
		return adaptive_mutex_unlock(m, glibc_mutex_type(kind));
	return unlock_any(m);
}

EXPORT int pthread_mutex_unlock(pthread_mutex_t *m)
{
	return unlock(m);
}

static int trylock(pthread_mutex_t *m)
{
	int kind = glibc_mutex_kind(m);

	if (adaptive_handles(kind))
		return adaptive_mutex_trylock(m, glibc_mutex_type(kind), adaptive_thread_self());
	return real_mutex_trylock(m);
}

EXPORT int adaptive_pthread_mutex_trylock(pthread_mutex_t *m)
{
	return trylock(m);
}
__asm__(".symver adaptive_pthread_mutex_trylock, pthread_mutex_trylock@@GLIBC_2.34");
COMPAT_SYMBOL(adaptive_pthread_mutex_trylock, pthread_mutex_trylock, GLIBC_2.2.5);

static int timedlock(pthread_mutex_t *m, const struct timespec *abstime)
{
	int kind = glibc_mutex_kind(m);

	if (adaptive_handles(kind))
		return adaptive_mutex_lock(m, glibc_mutex_type(kind), adaptive_thread_self(),
					   CLOCK_REALTIME, abstime);
	return real_mutex_timedlock(m, abstime);
}

EXPORT int adaptive_pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *abstime)
{
	return timedlock(m, abstime);
}
__asm__(".symver adaptive_pthread_mutex_timedlock, pthread_mutex_timedlock@@GLIBC_2.34");
COMPAT_SYMBOL(adaptive_pthread_mutex_timedlock, pthread_mutex_timedlock, GLIBC_2.2.5);

EXPORT int adaptive_pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t clockid,
					    const struct timespec *abstime)
{
	int kind = glibc_mutex_kind(m);

	if (!adaptive_handles(kind))
		return real_mutex_clocklock(m, clockid, abstime);
	/* glibc checks the clock before anything else. */
	if (clockid != CLOCK_REALTIME && clockid != CLOCK_MONOTONIC)
		return EINVAL;
	return adaptive_mutex_lock(m, glibc_mutex_type(kind), adaptive_thread_self(), clockid,
				   abstime);
}
__asm__(".symver adaptive_pthread_mutex_clocklock, pthread_mutex_clocklock@@GLIBC_2.34");
COMPAT_SYMBOL(adaptive_pthread_mutex_clocklock, pthread_mutex_clocklock, GLIBC_2.30);

/*
 * C11 mutexes: glibc's mtx_* call its pthread mutex functions from
 * within libc, where no preload sees them (nptl/mtx_lock.c and the
 * like); an mtx_t is a pthread_mutex_t there. Take it the same way and
 * map the result as glibc's thrd_err_map() does.
 */
static int thrd_result(int err)
{
	switch (err) {
	case 0:
		return thrd_success;
	case EBUSY:
		return thrd_busy;
	case ETIMEDOUT:
		return thrd_timedout;
	case ENOMEM:
		return thrd_nomem;
	default:
		return thrd_error;
	}
}

__typeof__(mtx_lock) adaptive_mtx_lock;
__typeof__(mtx_trylock) adaptive_mtx_trylock;
__typeof__(mtx_timedlock) adaptive_mtx_timedlock;
__typeof__(mtx_unlock) adaptive_mtx_unlock;

EXPORT int adaptive_mtx_lock(mtx_t *m)
{
	if (!adaptive_enabled())
		return real_mtx_lock(m);
	return thrd_result(lock((pthread_mutex_t *) m));
}
__asm__(".symver adaptive_mtx_lock, mtx_lock@@GLIBC_2.34");
COMPAT_SYMBOL(adaptive_mtx_lock, mtx_lock, GLIBC_2.28);

EXPORT int adaptive_mtx_trylock(mtx_t *m)
{
	if (!adaptive_enabled())
		return real_mtx_trylock(m);
	return thrd_result(trylock((pthread_mutex_t *) m));
}
__asm__(".symver adaptive_mtx_trylock, mtx_trylock@@GLIBC_2.34");
COMPAT_SYMBOL(adaptive_mtx_trylock, mtx_trylock, GLIBC_2.28);

EXPORT int adaptive_mtx_timedlock(mtx_t *__restrict m, const struct timespec *__restrict abstime)
{
	if (!adaptive_enabled())
		return real_mtx_timedlock(m, abstime);
	return thrd_result(timedlock((pthread_mutex_t *) m, abstime));
}
__asm__(".symver adaptive_mtx_timedlock, mtx_timedlock@@GLIBC_2.34");
COMPAT_SYMBOL(adaptive_mtx_timedlock, mtx_timedlock, GLIBC_2.28);

EXPORT int adaptive_mtx_unlock(mtx_t *m)
{
	if (!adaptive_enabled())
		return real_mtx_unlock(m);
	return thrd_result(unlock((pthread_mutex_t *) m));
}
__asm__(".symver adaptive_mtx_unlock, mtx_unlock@@GLIBC_2.34");
COMPAT_SYMBOL(adaptive_mtx_unlock, mtx_unlock, GLIBC_2.28);

/* _exit() skips atexit handlers and destructors: report the stats first. */
EXPORT void _exit(int status)
{
	stats_report();
	for (;;)
		raw_syscall6(SYS_exit_group, status, 0, 0, 0, 0, 0);
}
EXPORT void _Exit(int status) __attribute__((alias("_exit")));

static void __attribute__((constructor)) adaptive_constructor(void)
{
	adaptive_enabled();
}
