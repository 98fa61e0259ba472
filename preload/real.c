// SPDX-License-Identifier: LGPL-2.1-or-later
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>

#include "config.h"
#include "real.h"

/* glibc's definition of @name at version GLIBC_2.34, looked up once. */
static void *glibc_symbol(void **cache, const char *name)
{
	void *fn = __atomic_load_n(cache, __ATOMIC_ACQUIRE);

	if (fn)
		return fn;
	fn = dlvsym(RTLD_NEXT, name, "GLIBC_2.34");
	if (!fn) {
		adaptive_warn("glibc has no %s@GLIBC_2.34", name);
		abort();
	}
	__atomic_store_n(cache, fn, __ATOMIC_RELEASE);
	return fn;
}

int real_mutex_timedlock(pthread_mutex_t *m, const struct timespec *abstime)
{
	static void *fn;
	int (*timedlock)(pthread_mutex_t *, const struct timespec *) =
		glibc_symbol(&fn, "pthread_mutex_timedlock");

	return timedlock(m, abstime);
}

int real_mutex_clocklock(pthread_mutex_t *m, clockid_t clockid, const struct timespec *abstime)
{
	static void *fn;
	int (*clocklock)(pthread_mutex_t *, clockid_t, const struct timespec *) =
		glibc_symbol(&fn, "pthread_mutex_clocklock");

	return clocklock(m, clockid, abstime);
}
