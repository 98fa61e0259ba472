/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * glibc's own mutex functions, for the mutexes libadaptive leaves to it
 * and for ADAPTIVE_POLICY=glibc.
 *
 * lock, trylock and unlock are bound at link time to glibc's aliases
 * __pthread_mutex_lock@GLIBC_2.2.5 and friends (the same functions at
 * the same addresses), which libadaptive does not define: no dlsym(),
 * no function pointer that a mutex operation made before our
 * constructor could find NULL. timedlock and clocklock have no such
 * alias and are looked up with dlvsym(RTLD_NEXT) on first use.
 */
#ifndef ADAPTIVE_REAL_H
#define ADAPTIVE_REAL_H

#include <pthread.h>
#include <time.h>

int real_mutex_lock(pthread_mutex_t *m);
int real_mutex_trylock(pthread_mutex_t *m);
int real_mutex_unlock(pthread_mutex_t *m);
__asm__(".symver real_mutex_lock, __pthread_mutex_lock@GLIBC_2.2.5");
__asm__(".symver real_mutex_trylock, __pthread_mutex_trylock@GLIBC_2.2.5");
__asm__(".symver real_mutex_unlock, __pthread_mutex_unlock@GLIBC_2.2.5");

int real_mutex_timedlock(pthread_mutex_t *m, const struct timespec *abstime);
int real_mutex_clocklock(pthread_mutex_t *m, clockid_t clockid, const struct timespec *abstime);

#endif /* ADAPTIVE_REAL_H */
