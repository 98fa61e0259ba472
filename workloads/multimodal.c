// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The case the RFC names: threads take one mutex and hold it for a
 * section drawn from a multi-modal mix of short on-CPU sections (about
 * 100 ns), long on-CPU ones (tens of us) and blocking ones (the holder
 * sleeps about 100 us to 1 ms inside), where no single spin budget suits
 * every mode. A fixed number of operations is shared out as threads take
 * them, so that a thread that waits less does more; or, with -d, the
 * threads take operations for a fixed time (steady state for vm-bench),
 * and the rate is that of the operations done over the measured interval
 * (thread start to the last thread's stop, without the calibration).
 *
 * With -f, the holder of a blocking section does not sleep: it writes a
 * record to FILE and waits for fdatasync(), as a database commits its log
 * under its lock; on a real disk the owner then waits for the device.
 *
 * Prints one line of key=value: ops_per_sec, cpu_ns_per_op (user and
 * system time of all threads), lock acquisition latency p50_us, p99_us,
 * p999_us and max_us (the longest), fairness (fewest and most operations
 * of a thread) and blocked (the sections in which the holder blocked).
 *
 * usage: multimodal [-t THREADS] [-n OPS] [-m SHORT:LONG:BLOCK]
 *                   [-s SHORT_NS] [-l LONG_US] [-b BLOCK_US[:MAX_US]]
 *                   [-o OUTSIDE_NS[:MAX_NS]] [-d SECONDS] [-f FILE]
 *                   [-c ITERATIONS_PER_MS]
 *        multimodal -C
 *   -t threads (default 4)               -n operations in all (default 20000)
 *   -d run for SECONDS (decimal) instead of -n operations; the latency
 *      percentiles then come from the first MAX_SAMPLES operations
 *   -m mix weights (default 90:9:1)      -s short section (default 100 ns)
 *   -l long section (default 20 us)      -b blocking range (default 100:1000 us)
 *   -o work outside the lock between operations (default 500 ns)
 *   A range MIN:MAX (-b, -o) draws each value uniformly from it.
 *   -f blocking sections write a record to FILE and fdatasync it (the
 *      -b range is then unused)
 *   -c the busy loop's speed, in iterations per ms, in place of the
 *      calibration at start-up; -C prints the calibration and exits.
 *      vm-bench's guest side (run-bench.sh) calibrates once per boot and
 *      gives every run the same figure: under TCG the calibration of one
 *      run could be twice that of the next, as the host's speed varied
 *      from one 50 ms to the next, which made the ratio of two runs
 *      twice as noisy.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "select_nth.h"

#define MAX_THREADS 64
/* Latency samples kept in a timed run: 32 MiB, touched only as used. */
#define MAX_SAMPLES (1L << 22)
/* The waits reported: p50, p99, p99.9 and the longest, in per mille. */
static const long rank_per_mille[] = { 500, 990, 999, 1000 };
#define NR_RANKS ((int) (sizeof(rank_per_mille) / sizeof(rank_per_mille[0])))

/*
 * -f: the records overwrite a ring of blocks written once before the
 * run, so that each fdatasync() flushes data, not a growing file's
 * metadata.
 */
#define RECORD_SIZE 4096
#define RECORD_SLOTS 256
/*
 * The longest -s, -l, -b or -o: an hour, far from overflowing in ns, and
 * in busy-loop iterations at up to MAX_ITERATIONS_PER_MS.
 */
#define MAX_RANGE_US 3600000000UL
/* A busy loop a million times faster than today's (-c). */
#define MAX_ITERATIONS_PER_MS 1000000000000UL

struct config {
	int threads;
	long ops;
	/* A timed run (-d) lasts this long; 0: a run of ops operations. */
	uint64_t duration_ns;
	unsigned int weight_short, weight_long, weight_block;
	unsigned long short_ns, long_ns, block_min_ns, block_max_ns;
	unsigned long outside_min_ns, outside_max_ns;
	/* -f: the file the blocking sections sync, or NULL to sleep. */
	const char *sync_path;
};

static struct config cfg = {
	.threads = 4,
	.ops = 20000,
	.weight_short = 90, .weight_long = 9, .weight_block = 1,
	.short_ns = 100,
	.long_ns = 20000,
	.block_min_ns = 100000, .block_max_ns = 1000000,
	.outside_min_ns = 500, .outside_max_ns = 500,
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* Operations handed out so far; each thread takes the next until ops. */
static long next_op;
/* A timed run is over: threads finish their operation and return. */
static bool stop;
/* Operations whose latency is kept: ops, or MAX_SAMPLES in a timed run. */
static long samples;
/* Lock acquisition latency of every operation, in ns. */
static uint64_t *latency_ns;
/* Busy-loop iterations per millisecond: calibrated, or given by -c. */
static unsigned long iterations_per_ms;
static long ops_done[MAX_THREADS];
/* Counts entries to the section: its exclusion is checked, not assumed. */
static long inside;
/* Sections in which the holder blocked; written under the lock. */
static long blocked;
/* -f: the open file, and a record to write to it. */
static int sync_fd = -1;
static char record[RECORD_SIZE];

static uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static uint64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

static void spin_iterations(unsigned long n)
{
	while (n--)
		__asm__ volatile("" ::: "memory");
}

/* Busy on the CPU for about @ns, without reading the clock. */
static void busy_ns(unsigned long ns)
{
	spin_iterations((unsigned __int128) ns * iterations_per_ms / 1000000);
}

/*
 * Against the thread's CPU time, not the wall clock: sections are CPU
 * work, which a co-runner (workloads/defs/multimodal-corunner.sh) only
 * stretches, as it would a real program's, and must not shorten by
 * taking the CPU during the calibration. The fastest of several trials:
 * whatever else runs can only slow a trial down.
 */
#define CALIBRATION_TRIALS	8
#define CALIBRATION_TRIAL_NS	4000000

/* The thread's CPU time, in ns, of @n iterations of the busy loop. */
static uint64_t iterations_cpu_ns(unsigned long n)
{
	uint64_t start = clock_ns(CLOCK_THREAD_CPUTIME_ID);

	spin_iterations(n);
	return clock_ns(CLOCK_THREAD_CPUTIME_ID) - start;
}

static unsigned long calibrate(void)
{
	unsigned long n = 1 << 16, best = 0, speed;
	uint64_t elapsed;
	int i;

	do
		n *= 2;
	while (iterations_cpu_ns(n) < CALIBRATION_TRIAL_NS);
	for (i = 0; i < CALIBRATION_TRIALS; i++) {
		elapsed = iterations_cpu_ns(n);
		speed = (unsigned __int128) n * 1000000 / (elapsed ? elapsed : 1);
		if (speed > best)
			best = speed;
	}
	return best ? best : 1;
}

static void sleep_ns(unsigned long ns)
{
	struct timespec ts = { .tv_sec = ns / 1000000000UL, .tv_nsec = ns % 1000000000UL };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* -f: an I/O error on the file ends the run; a short write is one. */
static void die_sync_file(const char *what)
{
	fprintf(stderr, "multimodal: %s %s: %s\n", what, cfg.sync_path,
		errno ? strerror(errno) : "short write");
	exit(1);
}

/* Called under the lock: blocked is also the record's slot. */
static void write_record(void)
{
	off_t offset = (off_t) (blocked % RECORD_SLOTS) * RECORD_SIZE;

	memcpy(record, &blocked, sizeof(blocked));
	errno = 0;
	if (pwrite(sync_fd, record, RECORD_SIZE, offset) != RECORD_SIZE)
		die_sync_file("write to");
	if (fdatasync(sync_fd))
		die_sync_file("fdatasync of");
}

static void open_sync_file(void)
{
	int i;

	sync_fd = open(cfg.sync_path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (sync_fd < 0)
		die_sync_file("open");
	errno = 0;
	for (i = 0; i < RECORD_SLOTS; i++)
		if (write(sync_fd, record, RECORD_SIZE) != RECORD_SIZE)
			die_sync_file("write to");
	if (fsync(sync_fd))
		die_sync_file("fsync of");
}

/* xorshift64: a per-thread stream of pseudo-random numbers. */
static uint64_t next_random(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

/* Uniform in [@min, @max] (parse_range() keeps max - min + 1 from wrapping). */
static unsigned long between(uint64_t *rng, unsigned long min, unsigned long max)
{
	if (min == max)
		return min;
	return min + next_random(rng) % (max - min + 1);
}

/* The holder leaves its CPU: it sleeps, or with -f waits for the disk. */
static void blocking_section(uint64_t *rng)
{
	if (sync_fd >= 0)
		write_record();
	else
		sleep_ns(between(rng, cfg.block_min_ns, cfg.block_max_ns));
	blocked++;
}

static void critical_section(uint64_t *rng)
{
	unsigned int total = cfg.weight_short + cfg.weight_long + cfg.weight_block;
	unsigned int pick = next_random(rng) % total;

	if (pick < cfg.weight_short)
		busy_ns(cfg.short_ns);
	else if (pick < cfg.weight_short + cfg.weight_long)
		busy_ns(cfg.long_ns);
	else
		blocking_section(rng);
}

static void *worker(void *arg)
{
	long id = (long) arg, op;
	uint64_t rng = 0x9e3779b97f4a7c15ULL * (id + 1);

	for (;;) {
		uint64_t start;

		if (cfg.duration_ns ? __atomic_load_n(&stop, __ATOMIC_RELAXED) :
				      __atomic_load_n(&next_op, __ATOMIC_RELAXED) >= cfg.ops)
			break;
		op = __atomic_fetch_add(&next_op, 1, __ATOMIC_RELAXED);
		if (!cfg.duration_ns && op >= cfg.ops)
			break;
		start = now_ns();
		pthread_mutex_lock(&lock);
		if (op < samples)
			latency_ns[op] = now_ns() - start;
		if (__atomic_fetch_add(&inside, 1, __ATOMIC_RELAXED)) {
			fprintf(stderr, "multimodal: two threads inside the critical section\n");
			abort();
		}
		critical_section(&rng);
		__atomic_fetch_sub(&inside, 1, __ATOMIC_RELAXED);
		pthread_mutex_unlock(&lock);
		ops_done[id]++;
		busy_ns(between(&rng, cfg.outside_min_ns, cfg.outside_max_ns));
	}
	return NULL;
}

static double seconds(struct timeval tv)
{
	return tv.tv_sec + tv.tv_usec / 1e6;
}

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s [-t THREADS] [-n OPS] [-m SHORT:LONG:BLOCK] [-s SHORT_NS] "
		"[-l LONG_US] [-b BLOCK_US[:MAX_US]] [-o OUTSIDE_NS[:MAX_NS]] [-d SECONDS] [-f FILE] "
		"[-c ITERATIONS_PER_MS]\n       %s -C\n",
		prog, prog);
	exit(2);
}

/* The number that @s starts with, ending at @end: '\0' or @separator. */
static unsigned long parse_number(const char *s, const char *prog, char separator, char **end)
{
	unsigned long v;

	errno = 0;
	v = strtoul(s, end, 10);
	if (errno || *end == s || s[0] == '-' || (**end && **end != separator))
		usage(prog);
	return v;
}

static unsigned long parse_ulong(const char *s, const char *prog)
{
	char *end;

	return parse_number(s, prog, '\0', &end);
}

/*
 * N, or MIN:MAX for a value drawn uniformly from that range, each at most
 * @limit.
 */
static void parse_range(const char *s, const char *prog, unsigned long limit,
			unsigned long *min, unsigned long *max)
{
	char *end;

	*min = parse_number(s, prog, ':', &end);
	*max = *end ? parse_ulong(end + 1, prog) : *min;
	if (*min > *max || *max > limit)
		usage(prog);
}

static void parse_args(int argc, char **argv)
{
	unsigned long lo, hi;
	double secs;
	char *end;
	int opt;

	while ((opt = getopt(argc, argv, "t:n:m:s:l:b:o:d:f:c:C")) != -1) {
		switch (opt) {
		case 't':
			cfg.threads = parse_ulong(optarg, argv[0]);
			break;
		case 'n':
			cfg.ops = parse_ulong(optarg, argv[0]);
			break;
		case 'm':
			if (sscanf(optarg, "%u:%u:%u", &cfg.weight_short, &cfg.weight_long,
				   &cfg.weight_block) != 3)
				usage(argv[0]);
			break;
		case 's':
			cfg.short_ns = parse_ulong(optarg, argv[0]);
			if (cfg.short_ns > MAX_RANGE_US * 1000)
				usage(argv[0]);
			break;
		case 'l':
			cfg.long_ns = parse_ulong(optarg, argv[0]);
			if (cfg.long_ns > MAX_RANGE_US)
				usage(argv[0]);
			cfg.long_ns *= 1000;
			break;
		case 'b':
			parse_range(optarg, argv[0], MAX_RANGE_US, &lo, &hi);
			cfg.block_min_ns = lo * 1000;
			cfg.block_max_ns = hi * 1000;
			break;
		case 'o':
			parse_range(optarg, argv[0], MAX_RANGE_US * 1000, &cfg.outside_min_ns,
				    &cfg.outside_max_ns);
			break;
		case 'd':
			secs = strtod(optarg, &end);
			if (end == optarg || *end || !(secs > 0 && secs < 1e6))
				usage(argv[0]);
			cfg.duration_ns = secs * 1e9;
			break;
		case 'f':
			cfg.sync_path = optarg;
			break;
		case 'c':
			iterations_per_ms = parse_ulong(optarg, argv[0]);
			if (!iterations_per_ms || iterations_per_ms > MAX_ITERATIONS_PER_MS)
				usage(argv[0]);
			break;
		case 'C':
			printf("iterations_per_ms=%lu\n", calibrate());
			exit(0);
		default:
			usage(argv[0]);
		}
	}
	if (cfg.threads < 1 || cfg.threads > MAX_THREADS || cfg.ops < 1 ||
	    !(cfg.weight_short + cfg.weight_long + cfg.weight_block)) {
		fprintf(stderr, "multimodal: need 1 to %d threads, at least one operation "
			"and a non-zero mix\n", MAX_THREADS);
		exit(2);
	}
}

int main(int argc, char **argv)
{
	pthread_t threads[MAX_THREADS];
	long i, done = 0, kept, min_ops = -1, max_ops = 0, rank[NR_RANKS];
	struct rusage usage_start, usage_end;
	uint64_t start, elapsed;
	double cpu;
	int ret;

	parse_args(argc, argv);
	samples = cfg.duration_ns ? MAX_SAMPLES : cfg.ops;
	latency_ns = calloc(samples, sizeof(*latency_ns));
	if (!latency_ns) {
		fprintf(stderr, "multimodal: out of memory for %ld samples\n", samples);
		return 1;
	}
	/*
	 * A sleep lasts what it asks for, not 50 us more: the default timer
	 * slack would stretch a 20 us sleep to about 85 us (threads inherit
	 * the slack).
	 */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	if (cfg.sync_path)
		open_sync_file();
	if (!iterations_per_ms)
		iterations_per_ms = calibrate();

	getrusage(RUSAGE_SELF, &usage_start);
	start = now_ns();
	for (i = 0; i < cfg.threads; i++) {
		ret = pthread_create(&threads[i], NULL, worker, (void *) i);
		if (ret) {
			fprintf(stderr, "multimodal: pthread_create: %s\n", strerror(ret));
			return 1;
		}
	}
	if (cfg.duration_ns) {
		sleep_ns(cfg.duration_ns);
		__atomic_store_n(&stop, true, __ATOMIC_RELAXED);
	}
	for (i = 0; i < cfg.threads; i++)
		pthread_join(threads[i], NULL);
	elapsed = now_ns() - start;
	getrusage(RUSAGE_SELF, &usage_end);
	cpu = seconds(usage_end.ru_utime) + seconds(usage_end.ru_stime) -
	      seconds(usage_start.ru_utime) - seconds(usage_start.ru_stime);

	for (i = 0; i < cfg.threads; i++) {
		done += ops_done[i];
		if (min_ops < 0 || ops_done[i] < min_ops)
			min_ops = ops_done[i];
		if (ops_done[i] > max_ops)
			max_ops = ops_done[i];
	}
	kept = done < samples ? done : samples;
	if (!kept) {
		fprintf(stderr, "multimodal: no operation completed\n");
		return 1;
	}
	select_per_mille(latency_ns, kept, rank_per_mille, NR_RANKS, rank);
	printf("threads=%d ops=%ld seconds=%.3f ops_per_sec=%.1f cpu_ns_per_op=%.0f p50_us=%.2f "
	       "p99_us=%.2f p999_us=%.2f max_us=%.2f min_thread_ops=%ld max_thread_ops=%ld "
	       "blocked=%ld iterations_per_ms=%lu\n",
	       cfg.threads, done, elapsed / 1e9, done * 1e9 / elapsed, cpu * 1e9 / done,
	       latency_ns[rank[0]] / 1e3, latency_ns[rank[1]] / 1e3, latency_ns[rank[2]] / 1e3,
	       latency_ns[rank[3]] / 1e3, min_ops, max_ops, blocked, iterations_per_ms);
	return 0;
}
