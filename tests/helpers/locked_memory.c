// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A real-time program's start: mlockall(MCL_CURRENT | MCL_FUTURE), as
 * rt-tests' programs do, then two threads that contend for a mutex, so
 * that a preloaded libadaptive sets both up. Prints the memory locked
 * then, which every mapping the library makes adds to: the test
 * compares it with and without the preload.
 *
 * usage: locked_memory
 * Prints locked_kb=N; exits 3 when mlockall() is refused.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;

static void *contender(void *arg)
{
	pthread_mutex_lock(&mutex);
	pthread_mutex_unlock(&mutex);
	return NULL;
}

static long locked_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *status = fopen("/proc/self/status", "r");

	if (!status)
		return -1;
	while (fgets(line, sizeof(line), status))
		if (sscanf(line, "VmLck: %ld kB", &kb) == 1)
			break;
	fclose(status);
	return kb;
}

int main(void)
{
	struct timespec hold = { .tv_nsec = 20 * 1000 * 1000 };
	pthread_t thread;
	long kb;

	if (mlockall(MCL_CURRENT | MCL_FUTURE)) {
		perror("mlockall");
		return 3;
	}
	pthread_mutex_lock(&mutex);
	if (pthread_create(&thread, NULL, contender, NULL)) {
		fprintf(stderr, "pthread_create failed\n");
		return 1;
	}
	nanosleep(&hold, NULL);
	pthread_mutex_unlock(&mutex);
	pthread_join(thread, NULL);
	kb = locked_kb();
	if (kb < 0) {
		fprintf(stderr, "no VmLck in /proc/self/status\n");
		return 1;
	}
	printf("locked_kb=%ld\n", kb);
	return 0;
}
