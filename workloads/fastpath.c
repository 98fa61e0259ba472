// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The uncontended fast path: one thread locks and unlocks a mutex of
 * its own in a loop, while other threads are alive (sleeping), so that
 * glibc takes its multi-threaded path with atomic instructions. Prints
 * nanoseconds per lock+unlock pair. Run it with and without
 * LD_PRELOAD=libadaptive.so: workloads/fastpath-compare.sh does.
 *
 * usage: fastpath [-n PAIRS] [-t THREADS_ALIVE] [-k normal|recursive|errorcheck]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t done_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cond = PTHREAD_COND_INITIALIZER;
static int done;

/* A thread that stays alive, asleep, until the measurement ends. */
static void *bystander(void *arg)
{
	pthread_mutex_lock(&done_mutex);
	while (!done)
		pthread_cond_wait(&done_cond, &done_mutex);
	pthread_mutex_unlock(&done_mutex);
	return NULL;
}

static int parse_kind(const char *name)
{
	if (!strcmp(name, "normal"))
		return PTHREAD_MUTEX_NORMAL;
	if (!strcmp(name, "recursive"))
		return PTHREAD_MUTEX_RECURSIVE;
	if (!strcmp(name, "errorcheck"))
		return PTHREAD_MUTEX_ERRORCHECK;
	fprintf(stderr, "fastpath: -k %s: expected normal, recursive or errorcheck\n", name);
	exit(2);
}

int main(int argc, char **argv)
{
	long pairs = 20000000, i;
	int alive = 1, kind = PTHREAD_MUTEX_NORMAL, opt, t;
	struct timespec start, end;
	pthread_mutexattr_t attr;
	pthread_t threads[64];
	pthread_mutex_t m;
	double ns;

	while ((opt = getopt(argc, argv, "n:t:k:")) != -1) {
		switch (opt) {
		case 'n':
			pairs = strtol(optarg, NULL, 10);
			break;
		case 't':
			alive = atoi(optarg);
			break;
		case 'k':
			kind = parse_kind(optarg);
			break;
		default:
			fprintf(stderr, "usage: %s [-n PAIRS] [-t THREADS_ALIVE] [-k KIND]\n",
				argv[0]);
			return 2;
		}
	}
	if (pairs < 1 || alive < 0 || alive > 64) {
		fprintf(stderr, "fastpath: -n must be positive and -t from 0 to 64\n");
		return 2;
	}
	for (t = 0; t < alive; t++)
		if (pthread_create(&threads[t], NULL, bystander, NULL)) {
			fprintf(stderr, "fastpath: pthread_create failed\n");
			return 1;
		}
	pthread_mutexattr_init(&attr);
	pthread_mutexattr_settype(&attr, kind);
	pthread_mutex_init(&m, &attr);

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (i = 0; i < pairs; i++) {
		pthread_mutex_lock(&m);
		pthread_mutex_unlock(&m);
	}
	clock_gettime(CLOCK_MONOTONIC, &end);
	ns = ((end.tv_sec - start.tv_sec) * 1e9 + (end.tv_nsec - start.tv_nsec)) / pairs;

	pthread_mutex_lock(&done_mutex);
	done = 1;
	pthread_cond_broadcast(&done_cond);
	pthread_mutex_unlock(&done_mutex);
	for (t = 0; t < alive; t++)
		pthread_join(threads[t], NULL);
	printf("pairs=%ld threads_alive=%d ns_per_pair=%.2f\n", pairs, alive + 1, ns);
	return 0;
}
