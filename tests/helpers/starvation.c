// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Hammer threads take and release one mutex back to back, always ready
 * to overtake; a victim thread takes it now and then. Prints the
 * victim's longest wait: with a starvation bound, a waiter that waited
 * long stops being overtaken, and the longest wait stays near the bound.
 *
 * usage: starvation [HAMMERS] [SECONDS]   (defaults: 4, 2)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static int stop;
static volatile unsigned long shared;

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void *hammer(void *arg)
{
	int i;

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		pthread_mutex_lock(&mutex);
		for (i = 0; i < 50; i++)
			shared++;
		pthread_mutex_unlock(&mutex);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int hammers = argc > 1 ? atoi(argv[1]) : 4, seconds = argc > 2 ? atoi(argv[2]) : 2, i;
	unsigned long long end, start, wait, longest = 0, waits = 0;
	struct timespec pause = { .tv_nsec = 5000000 };
	pthread_t threads[64];

	if (hammers < 1 || hammers > 64 || seconds < 1) {
		fprintf(stderr, "usage: %s [HAMMERS (1-64)] [SECONDS]\n", argv[0]);
		return 2;
	}
	for (i = 0; i < hammers; i++)
		if (pthread_create(&threads[i], NULL, hammer, NULL)) {
			fprintf(stderr, "starvation: pthread_create failed\n");
			return 1;
		}
	end = now_ns() + seconds * 1000000000ULL;
	while (now_ns() < end) {
		start = now_ns();
		pthread_mutex_lock(&mutex);
		wait = now_ns() - start;
		pthread_mutex_unlock(&mutex);
		if (wait > longest)
			longest = wait;
		waits++;
		nanosleep(&pause, NULL);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < hammers; i++)
		pthread_join(threads[i], NULL);
	printf("hammers=%d victim_waits=%llu longest_wait_us=%llu\n", hammers, waits, longest / 1000);
	return 0;
}
