// SPDX-License-Identifier: LGPL-2.1-or-later
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>

#include "config.h"
#include "real.h"

static const char *const real_names[NR_REAL_FNS] = {
	[REAL_MUTEX_LOCK] = "pthread_mutex_lock",
	[REAL_MUTEX_TRYLOCK] = "pthread_mutex_trylock",
	[REAL_MUTEX_UNLOCK] = "pthread_mutex_unlock",
	[REAL_MUTEX_TIMEDLOCK] = "pthread_mutex_timedlock",
	[REAL_MUTEX_CLOCKLOCK] = "pthread_mutex_clocklock",
	[REAL_MTX_LOCK] = "mtx_lock",
	[REAL_MTX_TRYLOCK] = "mtx_trylock",
	[REAL_MTX_UNLOCK] = "mtx_unlock",
	[REAL_MTX_TIMEDLOCK] = "mtx_timedlock",
};

void *real_fns[NR_REAL_FNS];

/*
 * The default version, as a program linked today binds to it: the
 * older versions of these symbols are the same functions in glibc.
 * Threads that race here store the same pointer.
 */
void *real_lookup(enum real_fn fn)
{
	void *p = dlsym(RTLD_NEXT, real_names[fn]);

	if (!p) {
		adaptive_warn("no next definition of %s: %s", real_names[fn], dlerror());
		abort();
	}
	__atomic_store_n(&real_fns[fn], p, __ATOMIC_RELEASE);
	return p;
}

void real_lookup_all(void)
{
	int fn;

	for (fn = 0; fn < NR_REAL_FNS; fn++)
		real_fn(fn);
}
