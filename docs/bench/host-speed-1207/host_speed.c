// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The speed of each host CPU over time: one thread per CPU given,
 * pinned to it, times a fixed loop of LOOP iterations back to back for
 * SECONDS and prints "CPU SECONDS_SINCE_START MILLION_ITERATIONS_PER_S"
 * per loop. Nothing else should run meanwhile: a CPU shared with
 * another thread reads slow.
 *
 * usage: host_speed SECONDS CPU...
 * build: cc -O1 -pthread -o host_speed host_speed.c
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define LOOP 30000000UL

static double seconds;
static double start;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *trace(void *arg)
{
	int cpu = (int)(long)arg;
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (pthread_setaffinity_np(pthread_self(), sizeof(one), &one)) {
		fprintf(stderr, "host_speed: cannot run on CPU %d\n", cpu);
		exit(1);
	}
	while (now() - start < seconds) {
		double t = now();

		for (volatile unsigned long i = 0; i < LOOP; i++)
			;
		printf("%d %.3f %.1f\n", cpu, t - start, LOOP / (now() - t) / 1e6);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t threads[CPU_SETSIZE];
	int i;

	if (argc < 3 || (seconds = atof(argv[1])) <= 0) {
		fprintf(stderr, "usage: host_speed SECONDS CPU...\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	start = now();
	for (i = 2; i < argc && i - 2 < CPU_SETSIZE; i++)
		pthread_create(&threads[i - 2], NULL, trace, (void *)(long)atoi(argv[i]));
	for (i = 2; i < argc && i - 2 < CPU_SETSIZE; i++)
		pthread_join(threads[i - 2], NULL);
	return 0;
}
