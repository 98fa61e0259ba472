// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The pthread mutex semantics a program sees, with or without
 * LD_PRELOAD=libadaptive.so, under any ADAPTIVE_POLICY: exclusion under
 * contention with owners that block or run long inside the critical
 * section, every mutex type, trylock, timedlock, clocklock, condition
 * variables, the kinds left to glibc (robust, PI, process-shared), fork
 * and thread churn. Run without the preload, it checks glibc itself and
 * thereby the tests.
 *
 * usage: mutex_semantics [NAME-SUBSTRING]
 *        mutex_semantics --starvation-scenario   (one case's own process)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <sys/wait.h>
#include <threads.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "handoff.h"

/* glibc's lock word of a PI mutex holds the owner's tid (FUTEX_TID_MASK). */
#define FUTEX_TID_MASK 0x3fffffff

static bool preloaded(void)
{
	const char *preload = getenv("LD_PRELOAD");

	return preload && strstr(preload, "libadaptive");
}

/* Every version of every mutex symbol binds to libadaptive iff preloaded. */
static void test_interposed_symbols(void)
{
	static const char *const symbols[][2] = {
		{ "pthread_mutex_lock", "GLIBC_2.2.5" },
		{ "pthread_mutex_unlock", "GLIBC_2.2.5" },
		{ "pthread_mutex_trylock", "GLIBC_2.2.5" },
		{ "pthread_mutex_trylock", "GLIBC_2.34" },
		{ "pthread_mutex_timedlock", "GLIBC_2.2.5" },
		{ "pthread_mutex_timedlock", "GLIBC_2.34" },
		{ "pthread_mutex_clocklock", "GLIBC_2.30" },
		{ "pthread_mutex_clocklock", "GLIBC_2.34" },
		{ "mtx_lock", "GLIBC_2.28" },
		{ "mtx_lock", "GLIBC_2.34" },
		{ "mtx_trylock", "GLIBC_2.28" },
		{ "mtx_trylock", "GLIBC_2.34" },
		{ "mtx_timedlock", "GLIBC_2.28" },
		{ "mtx_timedlock", "GLIBC_2.34" },
		{ "mtx_unlock", "GLIBC_2.28" },
		{ "mtx_unlock", "GLIBC_2.34" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(symbols); i++) {
		void *fn = dlvsym(RTLD_DEFAULT, symbols[i][0], symbols[i][1]);
		Dl_info info;

		CHECK(fn && dladdr(fn, &info), "%s@%s not found", symbols[i][0], symbols[i][1]);
		CHECK(!!strstr(info.dli_fname, "libadaptive") == preloaded(),
		      "%s@%s binds to %s", symbols[i][0], symbols[i][1], info.dli_fname);
	}
}

static void busy_us(unsigned int us)
{
	unsigned long long end = now_ns() + us * 1000ULL;

	while (now_ns() < end)
		;
}

/* Threads that take one mutex with sections of three kinds. */
struct exclusion {
	pthread_mutex_t *mutex;
	int loops;
	/* Every block_every-th section sleeps, every long_every-th spins. */
	int block_every, long_every;
	int inside;
	long counter;
	bool broken;
};

static void *exclusion_thread(void *arg)
{
	struct exclusion *x = arg;
	int i;

	for (i = 1; i <= x->loops; i++) {
		CHECK_OK(pthread_mutex_lock(x->mutex));
		if (__atomic_exchange_n(&x->inside, 1, __ATOMIC_RELAXED))
			x->broken = true;
		x->counter++;
		if (x->block_every && !(i % x->block_every))
			sleep_ms(1);
		else if (x->long_every && !(i % x->long_every))
			busy_us(20);
		__atomic_store_n(&x->inside, 0, __ATOMIC_RELAXED);
		CHECK_OK(pthread_mutex_unlock(x->mutex));
	}
	return NULL;
}

static void check_exclusion(pthread_mutex_t *mutex, int nr_threads, int loops, int block_every,
			    int long_every)
{
	struct exclusion x = { .mutex = mutex, .loops = loops, .block_every = block_every,
			       .long_every = long_every };
	pthread_t threads[16];
	int i;

	for (i = 0; i < nr_threads; i++)
		CHECK_OK(pthread_create(&threads[i], NULL, exclusion_thread, &x));
	for (i = 0; i < nr_threads; i++)
		CHECK_OK(pthread_join(threads[i], NULL));
	CHECK(!x.broken, "two threads were inside the critical section at once");
	CHECK(x.counter == (long) nr_threads * loops, "counter %ld, expected %ld", x.counter,
	      (long) nr_threads * loops);
}

static void init_mutex(pthread_mutex_t *m, int type, int protocol, int robust, int pshared)
{
	pthread_mutexattr_t attr;

	CHECK_OK(pthread_mutexattr_init(&attr));
	CHECK_OK(pthread_mutexattr_settype(&attr, type));
	CHECK_OK(pthread_mutexattr_setprotocol(&attr, protocol));
	CHECK_OK(pthread_mutexattr_setrobust(&attr, robust));
	CHECK_OK(pthread_mutexattr_setpshared(&attr, pshared));
	CHECK_OK(pthread_mutex_init(m, &attr));
	CHECK_OK(pthread_mutexattr_destroy(&attr));
}

static void init_typed(pthread_mutex_t *m, int type)
{
	init_mutex(m, type, PTHREAD_PRIO_NONE, PTHREAD_MUTEX_STALLED, PTHREAD_PROCESS_PRIVATE);
}

static void test_exclusion_blocking_and_long_owners(void)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

	check_exclusion(&m, 4, 1000, 97, 7);
}

static void test_exclusion_every_type(void)
{
	pthread_mutex_t statics[] = {
		PTHREAD_MUTEX_INITIALIZER,
		PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP,
		PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP,
		PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP,
	};
	static const int types[] = {
		PTHREAD_MUTEX_NORMAL, PTHREAD_MUTEX_RECURSIVE, PTHREAD_MUTEX_ERRORCHECK,
		PTHREAD_MUTEX_ADAPTIVE_NP, PTHREAD_MUTEX_DEFAULT,
	};
	pthread_mutex_t m;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(statics); i++)
		check_exclusion(&statics[i], 3, 2000, 0, 13);
	for (i = 0; i < ARRAY_SIZE(types); i++) {
		init_typed(&m, types[i]);
		check_exclusion(&m, 3, 2000, 0, 13);
		CHECK_OK(pthread_mutex_destroy(&m));
	}
}

static void test_exclusion_adaptive_np_blocking(void)
{
	pthread_mutex_t m = PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP;

	check_exclusion(&m, 4, 500, 50, 5);
}

/* A thread that holds @mutex for @hold_ms, then releases it. */
struct holder {
	pthread_mutex_t *mutex;
	/* How long the holder keeps the mutex; 0: until release is set. */
	unsigned int hold_ms;
	bool locked;
	bool release;
};

static void *holder_thread(void *arg)
{
	struct holder *h = arg;

	CHECK_OK(pthread_mutex_lock(h->mutex));
	__atomic_store_n(&h->locked, true, __ATOMIC_RELEASE);
	if (h->hold_ms)
		sleep_ms(h->hold_ms);
	else
		while (!__atomic_load_n(&h->release, __ATOMIC_ACQUIRE))
			sleep_ms(1);
	CHECK_OK(pthread_mutex_unlock(h->mutex));
	return NULL;
}

