/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The speed of the CPUs while a command runs, for cputime --vcpu-speed.
 *
 * A TCG guest runs at the speed at which the host runs each vCPU's
 * thread, and on this project's hosts that changes from one second to
 * the next (docs/bench/host-speed-1207/): that, not the lock, is most
 * of the spread of a one-thread run. One thread per CPU, pinned
 * and SCHED_FIFO so that it runs when due whatever the command does,
 * times a fixed loop every SAMPLE_PERIOD_MS: the fastest of
 * SAMPLE_CHUNKS timings, since an interrupt or a higher priority only
 * ever slows one down. A run's speed is the CPUs' mean speeds weighted
 * by each CPU's busy time over the run, from /proc/stat (equally, in a
 * run too short or idle for a tick to count).
 */
#ifndef VCPU_SPEED_H
#define VCPU_SPEED_H

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* About 10 us per chunk under TCG, 1 us on the host. */
#define SAMPLE_LOOP 2000
#define SAMPLE_CHUNKS 2
/* A sample is about 50 us of a vCPU under TCG: 0.1% at this period. */
#define SAMPLE_PERIOD_MS 50

struct cpu_sampler {
	int cpu;
	pthread_t thread;
	double sum;		/* of the samples, in iterations per us */
	long samples;
	unsigned long long busy_start;	/* /proc/stat ticks */
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	int stopping;
	int count;
	struct cpu_sampler *cpus;
} vcpu_speed_state = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* CLOCK_MONOTONIC in nanoseconds; cputime.c times its command with it too. */
static unsigned long long monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Busy ticks of CPU @cpu (user, nice, system, irq, softirq); 0 if unread. */
static unsigned long long vcpu_busy_ticks(int cpu)
{
	unsigned long long user, nice, sys, idle, iowait, irq, softirq;
	unsigned long long busy = 0;
	char line[512], want[32];
	FILE *f = fopen("/proc/stat", "r");

	if (!f)
		return 0;
	snprintf(want, sizeof(want), "cpu%d ", cpu);
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, want, strlen(want)))
			continue;
		if (sscanf(line + strlen(want), "%llu %llu %llu %llu %llu %llu %llu", &user,
			   &nice, &sys, &idle, &iowait, &irq, &softirq) == 7)
			busy = user + nice + sys + irq + softirq;
		break;
	}
	fclose(f);
	return busy;
}

/* The loop's speed now, in iterations per microsecond. */
static double vcpu_speed_sample(void)
{
	unsigned long long best = ~0ULL;
	int chunk;

	for (chunk = 0; chunk < SAMPLE_CHUNKS; chunk++) {
		unsigned long long start = monotonic_ns(), took;

		for (volatile unsigned int i = 0; i < SAMPLE_LOOP; i++)
			;
		took = monotonic_ns() - start;
		if (took < best)
			best = took;
	}
	return SAMPLE_LOOP * 1000.0 / (best ? best : 1);
}

static void *vcpu_speed_sampler(void *arg)
{
	struct cpu_sampler *me = arg;
	struct sched_param fifo = { .sched_priority = 1 };
	struct timespec due;
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(me->cpu, &one);
	if (pthread_setaffinity_np(pthread_self(), sizeof(one), &one))
		return NULL;
	/* Without the privilege, samples may come late, not wrong. */
	pthread_setschedparam(pthread_self(), SCHED_FIFO, &fifo);
	pthread_mutex_lock(&vcpu_speed_state.lock);
	while (!vcpu_speed_state.stopping) {
		pthread_mutex_unlock(&vcpu_speed_state.lock);
		me->sum += vcpu_speed_sample();
		me->samples++;
		/* From now, not from the last due time: a late sampler does not catch up. */
		clock_gettime(CLOCK_MONOTONIC, &due);
		due.tv_nsec += SAMPLE_PERIOD_MS * 1000000L;
		if (due.tv_nsec >= 1000000000L) {
			due.tv_sec++;
			due.tv_nsec -= 1000000000L;
		}
		pthread_mutex_lock(&vcpu_speed_state.lock);
		while (!vcpu_speed_state.stopping &&
		       pthread_cond_timedwait(&vcpu_speed_state.wake, &vcpu_speed_state.lock,
					      &due) != ETIMEDOUT)
			;
	}
	pthread_mutex_unlock(&vcpu_speed_state.lock);
	return NULL;
}

/*
 * Starts a sampler on each CPU the caller may use: 0, or -1 with errno
 * set when none started.
 */
static int vcpu_speed_start(void)
{
	pthread_condattr_t monotonic;
	cpu_set_t allowed;
	int cpu, started = 0;

	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		return -1;
	vcpu_speed_state.cpus = calloc(CPU_COUNT(&allowed), sizeof(struct cpu_sampler));
	if (!vcpu_speed_state.cpus)
		return -1;
	pthread_condattr_init(&monotonic);
	pthread_condattr_setclock(&monotonic, CLOCK_MONOTONIC);
	pthread_cond_init(&vcpu_speed_state.wake, &monotonic);
	pthread_condattr_destroy(&monotonic);
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		struct cpu_sampler *s = &vcpu_speed_state.cpus[started];

		if (!CPU_ISSET(cpu, &allowed))
			continue;
		s->cpu = cpu;
		s->busy_start = vcpu_busy_ticks(cpu);
		if (pthread_create(&s->thread, NULL, vcpu_speed_sampler, s))
			continue;
		started++;
	}
	vcpu_speed_state.count = started;
	if (!started) {
		errno = EAGAIN;
		return -1;
	}
	return 0;
}

/*
 * Stops the samplers: the run's speed in loop iterations per
 * microsecond, 0 when there was no sample.
 */
static double vcpu_speed_stop(void)
{
	double weighted = 0, weights = 0, plain = 0;
	int i, sampled = 0;

	pthread_mutex_lock(&vcpu_speed_state.lock);
	vcpu_speed_state.stopping = 1;
	pthread_cond_broadcast(&vcpu_speed_state.wake);
	pthread_mutex_unlock(&vcpu_speed_state.lock);
	for (i = 0; i < vcpu_speed_state.count; i++) {
		struct cpu_sampler *s = &vcpu_speed_state.cpus[i];
		unsigned long long busy_end;
		double busy = 0;

		pthread_join(s->thread, NULL);
		/* Unread (0) at either end, the CPU counts as not busy. */
		busy_end = vcpu_busy_ticks(s->cpu);
		if (s->busy_start && busy_end > s->busy_start)
			busy = (double)(busy_end - s->busy_start);
		if (!s->samples)
			continue;
		plain += s->sum / s->samples;
		sampled++;
		if (busy > 0) {
			weighted += busy * s->sum / s->samples;
			weights += busy;
		}
	}
	free(vcpu_speed_state.cpus);
	if (weights > 0)
		return weighted / weights;
	return sampled ? plain / sampled : 0;
}

#endif
