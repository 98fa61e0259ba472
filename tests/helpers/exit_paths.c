// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Lock a mutex 2000 times from two threads, then leave the process by
 * one of the ways out: ADAPTIVE_STATS=1 must report on each. "idle"
 * returns at once, without locking.
 *
 * usage: exit_paths return|exit|_exit|_Exit|idle
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;

static void *locker(void *arg)
{
	int i;

	for (i = 0; i < 1000; i++) {
		pthread_mutex_lock(&mutex);
		pthread_mutex_unlock(&mutex);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t thread;

	if (argc != 2) {
		fprintf(stderr, "usage: %s return|exit|_exit|_Exit|idle\n", argv[0]);
		return 2;
	}
	if (!strcmp(argv[1], "idle"))
		return 0;
	if (pthread_create(&thread, NULL, locker, NULL)) {
		fprintf(stderr, "exit_paths: pthread_create failed\n");
		return 1;
	}
	locker(NULL);
	pthread_join(thread, NULL);
	if (!strcmp(argv[1], "exit"))
		exit(0);
	if (!strcmp(argv[1], "_exit"))
		_exit(0);
	if (!strcmp(argv[1], "_Exit"))
		_Exit(0);
	return strcmp(argv[1], "return") ? 2 : 0;
}