static pthread_t start_holder(struct holder *h)
{
	pthread_t thread;

	CHECK_OK(pthread_create(&thread, NULL, holder_thread, h));
	while (!__atomic_load_n(&h->locked, __ATOMIC_ACQUIRE))
		sleep_ms(1);
	return thread;
}

static struct timespec deadline_in(clockid_t clock, unsigned int ms)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

static void test_trylock(void)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER, e = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
	struct holder h = { .mutex = &m, .hold_ms = 100 };
	pthread_t thread;

	CHECK(pthread_mutex_trylock(&m) == 0, "free mutex");
	CHECK_OK(pthread_mutex_unlock(&m));
	thread = start_holder(&h);
	CHECK(pthread_mutex_trylock(&m) == EBUSY, "held mutex");
	CHECK_OK(pthread_join(thread, NULL));
	CHECK(pthread_mutex_trylock(&m) == 0, "released mutex");
	CHECK_OK(pthread_mutex_unlock(&m));
	CHECK_OK(pthread_mutex_lock(&e));
	CHECK(pthread_mutex_trylock(&e) == EBUSY, "error-checking relock by trylock");
	CHECK_OK(pthread_mutex_unlock(&e));
}

/* The compat version that binaries built before glibc 2.34 reference. */
static void test_trylock_compat_version(void)
{
	int (*trylock)(pthread_mutex_t *) = dlvsym(RTLD_DEFAULT, "pthread_mutex_trylock",
						   "GLIBC_2.2.5");
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	struct holder h = { .mutex = &m, .hold_ms = 50 };
	pthread_t thread;

	CHECK(trylock, "pthread_mutex_trylock@GLIBC_2.2.5 not found");
	thread = start_holder(&h);
	CHECK(trylock(&m) == EBUSY, "held mutex");
	CHECK_OK(pthread_join(thread, NULL));
	CHECK(trylock(&m) == 0, "free mutex");
	CHECK_OK(pthread_mutex_unlock(&m));
}

static void test_timedlock_times_out(void)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	struct holder h = { .mutex = &m, .hold_ms = 500 };
	pthread_t thread = start_holder(&h);
	struct timespec deadline = deadline_in(CLOCK_REALTIME, 50);
	unsigned long long start = now_ns();
	int ret = pthread_mutex_timedlock(&m, &deadline);

	CHECK(ret == ETIMEDOUT, "timedlock gave %d", ret);
	CHECK(now_ns() - start >= 40000000ULL, "timed out after %llu ns only", now_ns() - start);
	CHECK_OK(pthread_join(thread, NULL));
}

static void test_timedlock_gets_released_mutex(void)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	struct holder h = { .mutex = &m, .hold_ms = 30 };
	pthread_t thread = start_holder(&h);
	struct timespec deadline = deadline_in(CLOCK_REALTIME, 10000);

	CHECK(pthread_mutex_timedlock(&m, &deadline) == 0, "timedlock failed");
	CHECK_OK(pthread_mutex_unlock(&m));
	CHECK_OK(pthread_join(thread, NULL));
}

static void test_timedlock_bad_timespec(void)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	struct timespec negative = { .tv_sec = 1, .tv_nsec = -1 };
	struct timespec too_big = { .tv_sec = 1, .tv_nsec = 1000000000 };
	struct timespec before_epoch = { .tv_sec = -1, .tv_nsec = 0 };
	struct timespec past = { .tv_sec = 1, .tv_nsec = 0 };
	struct holder h = { .mutex = &m, .hold_ms = 200 };
	pthread_t thread;

	/* POSIX: EINVAL only if the call would block. */
	CHECK(pthread_mutex_timedlock(&m, &negative) == 0, "free mutex, bad timespec");
	CHECK_OK(pthread_mutex_unlock(&m));
	thread = start_holder(&h);
	CHECK(pthread_mutex_timedlock(&m, &negative) == EINVAL, "negative tv_nsec");
	CHECK(pthread_mutex_timedlock(&m, &too_big) == EINVAL, "tv_nsec of 1e9");
	CHECK(pthread_mutex_timedlock(&m, &before_epoch) == ETIMEDOUT, "negative tv_sec");
	CHECK(pthread_mutex_timedlock(&m, &past) == ETIMEDOUT, "deadline in the past");
	CHECK_OK(pthread_join(thread, NULL));
}

static void test_clocklock(void)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	struct timespec deadline = deadline_in(CLOCK_MONOTONIC, 1000);
	/* Held until both timeouts happened, however late this thread runs. */
	struct holder h = { .mutex = &m };
	pthread_t thread;

	CHECK(pthread_mutex_clocklock(&m, CLOCK_PROCESS_CPUTIME_ID, &deadline) == EINVAL,
	      "unsupported clock on a free mutex");
	CHECK(pthread_mutex_clocklock(&m, CLOCK_MONOTONIC, &deadline) == 0, "free mutex");
	CHECK_OK(pthread_mutex_unlock(&m));
	thread = start_holder(&h);
	deadline = deadline_in(CLOCK_MONOTONIC, 50);
	CHECK(pthread_mutex_clocklock(&m, CLOCK_MONOTONIC, &deadline) == ETIMEDOUT,
	      "CLOCK_MONOTONIC timeout");
	deadline = deadline_in(CLOCK_REALTIME, 50);
	CHECK(pthread_mutex_clocklock(&m, CLOCK_REALTIME, &deadline) == ETIMEDOUT,
	      "CLOCK_REALTIME timeout");
	__atomic_store_n(&h.release, true, __ATOMIC_RELEASE);
	CHECK_OK(pthread_join(thread, NULL));
}

static void *trylock_result(void *arg)
{
	int ret = pthread_mutex_trylock(arg);

	if (!ret)
		CHECK_OK(pthread_mutex_unlock(arg));
	return (void *) (intptr_t) ret;
}

/* pthread_mutex_trylock(@m) from another thread, which unlocks if it got it. */
static int trylock_elsewhere(pthread_mutex_t *m)
{
	pthread_t thread;
	void *ret;

	CHECK_OK(pthread_create(&thread, NULL, trylock_result, m));
	CHECK_OK(pthread_join(thread, &ret));
	return (intptr_t) ret;
}

static void *unlock_result(void *arg)
{
	return (void *) (intptr_t) pthread_mutex_unlock(arg);
}

static int unlock_elsewhere(pthread_mutex_t *m)
{
	pthread_t thread;
	void *ret;

	CHECK_OK(pthread_create(&thread, NULL, unlock_result, m));
	CHECK_OK(pthread_join(thread, &ret));
	return (intptr_t) ret;
}

static void test_recursive_semantics(void)
{
	pthread_mutex_t m;
	int i;

	init_typed(&m, PTHREAD_MUTEX_RECURSIVE);
	for (i = 0; i < 3; i++)
		CHECK_OK(pthread_mutex_lock(&m));
	CHECK(pthread_mutex_trylock(&m) == 0, "recursive trylock");
	CHECK(unlock_elsewhere(&m) == EPERM, "unlock by another thread");
	for (i = 0; i < 3; i++) {
		CHECK_OK(pthread_mutex_unlock(&m));
		CHECK(trylock_elsewhere(&m) == EBUSY, "released too early, at depth %d", 3 - i);
	}
	CHECK_OK(pthread_mutex_unlock(&m));
	CHECK(trylock_elsewhere(&m) == 0, "still held after the last unlock");
	CHECK(pthread_mutex_unlock(&m) == EPERM, "unlock of an unlocked recursive mutex");
}

