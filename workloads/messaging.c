// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A scheduler stress in the manner of hackbench (perf bench sched
 * messaging, threads mode): groups of sender and receiver threads pass
 * 100-byte messages over Unix socket pairs, all senders of a group to
 * all its receivers, so that threads block and wake constantly. Like
 * ctxswitch, with -s each thread attaches a sched_state of its own
 * (own_state.h).
 *
 * usage: messaging [-s] [-g GROUPS] [-f FDS] [-l LOOPS]
 *   GROUPS groups (default 2) of FDS senders and FDS receivers (default 5),
 *   each sender sending LOOPS messages (default 200) to every receiver.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "own_state.h"

#define MESSAGE_SIZE 100
#define MAX_FDS 64

struct group {
	int fds;
	/* pairs[r][0]: the receivers' end of receiver r; [1]: the senders'. */
	int pairs[MAX_FDS][2];
};

static int loops = 200;
static bool with_states;

struct role {
	struct group *group;
	int index;
};

static void *sender(void *arg)
{
	struct role *role = arg;
	char message[MESSAGE_SIZE] = { 0 };
	int i, r;

	own_state_attach(with_states);
	for (i = 0; i < loops; i++)
		for (r = 0; r < role->group->fds; r++)
			if (write(role->group->pairs[r][1], message, sizeof(message)) !=
			    sizeof(message)) {
				perror("messaging: write");
				exit(1);
			}
	own_state_detach();
	return NULL;
}

static void *receiver(void *arg)
{
	struct role *role = arg;
	long left = (long) loops * role->group->fds * MESSAGE_SIZE;
	char buf[MESSAGE_SIZE * 4];
	ssize_t n;

	own_state_attach(with_states);
	while (left > 0) {
		n = read(role->group->pairs[role->index][0], buf, sizeof(buf));
		if (n <= 0) {
			perror("messaging: read");
			exit(1);
		}
		left -= n;
	}
	own_state_detach();
	return NULL;
}

int main(int argc, char **argv)
{
	int groups = 2, fds = 5, opt, g, i, nr_threads = 0;
	struct timespec start, end;
	struct group *all;
	struct role *roles;
	pthread_t *threads;
	double ns;

	while ((opt = getopt(argc, argv, "sg:f:l:")) != -1) {
		switch (opt) {
		case 's':
			with_states = true;
			break;
		case 'g':
			groups = atoi(optarg);
			break;
		case 'f':
			fds = atoi(optarg);
			break;
		case 'l':
			loops = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: %s [-s] [-g GROUPS] [-f FDS] [-l LOOPS]\n", argv[0]);
			return 2;
		}
	}
	if (groups < 1 || fds < 1 || fds > MAX_FDS || loops < 1) {
		fprintf(stderr, "messaging: need groups >= 1, 1 <= fds <= %d, loops >= 1\n",
			MAX_FDS);
		return 2;
	}
	all = calloc(groups, sizeof(*all));
	roles = calloc(groups * fds * 2, sizeof(*roles));
	threads = calloc(groups * fds * 2, sizeof(*threads));
	if (!all || !roles || !threads) {
		fprintf(stderr, "messaging: out of memory\n");
		return 1;
	}
	for (g = 0; g < groups; g++) {
		all[g].fds = fds;
		for (i = 0; i < fds; i++)
			if (socketpair(AF_UNIX, SOCK_STREAM, 0, all[g].pairs[i])) {
				perror("messaging: socketpair");
				return 1;
			}
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (g = 0; g < groups; g++) {
		for (i = 0; i < 2 * fds; i++) {
			struct role *role = &roles[nr_threads];

			role->group = &all[g];
			role->index = i % fds;
			if (pthread_create(&threads[nr_threads++], NULL,
					   i < fds ? receiver : sender, role)) {
				fprintf(stderr, "messaging: pthread_create failed\n");
				return 1;
			}
		}
	}
	for (i = 0; i < nr_threads; i++)
		pthread_join(threads[i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &end);
	ns = (end.tv_sec - start.tv_sec) * 1e9 + (end.tv_nsec - start.tv_nsec);
	printf("messages=%ld states=%d ns_per_message=%.0f total_ms=%.1f\n",
	       (long) groups * fds * fds * loops, own_states_attached,
	       ns / ((double) groups * fds * fds * loops), ns / 1e6);
	return 0;
}
