// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A library whose constructor, run before libadaptive's
 * (LD_PRELOAD="libadaptive.so libexhaust_keys.so"), takes every
 * thread-specific key, the first with a value of its own: libadaptive's
 * pthread_key_create() then fails, and the first key must keep its value
 * however much the program locks. Reported at exit.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>

static pthread_key_t first_key;
static int marker;

static void __attribute__((constructor)) exhaust_keys(void)
{
	pthread_key_t key;
	int taken = 1;

	if (pthread_key_create(&first_key, NULL) || pthread_setspecific(first_key, &marker)) {
		printf("exhaust_keys: no first key\n");
		return;
	}
	while (!pthread_key_create(&key, NULL))
		taken++;
	printf("exhaust_keys: took %d keys, the first is %u\n", taken, first_key);
}

static void __attribute__((destructor)) check_first_key(void)
{
	printf("exhaust_keys: first key %s\n",
	       pthread_getspecific(first_key) == &marker ? "intact" : "overwritten");
}