static void test_errorcheck_semantics(void)
{
	pthread_mutex_t m;
	struct timespec deadline = deadline_in(CLOCK_REALTIME, 1000);

	init_typed(&m, PTHREAD_MUTEX_ERRORCHECK);
	CHECK(pthread_mutex_unlock(&m) == EPERM, "unlock of an unlocked mutex");
	CHECK_OK(pthread_mutex_lock(&m));
	CHECK(pthread_mutex_lock(&m) == EDEADLK, "relock");
	CHECK(pthread_mutex_timedlock(&m, &deadline) == EDEADLK, "timed relock");
	CHECK(unlock_elsewhere(&m) == EPERM, "unlock by another thread");
	CHECK_OK(pthread_mutex_unlock(&m));
	CHECK(trylock_elsewhere(&m) == 0, "not released");
}

static void *lock_and_exit(void *arg)
{
	CHECK_OK(pthread_mutex_lock(arg));
	return NULL;
}

static void test_robust_owner_died(void)
{
	pthread_mutex_t m;
	pthread_t thread;

	init_mutex(&m, PTHREAD_MUTEX_NORMAL, PTHREAD_PRIO_NONE, PTHREAD_MUTEX_ROBUST,
		   PTHREAD_PROCESS_PRIVATE);
	CHECK_OK(pthread_create(&thread, NULL, lock_and_exit, &m));
	CHECK_OK(pthread_join(thread, NULL));
	CHECK(pthread_mutex_lock(&m) == EOWNERDEAD, "the owner died holding it");
	CHECK_OK(pthread_mutex_consistent(&m));
	CHECK_OK(pthread_mutex_unlock(&m));
	CHECK_OK(pthread_mutex_lock(&m));
	CHECK_OK(pthread_mutex_unlock(&m));
}

static void test_priority_inheritance(void)
{
	pthread_mutex_t m;

	init_mutex(&m, PTHREAD_MUTEX_NORMAL, PTHREAD_PRIO_INHERIT, PTHREAD_MUTEX_STALLED,
		   PTHREAD_PROCESS_PRIVATE);
	CHECK_OK(pthread_mutex_lock(&m));
	CHECK((m.__data.__lock & FUTEX_TID_MASK) == gettid(),
	      "lock word %#x: not glibc's PI protocol", m.__data.__lock);
	CHECK_OK(pthread_mutex_unlock(&m));
	check_exclusion(&m, 3, 1000, 101, 11);
}

static void test_process_shared(void)
{
	struct shared {
		pthread_mutex_t mutex;
		long counter;
	} *s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int i, status, loops = 20000;
	pid_t pid;

	CHECK(s != MAP_FAILED, "mmap: %m");
	init_mutex(&s->mutex, PTHREAD_MUTEX_NORMAL, PTHREAD_PRIO_NONE, PTHREAD_MUTEX_STALLED,
		   PTHREAD_PROCESS_SHARED);
	pid = fork();
	CHECK_SYS(pid);
	for (i = 0; i < loops; i++) {
		if (pthread_mutex_lock(&s->mutex))
			test_fail("lock");
		s->counter++;
		if (pthread_mutex_unlock(&s->mutex))
			test_fail("unlock");
	}
	if (!pid)
		_exit(0);
	CHECK_SYS(waitpid(pid, &status, 0));
	CHECK(WIFEXITED(status) && !WEXITSTATUS(status), "child: wait status %#x", status);
	CHECK(s->counter == 2L * loops, "counter %ld, expected %d", s->counter, 2 * loops);
}

/* A producer-consumer queue on a condition variable. */
struct queue {
	pthread_mutex_t mutex;
	pthread_cond_t cond;
	long items, consumed, sum;
	int producers_left;
};

#define QUEUE_ITEMS 5000

static void *producer(void *arg)
{
	struct queue *q = arg;
	int i;

	for (i = 1; i <= QUEUE_ITEMS; i++) {
		CHECK_OK(pthread_mutex_lock(&q->mutex));
		q->items++;
		q->sum += i;
		CHECK_OK(pthread_cond_signal(&q->cond));
		CHECK_OK(pthread_mutex_unlock(&q->mutex));
	}
	CHECK_OK(pthread_mutex_lock(&q->mutex));
	q->producers_left--;
	CHECK_OK(pthread_cond_broadcast(&q->cond));
	CHECK_OK(pthread_mutex_unlock(&q->mutex));
	return NULL;
}

static void *consumer(void *arg)
{
	struct queue *q = arg;

	CHECK_OK(pthread_mutex_lock(&q->mutex));
	for (;;) {
		while (!q->items && q->producers_left)
			CHECK_OK(pthread_cond_wait(&q->cond, &q->mutex));
		if (!q->items)
			break;
		q->items--;
		q->consumed++;
	}
	CHECK_OK(pthread_mutex_unlock(&q->mutex));
	return NULL;
}

static void test_condvar_producer_consumer(void)
{
	struct queue q = { .mutex = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER,
			   .producers_left = 2 };
	pthread_t threads[4];
	int i;

	for (i = 0; i < 2; i++)
		CHECK_OK(pthread_create(&threads[i], NULL, producer, &q));
	for (i = 2; i < 4; i++)
		CHECK_OK(pthread_create(&threads[i], NULL, consumer, &q));
	for (i = 0; i < 4; i++)
		CHECK_OK(pthread_join(threads[i], NULL));
	CHECK(q.consumed == 2 * QUEUE_ITEMS && q.sum == 2L * QUEUE_ITEMS * (QUEUE_ITEMS + 1) / 2,
	      "consumed %ld items", q.consumed);
}

struct gate {
	pthread_mutex_t mutex;
	pthread_cond_t cond;
	bool open;
	int waiting, passed;
};

static void *gate_waiter(void *arg)
{
	struct gate *g = arg;

	CHECK_OK(pthread_mutex_lock(&g->mutex));
	g->waiting++;
	while (!g->open)
		CHECK_OK(pthread_cond_wait(&g->cond, &g->mutex));
	g->passed++;
	CHECK_OK(pthread_mutex_unlock(&g->mutex));
	return NULL;
}

static void test_condvar_broadcast(void)
{
	struct gate g = { .mutex = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };
	pthread_t threads[8];
	int i, waiting = 0;

	for (i = 0; i < 8; i++)
		CHECK_OK(pthread_create(&threads[i], NULL, gate_waiter, &g));
	while (waiting < 8) {
		sleep_ms(1);
		CHECK_OK(pthread_mutex_lock(&g.mutex));
		waiting = g.waiting;
		CHECK_OK(pthread_mutex_unlock(&g.mutex));
	}
	CHECK_OK(pthread_mutex_lock(&g.mutex));
	g.open = true;
	CHECK_OK(pthread_cond_broadcast(&g.cond));
	CHECK_OK(pthread_mutex_unlock(&g.mutex));
	for (i = 0; i < 8; i++)
		CHECK_OK(pthread_join(threads[i], NULL));
	CHECK(g.passed == 8, "%d of 8 waiters passed", g.passed);
}

/*
 * glibc's condition variable retakes the mutex with its internal
 * functions: the mutex must come back locked and owned, for every type.
 */
static void check_timedwait_returns_owned(int type)
{
	pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
	struct timespec deadline = deadline_in(CLOCK_REALTIME, 30);
	pthread_mutex_t m;

	init_typed(&m, type);
	CHECK_OK(pthread_mutex_lock(&m));
	CHECK(pthread_cond_timedwait(&cond, &m, &deadline) == ETIMEDOUT, "timedwait");
	CHECK(trylock_elsewhere(&m) == EBUSY, "type %d: not locked after timedwait", type);
	if (type == PTHREAD_MUTEX_ERRORCHECK)
		CHECK(pthread_mutex_lock(&m) == EDEADLK, "not owned after timedwait");
	CHECK_OK(pthread_mutex_unlock(&m));
	CHECK(trylock_elsewhere(&m) == 0, "type %d: not released", type);
}

