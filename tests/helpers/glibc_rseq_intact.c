// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Checks that glibc's rseq registration still works in every thread
 * after contended locking: the library attaches its sched_state to
 * glibc's registration and must never unregister or replace it. Code
 * that finds glibc's area through __rseq_offset (per-CPU data
 * structures, glibc's own sched_getcpu()) relies on its cpu_id.
 *
 * Each thread takes a shared mutex many times, with a short sleep inside
 * now and then so that waiters block, then compares the cpu_id of
 * glibc's area with the getcpu system call (not sched_getcpu(), which
 * reads that very area). Prints one line per failing thread; exits 0
 * when all agree, 1 when any does not, 77 when glibc registered no area
 * (GLIBC_TUNABLES=glibc.pthread.rseq=0, or glibc before 2.35).
 *
 * usage: glibc_rseq_intact
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/rseq.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NR_THREADS	4
#define NR_LOCKS	2000
/* Every SLEEP_EVERY-th critical section sleeps, so that waiters block. */
#define SLEEP_EVERY	100
/* A migration between the reads makes them differ: try again. */
#define NR_TRIES	100

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static long counter;

static int32_t glibc_cpu_id(void)
{
	const struct rseq *area = (const void *) ((char *) __builtin_thread_pointer() +
						  __rseq_offset);

	return __atomic_load_n(&area->cpu_id, __ATOMIC_RELAXED);
}

static int getcpu_syscall(void)
{
	unsigned int cpu;

	if (syscall(SYS_getcpu, &cpu, NULL, NULL))
		return -1;
	return cpu;
}

/* Returns whether glibc's cpu_id matched getcpu in one of the tries. */
static bool cpu_id_current(int32_t *seen, int *actual)
{
	int i;

	for (i = 0; i < NR_TRIES; i++) {
		*seen = glibc_cpu_id();
		*actual = getcpu_syscall();
		if (*seen >= 0 && *seen == *actual && glibc_cpu_id() == *seen)
			return true;
	}
	return false;
}

static void *thread(void *arg)
{
	struct timespec nap = { .tv_nsec = 100000 };
	int i, actual;
	int32_t seen;

	for (i = 0; i < NR_LOCKS; i++) {
		pthread_mutex_lock(&mutex);
		counter++;
		if (i % SLEEP_EVERY == 0)
			nanosleep(&nap, NULL);
		pthread_mutex_unlock(&mutex);
	}
	if (!cpu_id_current(&seen, &actual)) {
		printf("thread %ld: glibc's rseq cpu_id %d, getcpu %d\n",
		       (long) syscall(SYS_gettid), seen, actual);
		return (void *) 1;
	}
	return NULL;
}

int main(void)
{
	pthread_t threads[NR_THREADS];
	int i, ret, failed = 0;
	void *result;

	if (__rseq_size == 0) {
		printf("glibc registered no rseq area\n");
		return 77;
	}
	for (i = 0; i < NR_THREADS; i++) {
		ret = pthread_create(&threads[i], NULL, thread, NULL);
		if (ret) {
			fprintf(stderr, "pthread_create: %s\n", strerror(ret));
			return 1;
		}
	}
	for (i = 0; i < NR_THREADS; i++) {
		ret = pthread_join(threads[i], &result);
		if (ret) {
			fprintf(stderr, "pthread_join: %s\n", strerror(ret));
			return 1;
		}
		failed |= result != NULL;
	}
	/* The main thread too, which used no mutex. */
	failed |= thread(NULL) != NULL;
	if (counter != (NR_THREADS + 1) * NR_LOCKS) {
		printf("counter %ld, expected %d\n", counter, (NR_THREADS + 1) * NR_LOCKS);
		failed = 1;
	}
	return failed;
}
