// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The cost of a context switch: two threads bounce a byte through two
 * pipes, each blocking in read() until the other writes, so that every
 * bounce is two switches. With -s, each thread attaches a sched_state of
 * its own (own_state.h), which the patched kernel updates on every
 * switch: compare stock, patched, and patched with states. The result
 * line counts the threads that have one.
 *
 * usage: ctxswitch [-s] [-n ROUND_TRIPS]   (default 100000)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "own_state.h"

static int to_echo[2], to_main[2];
static long round_trips = 100000;
static bool with_states;

/* Wait for a byte on @in, then pass it to @out. */
static void bounce(int in, int out)
{
	char byte = 0;

	if ((in >= 0 && read(in, &byte, 1) != 1) || (out >= 0 && write(out, &byte, 1) != 1)) {
		perror("ctxswitch: pipe");
		exit(1);
	}
}

static void *echo(void *arg)
{
	long i;

	own_state_attach(with_states);
	for (i = 0; i < round_trips; i++)
		bounce(to_echo[0], to_main[1]);
	own_state_detach();
	return NULL;
}

int main(int argc, char **argv)
{
	struct timespec start, end;
	pthread_t thread;
	int opt, ret;
	long i;

	while ((opt = getopt(argc, argv, "sn:")) != -1) {
		if (opt == 's') {
			with_states = true;
			continue;
		}
		if (opt != 'n' || (round_trips = strtol(optarg, NULL, 10)) < 1) {
			fprintf(stderr, "usage: %s [-s] [-n ROUND_TRIPS]\n", argv[0]);
			return 2;
		}
	}
	if (pipe(to_echo) || pipe(to_main)) {
		perror("ctxswitch: pipe");
		return 1;
	}
	own_state_attach(with_states);
	ret = pthread_create(&thread, NULL, echo, NULL);
	if (ret) {
		fprintf(stderr, "ctxswitch: pthread_create: %s\n", strerror(ret));
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (i = 0; i < round_trips; i++) {
		bounce(-1, to_echo[1]);
		bounce(to_main[0], -1);
	}
	clock_gettime(CLOCK_MONOTONIC, &end);
	pthread_join(thread, NULL);
	printf("round_trips=%ld states=%d ns_per_round_trip=%.0f\n", round_trips,
	       own_states_attached, ((end.tv_sec - start.tv_sec) * 1e9 + (end.tv_nsec - start.tv_nsec)) / round_trips);
	return 0;
}