static void test_condvar_timedwait_every_type(void)
{
	check_timedwait_returns_owned(PTHREAD_MUTEX_NORMAL);
	check_timedwait_returns_owned(PTHREAD_MUTEX_RECURSIVE);
	check_timedwait_returns_owned(PTHREAD_MUTEX_ERRORCHECK);
	check_timedwait_returns_owned(PTHREAD_MUTEX_ADAPTIVE_NP);
}

/* Waiters on a condvar contend for the mutex with threads using lock(). */
static void *condvar_churn(void *arg)
{
	struct queue *q = arg;
	int i;

	for (i = 0; i < 2000; i++) {
		CHECK_OK(pthread_mutex_lock(&q->mutex));
		q->items++;
		if (q->items % 2)
			CHECK_OK(pthread_cond_signal(&q->cond));
		else
			CHECK_OK(pthread_cond_wait(&q->cond, &q->mutex));
		CHECK_OK(pthread_mutex_unlock(&q->mutex));
	}
	CHECK_OK(pthread_mutex_lock(&q->mutex));
	q->producers_left--;
	CHECK_OK(pthread_cond_broadcast(&q->cond));
	CHECK_OK(pthread_mutex_unlock(&q->mutex));
	return NULL;
}

static void *condvar_waker(void *arg)
{
	struct queue *q = arg;
	bool done = false;

	while (!done) {
		CHECK_OK(pthread_mutex_lock(&q->mutex));
		CHECK_OK(pthread_cond_broadcast(&q->cond));
		done = !q->producers_left;
		CHECK_OK(pthread_mutex_unlock(&q->mutex));
	}
	return NULL;
}

static void test_condvar_mixed_with_lock(void)
{
	struct queue q = { .mutex = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER,
			   .producers_left = 3 };
	pthread_t threads[4];
	int i;

	for (i = 0; i < 3; i++)
		CHECK_OK(pthread_create(&threads[i], NULL, condvar_churn, &q));
	CHECK_OK(pthread_create(&threads[3], NULL, condvar_waker, &q));
	for (i = 0; i < 4; i++)
		CHECK_OK(pthread_join(threads[i], NULL));
	CHECK(q.items == 3 * 2000, "items %ld", q.items);
	CHECK(trylock_elsewhere(&q.mutex) == 0, "mutex left locked");
}

static void *fork_hammer(void *arg)
{
	struct exclusion *x = arg;

	exclusion_thread(x);
	return NULL;
}

/* A child's exit status, 0 when the child exited 0 within @seconds. */
static int child_result(pid_t pid, unsigned int seconds)
{
	unsigned long long deadline = now_ns() + seconds * 1000000000ULL;
	int status;
	pid_t got;

	while ((got = waitpid(pid, &status, WNOHANG)) == 0 && now_ns() < deadline)
		sleep_ms(5);
	if (!got) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		return -1;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/*
 * fork() while holding @m, so that the child's copy is consistent: the
 * child releases it, runs @child on it and exits with its result (2 if
 * the release failed); returns that result, as child_result() does.
 */
static int fork_holding(pthread_mutex_t *m, int (*child)(pthread_mutex_t *))
{
	pid_t pid;

	CHECK_OK(pthread_mutex_lock(m));
	pid = fork();
	CHECK_SYS(pid);
	if (!pid)
		_exit(pthread_mutex_unlock(m) ? 2 : child(m));
	CHECK_OK(pthread_mutex_unlock(m));
	return child_result(pid, 30);
}

/* Three threads of the child hammer @m: 0, or 3 and 4 for failures. */
static int child_hammers(pthread_mutex_t *m)
{
	struct exclusion cx = { .mutex = m, .loops = 2000, .long_every = 50 };
	pthread_t cthreads[3];
	int j;

	for (j = 0; j < 3; j++)
		if (pthread_create(&cthreads[j], NULL, exclusion_thread, &cx))
			return 3;
	for (j = 0; j < 3; j++)
		pthread_join(cthreads[j], NULL);
	return cx.broken || cx.counter != 3 * 2000 ? 4 : 0;
}

/* fork() while other threads hammer a mutex; the child uses it afterwards. */
static void test_fork_from_multithreaded(void)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	struct exclusion x = { .mutex = &m, .loops = 20000 };
	pthread_t threads[3];
	int i, result;

	for (i = 0; i < 3; i++)
		CHECK_OK(pthread_create(&threads[i], NULL, fork_hammer, &x));
	for (i = 0; i < 5; i++) {
		sleep_ms(2);
		result = fork_holding(&m, child_hammers);
		CHECK(result == 0, "child %d: result %d", i, result);
	}
	for (i = 0; i < 3; i++)
		CHECK_OK(pthread_join(threads[i], NULL));
	CHECK(!x.broken && x.counter == 3L * 20000, "parent counter %ld", x.counter);
}

/* 2000 lock/unlock pairs alone: 0 within 500 ms, else 1. */
static int child_locks_alone(pthread_mutex_t *m)
{
	unsigned long long start = now_ns();
	int j;

	for (j = 0; j < 2000; j++) {
		pthread_mutex_lock(m);
		pthread_mutex_unlock(m);
	}
	/* glibc: well under 1 ms; a wait per pair: seconds. */
	return now_ns() - start < 500000000ULL ? 0 : 1;
}

/*
 * Fork while waiters that often sleep in the critical section contend
 * for the mutex the forking thread holds: the child, alone, must lock
 * and unlock it as fast as without waiters. A child that inherited the
 * parent's heir would have the lock granted to a thread it does not have.
 */
static void test_fork_child_has_no_parent_waiters(void)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	struct exclusion x = { .mutex = &m, .loops = 400, .block_every = 1 };
	pthread_t threads[4];
	int i, result;

	for (i = 0; i < 4; i++)
		CHECK_OK(pthread_create(&threads[i], NULL, exclusion_thread, &x));
	for (i = 0; i < 10; i++) {
		sleep_ms(20);
		result = fork_holding(&m, child_locks_alone);
		CHECK(result == 0, "child %d: %s", i,
		      result == 1 ? "2000 lock/unlock pairs took over 500 ms" : "failed or hung");
	}
	for (i = 0; i < 4; i++)
		CHECK_OK(pthread_join(threads[i], NULL));
	CHECK(!x.broken && x.counter == 4L * 400, "parent counter %ld", x.counter);
}

/*
 * What glibc's condition variable checks of an error-checking mutex
 * locked through libadaptive: the owner is the caller, as glibc knows
 * it. Exit status 0 if so, else which step failed.
 */
static int errorcheck_timedwait(void)
{
	pthread_mutex_t m;
	pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
	struct timespec deadline = deadline_in(CLOCK_REALTIME, 10);
	pthread_mutexattr_t attr;
	int ret;

	pthread_mutexattr_init(&attr);
	pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ERRORCHECK);
	pthread_mutex_init(&m, &attr);
	if (pthread_mutex_lock(&m))
		return 10;
	ret = pthread_cond_timedwait(&cond, &m, &deadline);
	if (ret)
		return ret == ETIMEDOUT ? (pthread_mutex_unlock(&m) ? 12 : 0) : 11;
	return 13;
}

static const char *errorcheck_timedwait_failure(int result)
{
	switch (result) {
	case 10:
		return "lock failed";
	case 11:
		return "pthread_cond_timedwait did not time out (EPERM: owner is not the caller)";
	case 12:
		return "unlock after the wait failed";
	case 13:
		return "pthread_cond_timedwait returned 0";
	default:
		return "the child failed or hung";
	}
}

static void check_child_errorcheck_timedwait(const char *how, pid_t pid)
{
	int result;

	CHECK_SYS(pid);
	if (!pid)
		_exit(errorcheck_timedwait());
	result = child_result(pid, 30);
	CHECK(result == 0, "%s: %s", how, errorcheck_timedwait_failure(result));
}

/* A mutex operation in this thread, so that the library knows it. */
static void use_library(void)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

	CHECK_OK(pthread_mutex_lock(&m));
	CHECK_OK(pthread_mutex_unlock(&m));
}

static int atfork_child_result = -1;

static void atfork_child_locks(void)
{
	atfork_child_result = errorcheck_timedwait();
}

/* fork() children, atfork handlers among them, and _Fork() children. */
static void test_fork_child_is_its_own_owner(void)
{
	int result;
	pid_t pid;

	use_library();
	check_child_errorcheck_timedwait("fork()", fork());
	check_child_errorcheck_timedwait("_Fork()", _Fork());

	/* A handler registered now runs after any the library might have. */
	CHECK_OK(pthread_atfork(NULL, NULL, atfork_child_locks));
	pid = fork();
	CHECK_SYS(pid);
	if (!pid)
		_exit(atfork_child_result);
	result = child_result(pid, 30);
	CHECK(result == 0, "in an atfork child handler: %s", errorcheck_timedwait_failure(result));
}

static void *vfork_thread(void *arg)
{
	bool used = *(bool *) arg;
	pid_t pid;

	if (used)
		use_library();
	pid = vfork();
	if (!pid)
		_exit(errorcheck_timedwait());
	return (void *) (long) (pid < 0 ? -1 : child_result(pid, 30));
}

/*
 * vfork() children run on their parent thread's memory and glibc
 * descriptor: the owner glibc checks is the parent thread's id. A
 * thread that never used the library must not be set up in the child,
 * which would write into the parent.
 */
static void test_vfork_child_is_its_own_owner(void)
{
	bool used[] = { false, true };
	pthread_t thread;
	void *result;
	int i;

	for (i = 0; i < 2; i++) {
		CHECK_OK(pthread_create(&thread, NULL, vfork_thread, &used[i]));
		CHECK_OK(pthread_join(thread, &result));
		CHECK(result == 0, "vfork() from a thread that %s the library: %s",
		      used[i] ? "used" : "never used", errorcheck_timedwait_failure((long) result));
		/* The parent thread's own use of the library still works. */
		CHECK_OK(pthread_create(&thread, NULL, vfork_thread, &used[1]));
		CHECK_OK(pthread_join(thread, &result));
		CHECK(result == 0, "vfork() after vfork(): %s",
		      errorcheck_timedwait_failure((long) result));
	}
}

static int mtx_elsewhere_result;

static void *mtx_trylock_thread(void *arg)
{
	mtx_elsewhere_result = mtx_trylock(arg);
	if (mtx_elsewhere_result == thrd_success)
		mtx_unlock(arg);
	return NULL;
}

static int mtx_trylock_elsewhere(mtx_t *m)
{
	pthread_t thread;

	CHECK_OK(pthread_create(&thread, NULL, mtx_trylock_thread, m));
	CHECK_OK(pthread_join(thread, NULL));
	return mtx_elsewhere_result;
}

static void *mtx_timedlock_thread(void *arg)
{
	struct timespec deadline = deadline_in(CLOCK_REALTIME, 20);

	mtx_elsewhere_result = mtx_timedlock(arg, &deadline);
	return NULL;
}

/* C11 mutexes: the results of <threads.h>, from glibc or from us. */
static void test_c11_mtx(void)
{
	struct timespec deadline = deadline_in(CLOCK_REALTIME, 1000);
	mtx_t m, r;
	pthread_t thread;

	CHECK(mtx_init(&m, mtx_timed) == thrd_success, "mtx_init(mtx_timed)");
	CHECK(mtx_init(&r, mtx_plain | mtx_recursive) == thrd_success, "mtx_init(recursive)");
	CHECK(mtx_lock(&m) == thrd_success, "mtx_lock");
	CHECK(mtx_trylock_elsewhere(&m) == thrd_busy, "mtx_trylock of a held mutex");
	CHECK_OK(pthread_create(&thread, NULL, mtx_timedlock_thread, &m));
	CHECK_OK(pthread_join(thread, NULL));
	CHECK(mtx_elsewhere_result == thrd_timedout, "mtx_timedlock: %d, not thrd_timedout",
	      mtx_elsewhere_result);
	CHECK(mtx_unlock(&m) == thrd_success, "mtx_unlock");
	CHECK(mtx_timedlock(&m, &deadline) == thrd_success, "mtx_timedlock of a free mutex");
	CHECK(mtx_unlock(&m) == thrd_success, "mtx_unlock");
	CHECK(mtx_trylock_elsewhere(&m) == thrd_success, "mtx_trylock of a free mutex");

	CHECK(mtx_lock(&r) == thrd_success && mtx_lock(&r) == thrd_success, "recursive relock");
	CHECK(mtx_trylock(&r) == thrd_success, "recursive trylock");
	CHECK(mtx_trylock_elsewhere(&r) == thrd_busy, "held recursive mutex taken elsewhere");
	CHECK(mtx_unlock(&r) == thrd_success && mtx_unlock(&r) == thrd_success &&
	      mtx_unlock(&r) == thrd_success, "recursive unlocks");
	CHECK(mtx_trylock_elsewhere(&r) == thrd_success, "recursive mutex still held");

	/* Exclusion through mtx_t, as a pthread_mutex_t under contention. */
	check_exclusion((pthread_mutex_t *) &m, 4, 2000, 100, 7);
	mtx_destroy(&m);
	mtx_destroy(&r);
}

/*
 * A signal handler that locks while the library sets the thread up on
 * its first use: here synchronously, a seccomp trap on gettid(), which
 * the set-up calls (as a sandbox's SIGSYS handler would run). The
 * handler answers in the system call's place and locks a mutex; the
 * thread's own first lock must then work, with the handler's nested.
 */
static pid_t sigsys_tid;
static int sigsys_filter_errno;
static pthread_mutex_t sigsys_mutex = PTHREAD_MUTEX_INITIALIZER;
static int sigsys_traps, sigsys_failures;

static void sigsys_handler(int sig, siginfo_t *info, void *context)
{
	ucontext_t *uc = context;

	uc->uc_mcontext.gregs[REG_RAX] = sigsys_tid;
	sigsys_traps++;
	sigsys_failures += pthread_mutex_lock(&sigsys_mutex) != 0;
	sigsys_failures += pthread_mutex_unlock(&sigsys_mutex) != 0;
}

/* A seccomp filter that answers system call @nr with @action; 0 or -1. */
static int seccomp_filter_call(long nr, uint32_t action)
{
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, action),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = ARRAY_SIZE(filter), .filter = filter };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

static int trap_gettid(void)
{
	return seccomp_filter_call(SYS_gettid, SECCOMP_RET_TRAP);
}

static void *sigsys_first_lock(void *arg)
{
	pthread_mutex_t m;
	long failures = 0;

	sigsys_tid = gettid();
	if (trap_gettid()) {
		sigsys_filter_errno = errno;
		return (void *) -1L;
	}
	init_typed(&m, PTHREAD_MUTEX_ERRORCHECK);
	failures += pthread_mutex_lock(&m) != 0;
	failures += pthread_mutex_lock(&m) != EDEADLK;
	failures += pthread_mutex_unlock(&m) != 0;
	return (void *) failures;
}

static void test_signal_handler_locks_during_first_use(void)
{
	struct sigaction sa = { .sa_sigaction = sigsys_handler, .sa_flags = SA_SIGINFO };
	pthread_t thread;
	void *failures;

	CHECK_SYS(sigaction(SIGSYS, &sa, NULL));
	CHECK_OK(pthread_create(&thread, NULL, sigsys_first_lock, NULL));
	CHECK_OK(pthread_join(thread, &failures));
	if (failures == (void *) -1L)
		test_skip("no seccomp filter: %s", strerror(sigsys_filter_errno));
	CHECK(!failures, "%ld of the thread's own calls failed", (long) failures);
	CHECK(!sigsys_failures, "%d of the handler's calls failed", sigsys_failures);
	if (preloaded() && !sigsys_traps && getenv("ADAPTIVE_POLICY") &&
	    strcmp(getenv("ADAPTIVE_POLICY"), "glibc"))
		test_fail("the set-up made no gettid() call to trap: the test tests nothing");
}

struct churn {
	pthread_mutex_t mutexes[2];
	long counters[2];
};

static void *churn_thread(void *arg)
{
	struct churn *c = arg;
	int i;

	for (i = 0; i < 20; i++) {
		CHECK_OK(pthread_mutex_lock(&c->mutexes[i % 2]));
		c->counters[i % 2]++;
		CHECK_OK(pthread_mutex_unlock(&c->mutexes[i % 2]));
	}
	return NULL;
}

/* Thousands of short-lived threads: tids get reused, states must follow. */
static void test_thread_churn(void)
{
	struct churn c = { .mutexes = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER } };
	pthread_t threads[8];
	int round, i;

	for (round = 0; round < 300; round++) {
		for (i = 0; i < 8; i++)
			CHECK_OK(pthread_create(&threads[i], NULL, churn_thread, &c));
		for (i = 0; i < 8; i++)
			CHECK_OK(pthread_join(threads[i], NULL));
	}
	CHECK(c.counters[0] == 300L * 8 * 10 && c.counters[1] == 300L * 8 * 10,
	      "counters %ld %ld", c.counters[0], c.counters[1]);
}

static void test_errno_preserved(void)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	struct holder h = { .mutex = &m, .hold_ms = 20 };
	pthread_t thread = start_holder(&h);
	struct timespec deadline;

	errno = 4321;
	CHECK_OK(pthread_mutex_lock(&m));
	CHECK(errno == 4321, "contended lock changed errno to %d", errno);
	CHECK_OK(pthread_mutex_unlock(&m));
	CHECK_OK(pthread_join(thread, NULL));
	h.locked = false;
	thread = start_holder(&h);
	deadline = deadline_in(CLOCK_REALTIME, 1);
	errno = 4321;
	CHECK(pthread_mutex_timedlock(&m, &deadline) == ETIMEDOUT, "timedlock");
	CHECK(errno == 4321, "timed-out lock changed errno to %d", errno);
	CHECK_OK(pthread_join(thread, NULL));
}

/*
 * After the release, an unlock may touch the mutex only through the
 * futex system call (glibc bug 13690): the woken waiter may take the
 * lock, release it, destroy the mutex and unmap its memory before the
 * unlocker runs again. A SCHED_FIFO waiter on the unlocker's CPU makes
 * that happen at once.
 */
struct unmapper {
	pthread_mutex_t *mutex;
	int cpu;
	bool ready;
	int result;
};

static void pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	CHECK_OK(pthread_setaffinity_np(pthread_self(), sizeof(set), &set));
}

static void *unmapper_thread(void *arg)
{
	struct unmapper *u = arg;
	struct sched_param param = { .sched_priority = 1 };

	pin_to(u->cpu);
	u->result = pthread_setschedparam(pthread_self(), SCHED_FIFO, &param);
	__atomic_store_n(&u->ready, true, __ATOMIC_RELEASE);
	if (u->result)
		return NULL;
	CHECK_OK(pthread_mutex_lock(u->mutex));
	CHECK_OK(pthread_mutex_unlock(u->mutex));
	CHECK_OK(pthread_mutex_destroy(u->mutex));
	CHECK_SYS(munmap(u->mutex, 4096));
	return NULL;
}

static void test_unlock_leaves_mutex_after_release(void)
{
	struct unmapper u = { .cpu = sched_getcpu() };
	pthread_t thread;
	int i;

	CHECK_SYS(u.cpu);
	pin_to(u.cpu);
	for (i = 0; i < 20; i++) {
		u.mutex = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);
		CHECK(u.mutex != MAP_FAILED, "mmap: %s", strerror(errno));
		CHECK_OK(pthread_mutex_init(u.mutex, NULL));
		CHECK_OK(pthread_mutex_lock(u.mutex));
		u.ready = false;
		CHECK_OK(pthread_create(&thread, NULL, unmapper_thread, &u));
		while (!__atomic_load_n(&u.ready, __ATOMIC_ACQUIRE))
			sleep_ms(1);
		if (u.result) {
			CHECK_OK(pthread_mutex_unlock(u.mutex));
			CHECK_OK(pthread_join(thread, NULL));
			test_skip("SCHED_FIFO refused: %s", strerror(u.result));
		}
		/* The waiter queued: it made the word 2, and sleeps. */
		while (__atomic_load_n(&u.mutex->__data.__lock, __ATOMIC_RELAXED) != 2)
			sleep_ms(1);
		sleep_ms(2);
		CHECK_OK(pthread_mutex_unlock(u.mutex));
		CHECK_OK(pthread_join(thread, NULL));
	}
}

static void test_reinit_as_other_type(void)
{
	pthread_mutex_t m;

	init_typed(&m, PTHREAD_MUTEX_NORMAL);
	CHECK_OK(pthread_mutex_lock(&m));
	CHECK_OK(pthread_mutex_unlock(&m));
	CHECK_OK(pthread_mutex_destroy(&m));
	init_typed(&m, PTHREAD_MUTEX_RECURSIVE);
	CHECK_OK(pthread_mutex_lock(&m));
	CHECK_OK(pthread_mutex_lock(&m));
	CHECK_OK(pthread_mutex_unlock(&m));
	CHECK_OK(pthread_mutex_unlock(&m));
	CHECK_OK(pthread_mutex_destroy(&m));
}

/*
 * The handoff, white-box (preload/handoff.h), with
 * ADAPTIVE_STARVE_US=100000 (test_starving_waiter_gets_handoff): a
 * waiter that waited past the bound becomes the mutex's heir, and the
 * next unlock grants it the lock rather than releasing it.
 */
struct heir_run {
	pthread_mutex_t mutex;
	/* The CPU that the victim shares with the main thread. */
	int cpu;
	/* The victim's timedlock deadline (CLOCK_REALTIME), or none. */
	const struct timespec *deadline;
	/* How long the victim holds the lock it got, in ms. */
	unsigned int hold_ms;
	int result;
	bool done;
	bool got_it;
};

/*
 * The victim runs on the main thread's CPU under SCHED_IDLE: it runs
 * only while the main thread sleeps, so that the main thread's unlock
 * and relock never race with its wake-up, which under TCG they would
 * often lose (the unlock's futex_wake returns late).
 */
static void *heir_victim(void *arg)
{
	struct heir_run *r = arg;
	struct sched_param param = { .sched_priority = 0 };

	pin_to(r->cpu);
	CHECK_OK(pthread_setschedparam(pthread_self(), SCHED_IDLE, &param));
	r->result = r->deadline ? pthread_mutex_timedlock(&r->mutex, r->deadline) :
				  pthread_mutex_lock(&r->mutex);
	if (!r->result) {
		__atomic_store_n(&r->got_it, true, __ATOMIC_RELEASE);
		sleep_ms(r->hold_ms);
		CHECK_OK(pthread_mutex_unlock(&r->mutex));
	}
	__atomic_store_n(&r->done, true, __ATOMIC_RELEASE);
	return NULL;
}

static uint32_t heir_word_of(pthread_mutex_t *m)
{
	return __atomic_load_n(heir_word(m), __ATOMIC_ACQUIRE);
}

/* The process epoch's share of the heir word, as a real heir wrote it. */
static uint32_t heir_epoch_bits;

static void finish_victim(struct heir_run *r, pthread_t victim)
{
	CHECK_OK(pthread_mutex_unlock(&r->mutex));
	CHECK_OK(pthread_join(victim, NULL));
}

/* Take @r's mutex, and start the victim on it, on the caller's CPU. */
static void start_victim(struct heir_run *r, pthread_t *victim)
{
	r->cpu = sched_getcpu();
	CHECK_SYS(r->cpu);
	pin_to(r->cpu);
	CHECK_OK(pthread_mutex_lock(&r->mutex));
	CHECK_OK(pthread_create(victim, NULL, heir_victim, r));
}

/*
 * Unlock and relock @r's mutex, overtaking the victim if the unlock woke
 * it. False, the victim gone, if it got the lock, which it may: the
 * overtaking races with its wake-up.
 */
static bool overtake(struct heir_run *r, pthread_t victim)
{
	CHECK_OK(pthread_mutex_unlock(&r->mutex));
	CHECK_OK(pthread_mutex_lock(&r->mutex));
	if (!__atomic_load_n(&r->got_it, __ATOMIC_ACQUIRE))
		return true;
	finish_victim(r, victim);
	return false;
}

/*
 * Start the victim on @r's mutex, and overtake it every 20 ms until it
 * claims the heir word. True with the caller holding the lock and the
 * victim the heir; false, the victim gone, if it got the lock.
 */
static bool make_heir(struct heir_run *r, pthread_t *victim)
{
	unsigned long long deadline = now_ns() + 5000000000ULL;

	start_victim(r, victim);
	for (;;) {
		sleep_ms(20);
		if ((heir_word_of(&r->mutex) & HEIR_STATE_MASK) || now_ns() > deadline)
			break;
		if (!overtake(r, *victim))
			return false;
	}
	CHECK((heir_word_of(&r->mutex) & HEIR_STATE_MASK) == HEIR_WAITING,
	      "the victim did not become the heir in 5 s: heir word %#x", heir_word_of(&r->mutex));
	heir_epoch_bits = heir_word_of(&r->mutex) & ~HEIR_STATE_MASK;
	return true;
}

/*
 * The unlock grants the lock to the heir: the word stays taken, so a
 * trylock right after it fails while the victim, which holds the lock
 * 200 ms, has not even run yet; the victim clears the heir word.
 */
static bool try_heir_is_granted(void)
{
	struct heir_run r = { .mutex = PTHREAD_MUTEX_INITIALIZER, .hold_ms = 200 };
	pthread_t victim;
	int ret;

	if (!make_heir(&r, &victim))
		return false;
	CHECK_OK(pthread_mutex_unlock(&r.mutex));
	ret = pthread_mutex_trylock(&r.mutex);
	CHECK(ret == EBUSY, "trylock after the granting unlock returned %d, not EBUSY", ret);
	CHECK_OK(pthread_join(victim, NULL));
	CHECK(r.got_it && !r.result, "victim: %d", r.result);
	CHECK(heir_word_of(&r.mutex) == 0, "heir word %#x left", heir_word_of(&r.mutex));
	return true;
}

/*
 * An heir whose deadline passes gives the heir word up and times out;
 * the next unlock then releases the lock, granting it to nobody.
 */
static bool try_heir_resigns_at_deadline(void)
{
	struct heir_run r = { .mutex = PTHREAD_MUTEX_INITIALIZER };
	struct timespec deadline = deadline_in(CLOCK_REALTIME, 600);
	pthread_t victim;

	r.deadline = &deadline;
	if (!make_heir(&r, &victim))
		return false;
	while (!__atomic_load_n(&r.done, __ATOMIC_ACQUIRE))
		sleep_ms(10);
	CHECK(r.result == ETIMEDOUT, "the heir's timedlock returned %d", r.result);
	CHECK(heir_word_of(&r.mutex) == 0, "heir word %#x left", heir_word_of(&r.mutex));
	CHECK_OK(pthread_mutex_unlock(&r.mutex));
	CHECK(!pthread_mutex_trylock(&r.mutex), "the lock was granted to a gone heir");
	CHECK_OK(pthread_mutex_unlock(&r.mutex));
	CHECK_OK(pthread_join(victim, NULL));
	return true;
}

/*
 * A condition variable releases the mutex inside glibc, which grants
 * nothing: the release wakes the heir, which sleeps on the lock word
 * too, and which takes the free lock before the 1 s wait ends.
 */
static bool try_heir_finds_glibc_release(void)
{
	struct heir_run r = { .mutex = PTHREAD_MUTEX_INITIALIZER };
	pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
	struct timespec deadline;
	pthread_t victim;
	int ret;

	if (!make_heir(&r, &victim))
		return false;
	deadline = deadline_in(CLOCK_REALTIME, 1000);
	ret = pthread_cond_timedwait(&cond, &r.mutex, &deadline);
	CHECK(ret == ETIMEDOUT, "timedwait returned %d", ret);
	CHECK(__atomic_load_n(&r.done, __ATOMIC_ACQUIRE),
	      "the heir did not take the lock that the condition variable released");
	finish_victim(&r, victim);
	return true;
}

struct grant_race {
	pthread_mutex_t *mutex;
	int cpu;
	bool go;
	bool done;
};

/* A waiter queued behind the heir. */
static void *queued_waiter(void *arg)
{
	struct grant_race *g = arg;

	CHECK_OK(pthread_mutex_lock(g->mutex));
	CHECK_OK(pthread_mutex_unlock(g->mutex));
	__atomic_store_n(&g->done, true, __ATOMIC_RELEASE);
	return NULL;
}

/* A newcomer on another CPU that takes the lock as soon as it is free. */
static void *trylock_newcomer(void *arg)
{
	struct grant_race *g = arg;

	pin_to(g->cpu);
	while (!__atomic_load_n(&g->go, __ATOMIC_ACQUIRE))
		;
	while (pthread_mutex_trylock(g->mutex))
		;
	CHECK_OK(pthread_mutex_unlock(g->mutex));
	return NULL;
}

/*
 * A release inside glibc (a condition variable's) wakes the heir, the
 * first sleeper; a newcomer takes the free word with 1 before the heir
 * runs, and its unlock grants the lock to the heir. The heir must then
 * make the word 2, as any woken sleeper does, or the waiter queued
 * behind it is never woken: here it must get the lock long before the
 * main thread's 1 s wait ends.
 */
static bool try_grant_keeps_sleepers(void)
{
	struct heir_run r = { .mutex = PTHREAD_MUTEX_INITIALIZER };
	struct grant_race g = { .mutex = &r.mutex };
	pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
	pthread_t victim, queued, newcomer;
	struct timespec deadline;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (cpus < 2)
		test_skip("one CPU: no newcomer can run beside the heir");
	if (!make_heir(&r, &victim))
		return false;
	CHECK_OK(pthread_create(&queued, NULL, queued_waiter, &g));
	sleep_ms(50);
	g.cpu = (r.cpu + 1) % cpus;
	CHECK_OK(pthread_create(&newcomer, NULL, trylock_newcomer, &g));
	sleep_ms(5);
	__atomic_store_n(&g.go, true, __ATOMIC_RELEASE);
	deadline = deadline_in(CLOCK_REALTIME, 1000);
	pthread_cond_timedwait(&cond, &r.mutex, &deadline);
	CHECK(__atomic_load_n(&g.done, __ATOMIC_ACQUIRE),
	      "the waiter behind the heir was not woken: lock word %d", r.mutex.__data.__lock);
	finish_victim(&r, victim);
	CHECK_OK(pthread_join(queued, NULL));
	CHECK_OK(pthread_join(newcomer, NULL));
	return true;
}

/*
 * A seccomp filter that refuses futex_waitv after the library probed it
 * (EPERM, installed by the caller): the waiter that becomes the heir
 * gives the heir word up and waits as others do, so that its deadline
 * still holds; it must not loop on the refusal until the lock is
 * granted to it. False, the victim gone, if it got the lock while
 * overtaken, as it may (make_heir()); after a refusal the library claims
 * no heir word any more, so that a retry checks the deadline alone.
 */
static bool try_refused_waitv_keeps_deadline(void)
{
	struct heir_run r = { .mutex = PTHREAD_MUTEX_INITIALIZER };
	struct timespec deadline = deadline_in(CLOCK_REALTIME, 400);
	unsigned long long start = now_ns();
	pthread_t victim;

	r.deadline = &deadline;
	start_victim(&r, &victim);
	/* Overtake it past the 100 ms bound, so that it tries to be the heir ... */
	while (now_ns() - start < 200000000ULL) {
		sleep_ms(20);
		if (!overtake(&r, victim))
			return false;
	}
	/* ... then hold the lock past its deadline. */
	sleep_ms(1000);
	CHECK(__atomic_load_n(&r.done, __ATOMIC_ACQUIRE) && r.result == ETIMEDOUT,
	      "timedlock: %s, %d", r.done ? "returned" : "still waiting", r.result);
	finish_victim(&r, victim);
	return true;
}

/*
 * An heir word of another process (a parent's heir, inherited by fork)
 * grants nothing: the unlock releases the lock, with or without
 * sleepers to wake (a word of 1 or 2), and one that looks at the heir
 * word, with the word 2, clears it.
 */
static void check_stale_heir_ignored(void)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	int word;

	for (word = 1; word <= 2; word++) {
		*heir_word(&m) = (heir_epoch_bits + (1U << 2)) | HEIR_WAITING;
		CHECK_OK(pthread_mutex_lock(&m));
		m.__data.__lock = word;
		CHECK_OK(pthread_mutex_unlock(&m));
		CHECK(!pthread_mutex_trylock(&m),
		      "word %d: the lock was granted to another process's heir", word);
		CHECK_OK(pthread_mutex_unlock(&m));
	}
	CHECK(heir_word_of(&m) == 0, "stale heir word %#x left", heir_word_of(&m));
}

/*
 * The victim runs only while the main thread sleeps, yet it may get the
 * lock before it is the heir (a newcomer that defers to it would let it
 * in), so try a few times. Losing every time is a failure: a library
 * that lets the victim in whenever it has waited long has no heir to
 * hand off to.
 */
static void retry_scenario(bool (*scenario)(void), const char *name)
{
	int attempt;

	for (attempt = 0; attempt < 10; attempt++)
		if (scenario())
			return;
	CHECK(false, "%s: the victim got the lock before it became the heir, %d times", name,
	      attempt);
}

static int starvation_scenario(void)
{
	retry_scenario(try_heir_is_granted, "granted");
	retry_scenario(try_heir_resigns_at_deadline, "deadline");
	retry_scenario(try_heir_finds_glibc_release, "glibc release");
	retry_scenario(try_grant_keeps_sleepers, "sleepers behind a grant");
	check_stale_heir_ignored();
	/* Last: the filter stays for the rest of the process. */
	CHECK(!seccomp_filter_call(SYS_futex_waitv, SECCOMP_RET_ERRNO | EPERM),
	      "seccomp: %s", strerror(errno));
	retry_scenario(try_refused_waitv_keeps_deadline, "refused futex_waitv");
	return 0;
}

static void test_starving_waiter_gets_handoff(void)
{
	const char *policy = getenv("ADAPTIVE_POLICY");
	int status;
	pid_t pid;

	if (!preloaded() || (policy && !strcmp(policy, "glibc")))
		test_skip("libadaptive's handoff; glibc has none");
	pid = fork();
	CHECK_SYS(pid);
	if (!pid) {
		setenv("ADAPTIVE_STARVE_US", "100000", 1);
		execl("/proc/self/exe", "mutex_semantics", "--starvation-scenario", (char *) NULL);
		_exit(127);
	}
	CHECK_SYS(waitpid(pid, &status, 0));
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "scenario: wait status %#x", status);
}

static const struct test_case cases[] = {
	TEST_CASE(interposed_symbols),
	TEST_CASE(exclusion_blocking_and_long_owners),
	TEST_CASE(exclusion_every_type),
	TEST_CASE(exclusion_adaptive_np_blocking),
	TEST_CASE(trylock),
	TEST_CASE(trylock_compat_version),
	TEST_CASE(timedlock_times_out),
	TEST_CASE(timedlock_gets_released_mutex),
	TEST_CASE(timedlock_bad_timespec),
	TEST_CASE(clocklock),
	TEST_CASE(recursive_semantics),
	TEST_CASE(errorcheck_semantics),
	TEST_CASE(robust_owner_died),
	TEST_CASE(priority_inheritance),
	TEST_CASE(process_shared),
	TEST_CASE(condvar_producer_consumer),
	TEST_CASE(condvar_broadcast),
	TEST_CASE(condvar_timedwait_every_type),
	TEST_CASE(condvar_mixed_with_lock),
	TEST_CASE(fork_from_multithreaded),
	TEST_CASE(fork_child_has_no_parent_waiters),
	TEST_CASE(fork_child_is_its_own_owner),
	TEST_CASE(vfork_child_is_its_own_owner),
	TEST_CASE(c11_mtx),
	TEST_CASE(signal_handler_locks_during_first_use),
	TEST_CASE(thread_churn),
	TEST_CASE(errno_preserved),
	TEST_CASE(reinit_as_other_type),
	TEST_CASE(unlock_leaves_mutex_after_release),
	TEST_CASE(starving_waiter_gets_handoff),
};

int main(int argc, char **argv)
{
	const char *policy = getenv("ADAPTIVE_POLICY");
	char prefix[64];

	if (argc > 1 && !strcmp(argv[1], "--starvation-scenario"))
		return starvation_scenario();

	snprintf(prefix, sizeof(prefix), "mutex/%s",
		 !preloaded() ? "no-preload" : policy ? policy : "default");
	return run_tests(prefix, cases, ARRAY_SIZE(cases), argc > 1 ? argv[1] : NULL);
}
