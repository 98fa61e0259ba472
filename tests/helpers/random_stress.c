// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A randomized stress test of the pthread mutex calls, run with or
 * without LD_PRELOAD=libadaptive.so. Worker threads pick operations by
 * a seeded PRNG, on one shared mutex of each kind: default (the static
 * initializer), normal, adaptive, recursive, error-checking, and a
 * robust and a priority-inheritance one that libadaptive leaves to
 * glibc. The operations: lock, trylock, timedlock and clocklock on
 * CLOCK_MONOTONIC with deadlines that often expire, are past or are
 * invalid; relocks by the owner (recursive depth, EDEADLK, EBUSY);
 * unlocks by a non-owner (EPERM); waits, timed waits, signals and
 * broadcasts on a condition variable paired with each mutex;
 * pthread_cancel() of threads blocked in pthread_cond_wait(); threads
 * that end and are replaced; fork() with a mutex held, which the child
 * then uses with threads of its own. It checks throughout:
 *
 *   - exclusion: one thread at a time inside a mutex, its owner;
 *   - every return code, against what POSIX and glibc give for the
 *     mutex type, the caller's ownership and the deadline;
 *   - the counter each mutex protects equals the increments counted by
 *     the threads that made them, at the end;
 *   - progress: a watchdog fails the run and says where every thread
 *     is (and each mutex's lock word) once one made none for a while.
 *
 * usage: random_stress [-d SECONDS] [-t THREADS] [-s SEED] [-w SECONDS]
 *   -d  how long to run (default $STRESS_SECONDS, else 2)
 *   -t  worker threads at any time (default 8, at most 64)
 *   -s  the seed of the operation mix, to replay a failed run (the
 *       thread interleaving is not replayed; default: from the clock)
 *   -w  the watchdog's bound on a thread without progress (default 5
 *       times $TEST_TIMEOUT_SCALE, see tests/bounded.sh)
 * The first line of output names the seed. Exit status 0 when every
 * check held, 1 when one failed, 2 for a bad argument.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS		64
/* Threads of a fork() child, and the sections each goes through. */
#define CHILD_THREADS		3
#define CHILD_LOOPS		300
/* The main thread wakes every waiter this often, and checks progress. */
#define TICK_MS			10

struct slot {
	pthread_mutex_t mutex;
	pthread_cond_t cond;
	const char *name;
	int type;
	/*
	 * Bookkeeping by the holder, atomic so that a second thread inside
	 * shows: the threads inside (0 or 1), the holder's tid, its
	 * recursion depth, and the counter the mutex protects.
	 */
	int inside;
	pid_t owner;
	int depth;
	unsigned long counter;
};

enum {
	SLOT_DEFAULT, SLOT_NORMAL, SLOT_ADAPTIVE, SLOT_RECURSIVE, SLOT_ERRORCHECK, SLOT_ROBUST,
	SLOT_PI, NR_SLOTS
};

static struct slot slots[NR_SLOTS];

/* A worker's life, as the main thread and the cancelling workers see it. */
enum life { LIFE_VACANT, LIFE_STARTING, LIFE_RUNNING, LIFE_DONE };

/* What the workers count, summed over every thread at the end. */
enum count {
	COUNT_OPS, COUNT_TAKEN, COUNT_BUSY, COUNT_TIMED_OUT, COUNT_INVALID, COUNT_RELOCKS,
	COUNT_WAITS, COUNT_CANCELS_SENT, COUNT_FORKS, NR_COUNTS
};

static const char *const count_names[NR_COUNTS] = {
	"operations", "taken", "busy", "timed out", "invalid deadline", "relocks", "waits",
	"cancels sent", "forks",
};

struct worker {
	pthread_t thread;
	int index;
	unsigned int generation;
	uint64_t rng;
	/* Published for the watchdog and the cancelling workers (atomics). */
	pid_t tid;
	enum life life;
	const char *doing;
	int slot;
	unsigned long long progress_ns;
	bool in_cond_wait;
	/* Counts, read by the main thread once the thread is joined. */
	unsigned long increments[NR_SLOTS];
	unsigned long counts[NR_COUNTS];
};

static struct worker workers[MAX_THREADS];
static int nr_workers = 8;
static unsigned long long seed;
static unsigned int run_s, watchdog_s;
static int stop;
/*
 * Held by the main thread around the changes of a worker's life that
 * make its pthread_t valid or not (spawn, join), and by a worker around
 * its pthread_cancel() of another. A spinlock: the main thread, which
 * runs the watchdog, uses nothing that libadaptive interposes.
 */
static pthread_spinlock_t registry;
static unsigned long cancelled;

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void sleep_us(unsigned int us)
{
	struct timespec ts = { .tv_sec = us / 1000000, .tv_nsec = (us % 1000000) * 1000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* splitmix64: one step of @state, also the seed of each worker's stream. */
static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A number below @n from @w's stream. */
static unsigned int pick(struct worker *w, unsigned int n)
{
	return splitmix64(&w->rng) % n;
}

/* End the run: print the failure with what replays it, exit 1. */
static void __attribute__((noreturn, format(printf, 2, 3)))
stress_fail(const struct worker *w, const char *fmt, ...)
{
	char msg[512];
	int len = snprintf(msg, sizeof(msg), "random_stress: FAIL, worker %d.%u (tid %d): ",
			   w->index, w->generation, w->tid);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg + len, sizeof(msg) - len, fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s\nrandom_stress: replay with -s %llu -t %d\n", msg, seed, nr_workers);
	_exit(1);
}

static void __attribute__((noreturn, format(printf, 1, 2))) die(const char *fmt, ...)
{
	va_list ap;

	fputs("random_stress: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* Fail unless @ret is 0 or @alt; true if it is 0. */
static bool expect(struct worker *w, struct slot *s, int ret, int alt)
{
	if (ret && ret != alt)
		stress_fail(w, "%s on the %s mutex returned %d (%s), expected 0%s%s", w->doing,
			    s->name, ret, strerror(ret), alt ? " or " : "", alt ? strerror(alt) : "");
	return !ret;
}

static void doing(struct worker *w, struct slot *s, const char *call)
{
	__atomic_store_n(&w->slot, (int) (s - slots), __ATOMIC_RELAXED);
	__atomic_store_n(&w->doing, call, __ATOMIC_RELAXED);
}

static void progress(struct worker *w)
{
	w->counts[COUNT_OPS]++;
	__atomic_store_n(&w->progress_ns, now_ns(), __ATOMIC_RELAXED);
}

/* Seconds since @w's last progress; it may have made some after @now. */
static double idle_s(const struct worker *w, unsigned long long now)
{
	return (long long) (now - __atomic_load_n(&w->progress_ns, __ATOMIC_RELAXED)) / 1e9;
}

/* @w just took @s: it must be alone inside; it counts its increment. */
static void held(struct worker *w, struct slot *s)
{
	int others = __atomic_fetch_add(&s->inside, 1, __ATOMIC_RELAXED);
	pid_t owner = __atomic_load_n(&s->owner, __ATOMIC_RELAXED);

	if (others || owner)
		stress_fail(w, "%s took the %s mutex while %d thread(s) were inside, tid %d", w->doing,
			    s->name, others, owner);
	__atomic_store_n(&s->owner, w->tid, __ATOMIC_RELAXED);
	s->depth = 1;
	s->counter++;
	w->increments[s - slots]++;
	w->counts[COUNT_TAKEN]++;
}

/* @w, its owner, stops counting as inside @s (before unlocking it or waiting). */
static void leaving(struct worker *w, struct slot *s)
{
	pid_t owner = __atomic_load_n(&s->owner, __ATOMIC_RELAXED);

	if (owner != w->tid || s->depth != 1)
		stress_fail(w, "leaving the %s mutex: owner tid %d, depth %d", s->name, owner,
			    s->depth);
	s->depth = 0;
	__atomic_store_n(&s->owner, 0, __ATOMIC_RELAXED);
	if (__atomic_fetch_sub(&s->inside, 1, __ATOMIC_RELAXED) != 1)
		stress_fail(w, "another thread was inside the %s mutex", s->name);
}

static void release(struct worker *w, struct slot *s)
{
	leaving(w, s);
	doing(w, s, "pthread_mutex_unlock");
	expect(w, s, pthread_mutex_unlock(&s->mutex), 0);
}

static struct timespec timespec_in(clockid_t clock, long long ns)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	ns += ts.tv_nsec;
	ts.tv_sec += ns / 1000000000LL;
	ts.tv_nsec = ns % 1000000000LL;
	if (ts.tv_nsec < 0) {
		ts.tv_sec--;
		ts.tv_nsec += 1000000000L;
	}
	return ts;
}

/*
 * A deadline on @clock for a timed lock of @s: mostly within a
 * millisecond, shorter than many holders keep the mutex, sometimes
 * past, before the epoch or invalid. Returns what a contended call
 * gives for it besides 0: ETIMEDOUT, or EINVAL for a tv_nsec out of
 * range (POSIX: checked only if the call would block).
 */
static int random_deadline(struct worker *w, struct slot *s, clockid_t clock,
			   struct timespec *ts)
{
	switch (pick(w, 16)) {
	case 0:
		*ts = (struct timespec) { .tv_sec = -1 };
		/*
		 * glibc hands a PI mutex's deadline to FUTEX_LOCK_PI, whose
		 * timespec check refuses a negative tv_sec: EINVAL, where
		 * POSIX and glibc's other mutexes give ETIMEDOUT.
		 */
		return s == &slots[SLOT_PI] ? EINVAL : ETIMEDOUT;
	case 1:
		*ts = timespec_in(clock, 0);
		ts->tv_nsec = 1000000000L;
		return EINVAL;
	case 2:
		*ts = timespec_in(clock, 0);
		ts->tv_nsec = -1;
		return EINVAL;
	case 3:
		*ts = timespec_in(clock, -1000000LL);
		return ETIMEDOUT;
	default:
		*ts = timespec_in(clock, pick(w, 1000) * 1000LL);
		return ETIMEDOUT;
	}
}

enum take { TAKE_LOCK, TAKE_TRY, TAKE_TIMED, TAKE_CLOCK, NR_TAKES };

/*
 * Call @how on @s. Returns its result; *@alt is the error besides 0
 * that a call on a mutex held by another thread may give (0: none).
 */
static int take(struct worker *w, struct slot *s, enum take how, int *alt)
{
	struct timespec ts;

	switch (how) {
	case TAKE_LOCK:
		*alt = 0;
		doing(w, s, "pthread_mutex_lock");
		return pthread_mutex_lock(&s->mutex);
	case TAKE_TRY:
		*alt = EBUSY;
		doing(w, s, "pthread_mutex_trylock");
		return pthread_mutex_trylock(&s->mutex);
	case TAKE_TIMED:
		*alt = random_deadline(w, s, CLOCK_REALTIME, &ts);
		doing(w, s, "pthread_mutex_timedlock");
		return pthread_mutex_timedlock(&s->mutex, &ts);
	default:
		*alt = random_deadline(w, s, CLOCK_MONOTONIC, &ts);
		doing(w, s, "pthread_mutex_clocklock(CLOCK_MONOTONIC)");
		return pthread_mutex_clocklock(&s->mutex, CLOCK_MONOTONIC, &ts);
	}
}

static void count_outcome(struct worker *w, int ret)
{
	if (ret == EBUSY)
		w->counts[COUNT_BUSY]++;
	else if (ret == ETIMEDOUT)
		w->counts[COUNT_TIMED_OUT]++;
	else if (ret == EINVAL)
		w->counts[COUNT_INVALID]++;
}

/*
 * @w holds @s: lock it again @times times by any call. A recursive
 * mutex goes deeper (and back), an error-checking one gives EDEADLK
 * (EBUSY to trylock); the others are only tried, EBUSY, since their
 * blocking relock would deadlock.
 */
static void relock(struct worker *w, struct slot *s, unsigned int times)
{
	unsigned int i;
	int alt, ret;

	for (i = 0; i < times; i++) {
		bool blocking_ok = s->type == PTHREAD_MUTEX_RECURSIVE ||
				   s->type == PTHREAD_MUTEX_ERRORCHECK;
		enum take how = blocking_ok ? pick(w, NR_TAKES) : TAKE_TRY;

		ret = take(w, s, how, &alt);
		w->counts[COUNT_RELOCKS]++;
		if (s->type == PTHREAD_MUTEX_RECURSIVE)
			alt = 0;
		else if (how == TAKE_TRY)
			alt = EBUSY;
		else
			alt = EDEADLK;
		if (ret != alt)
			stress_fail(w, "%s on the %s mutex, held by the caller, returned %d (%s), expected %d (%s)",
				    w->doing, s->name, ret, strerror(ret), alt, strerror(alt));
		if (!ret)
			s->depth++;
	}
	for (; s->depth > 1; s->depth--) {
		doing(w, s, "pthread_mutex_unlock (recursive)");
		expect(w, s, pthread_mutex_unlock(&s->mutex), 0);
	}
	if (__atomic_load_n(&s->owner, __ATOMIC_RELAXED) != w->tid ||
	    __atomic_load_n(&s->inside, __ATOMIC_RELAXED) != 1)
		stress_fail(w, "the %s mutex changed hands during its relocks", s->name);
}

/* What a holder does inside: relock, leave the CPU, or stay a while. */
static void section(struct worker *w, struct slot *s)
{
	switch (pick(w, 8)) {
	case 0:
		relock(w, s, 1 + pick(w, 3));
		break;
	case 1:
		sched_yield();
		break;
	case 2:
		/* An owner off CPU: the sched-state policy's waiters sleep. */
		sleep_us(20 + pick(w, 200));
		break;
	case 3: {
		unsigned long long end = now_ns() + pick(w, 20000);

		while (now_ns() < end)
			;
		break;
	}
	default:
		break;
	}
}

/* Take @s by @how; if taken, go through a section and release it. */
static void take_section(struct worker *w, struct slot *s, enum take how)
{
	int alt, ret = take(w, s, how, &alt);

	count_outcome(w, ret);
	if (!expect(w, s, ret, alt))
		return;
	held(w, s);
	section(w, s);
	release(w, s);
}

static struct slot *random_slot(struct worker *w)
{
	return &slots[pick(w, NR_SLOTS)];
}

static void set_cancel_state(struct worker *w, int state)
{
	int old, ret = pthread_setcancelstate(state, &old);

	if (ret)
		stress_fail(w, "pthread_setcancelstate: %s", strerror(ret));
}

struct waiting {
	struct worker *w;
	struct slot *s;
};

/*
 * Cancelled in pthread_cond_wait(): glibc relocked the mutex (POSIX
 * requires it held when the first cleanup handler runs), which this
 * handler releases.
 */
static void cancelled_in_wait(void *arg)
{
	struct waiting *waiting = arg;

	held(waiting->w, waiting->s);
	release(waiting->w, waiting->s);
	__atomic_fetch_add(&cancelled, 1, __ATOMIC_RELAXED);
}

/* pthread_cond_wait(), the only call in which a worker can be cancelled. */
static int cancellable_wait(struct worker *w, struct slot *s)
{
	struct waiting waiting = { w, s };
	int ret;

	pthread_cleanup_push(cancelled_in_wait, &waiting);
	doing(w, s, "pthread_cond_wait");
	__atomic_store_n(&w->in_cond_wait, true, __ATOMIC_RELEASE);
	set_cancel_state(w, PTHREAD_CANCEL_ENABLE);
	ret = pthread_cond_wait(&s->cond, &s->mutex);
	set_cancel_state(w, PTHREAD_CANCEL_DISABLE);
	__atomic_store_n(&w->in_cond_wait, false, __ATOMIC_RELAXED);
	pthread_cleanup_pop(0);
	return ret;
}

/*
 * Wait on @s's condition variable, timed or not. Any wake-up will do,
 * spurious ones too: the main thread broadcasts every TICK_MS, so that
 * no untimed wait lasts.
 */
static bool op_cond_wait(struct worker *w, int timed)
{
	struct slot *s = random_slot(w);
	struct timespec ts;
	int alt = 0, ret;

	doing(w, s, "pthread_mutex_lock");
	expect(w, s, pthread_mutex_lock(&s->mutex), 0);
	held(w, s);
	leaving(w, s);
	w->counts[COUNT_WAITS]++;
	if (timed && pick(w, 2)) {
		alt = ETIMEDOUT;
		ts = timespec_in(CLOCK_REALTIME, pick(w, 2000) * 1000LL);
		doing(w, s, "pthread_cond_timedwait");
		ret = pthread_cond_timedwait(&s->cond, &s->mutex, &ts);
	} else if (timed) {
		alt = ETIMEDOUT;
		ts = timespec_in(CLOCK_MONOTONIC, pick(w, 2000) * 1000LL);
		doing(w, s, "pthread_cond_clockwait(CLOCK_MONOTONIC)");
		ret = pthread_cond_clockwait(&s->cond, &s->mutex, CLOCK_MONOTONIC, &ts);
	} else {
		ret = cancellable_wait(w, s);
	}
	count_outcome(w, ret);
	expect(w, s, ret, alt);
	/* Back with the mutex, whatever the outcome: it must be the caller's. */
	held(w, s);
	relock(w, s, 1);
	section(w, s);
	release(w, s);
	return true;
}

/* Take a mutex by @how (enum take), and if taken, go through a section. */
static bool op_take(struct worker *w, int how)
{
	take_section(w, random_slot(w), how);
	return true;
}

/* Signal or broadcast, with the mutex held or not. */
static bool op_wake(struct worker *w, int unused)
{
	struct slot *s = random_slot(w);
	bool locked = pick(w, 2);

	if (locked) {
		doing(w, s, "pthread_mutex_lock");
		expect(w, s, pthread_mutex_lock(&s->mutex), 0);
		held(w, s);
	}
	if (pick(w, 2)) {
		doing(w, s, "pthread_cond_signal");
		expect(w, s, pthread_cond_signal(&s->cond), 0);
	} else {
		doing(w, s, "pthread_cond_broadcast");
		expect(w, s, pthread_cond_broadcast(&s->cond), 0);
	}
	if (locked)
		release(w, s);
	return true;
}

/*
 * Unlock a mutex that this thread does not hold, of a kind that checks
 * (glibc's pthread_mutex_unlock.c; the others would be unlocked).
 */
static bool op_unlock_not_owner(struct worker *w, int unused)
{
	static const int checking[] = { SLOT_RECURSIVE, SLOT_ERRORCHECK, SLOT_ROBUST, SLOT_PI };
	struct slot *s = &slots[checking[pick(w, 4)]];
	int ret;

	doing(w, s, "pthread_mutex_unlock by a non-owner");
	ret = pthread_mutex_unlock(&s->mutex);
	if (ret != EPERM)
		stress_fail(w, "%s on the %s mutex returned %d (%s), expected EPERM", w->doing, s->name,
			    ret, strerror(ret));
	return true;
}

/* Cancel a thread that waits in pthread_cond_wait(), if one does. */
static bool op_cancel(struct worker *w, int unused)
{
	int first = pick(w, nr_workers), i, ret;

	for (i = 0; i < nr_workers; i++) {
		struct worker *victim = &workers[(first + i) % nr_workers];

		if (victim == w || !__atomic_load_n(&victim->in_cond_wait, __ATOMIC_ACQUIRE))
			continue;
		/* Not joined while the registry is held: its pthread_t stays valid. */
		pthread_spin_lock(&registry);
		ret = 0;
		if (__atomic_load_n(&victim->life, __ATOMIC_ACQUIRE) == LIFE_RUNNING) {
			ret = pthread_cancel(victim->thread);
			w->counts[COUNT_CANCELS_SENT]++;
		}
		pthread_spin_unlock(&registry);
		if (ret)
			stress_fail(w, "pthread_cancel(worker %d): %s", victim->index, strerror(ret));
		break;
	}
	return true;
}

static void *child_thread(void *arg)
{
	struct worker *w = arg;
	int i;

	w->tid = gettid();
	for (i = 0; i < CHILD_LOOPS; i++)
		take_section(w, &slots[w->slot], pick(w, NR_TAKES));
	return NULL;
}

/*
 * The child of a fork() made while @parent held @s: this thread, the
 * only one, holds @s now. The other mutexes may be copies of ones held
 * by threads this process does not have, and are left alone. It
 * releases @s, then uses it from threads of its own, and exits 0 if
 * all held (stress_fail() exits 1).
 */
static void __attribute__((noreturn)) fork_child(struct worker *parent, struct slot *s,
						 pid_t parent_pid)
{
	struct worker helpers[CHILD_THREADS] = { 0 };
	unsigned long increments = 0, before;
	int i, ret;

	/* Die with the parent's thread, if the run fails while this child hangs. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent_pid)
		_exit(3);
	leaving(parent, s);
	parent->tid = gettid();
	doing(parent, s, "pthread_mutex_unlock in the fork() child");
	expect(parent, s, pthread_mutex_unlock(&s->mutex), 0);
	before = s->counter;
	for (i = 0; i < CHILD_THREADS; i++) {
		helpers[i] = (struct worker) { .index = parent->index, .generation = parent->generation,
					       .rng = splitmix64(&parent->rng), .slot = s - slots };
		ret = pthread_create(&helpers[i].thread, NULL, child_thread, &helpers[i]);
		if (ret)
			stress_fail(parent, "pthread_create in the fork() child: %s", strerror(ret));
	}
	for (i = 0; i < CHILD_THREADS; i++) {
		ret = pthread_join(helpers[i].thread, NULL);
		if (ret)
			stress_fail(parent, "pthread_join in the fork() child: %s", strerror(ret));
		increments += helpers[i].increments[s - slots];
	}
	if (s->counter - before != increments)
		stress_fail(parent, "fork() child: the %s mutex's counter went up by %lu, its threads counted %lu",
			    s->name, s->counter - before, increments);
	_exit(0);
}

/*
 * fork() while holding a mutex the child can use, the others being in
 * any state; the child must end well within the watchdog's bound. The
 * child cannot release a robust mutex (on the parent thread's robust
 * list) or a PI one (the parent thread's tid in its lock word), nor an
 * error-checking or recursive one (its owner is the parent thread).
 */
static bool op_fork(struct worker *w, int unused)
{
	static const int usable[] = { SLOT_DEFAULT, SLOT_NORMAL, SLOT_ADAPTIVE };
	struct slot *s = &slots[usable[pick(w, 3)]];
	unsigned long long deadline;
	pid_t parent_pid = getpid(), pid, ret;
	int status;

	doing(w, s, "pthread_mutex_lock");
	expect(w, s, pthread_mutex_lock(&s->mutex), 0);
	held(w, s);
	doing(w, s, "fork");
	pid = fork();
	if (pid < 0)
		stress_fail(w, "fork: %s", strerror(errno));
	if (!pid)
		fork_child(w, s, parent_pid);
	w->counts[COUNT_FORKS]++;
	release(w, s);
	doing(w, s, "waitpid for the fork() child");
	deadline = now_ns() + watchdog_s * 500000000ULL;
	while (!(ret = waitpid(pid, &status, WNOHANG))) {
		if (now_ns() > deadline) {
			kill(pid, SIGKILL);
			stress_fail(w, "the fork() child using the %s mutex did not end in %.1f s",
				    s->name, watchdog_s / 2.0);
		}
		sleep_us(1000);
	}
	if (ret < 0)
		stress_fail(w, "waitpid: %s", strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		stress_fail(w, "the fork() child using the %s mutex: wait status %#x", s->name,
			    status);
	return true;
}

/* A thread that ends, to be replaced by the main thread. */
static bool op_exit(struct worker *w, int unused)
{
	return false;
}

/* Time outside any mutex. */
static bool op_pause(struct worker *w, int unused)
{
	sleep_us(pick(w, 100));
	return true;
}

/* The operations a worker picks from; false: the thread ends. */
static const struct op {
	bool (*run)(struct worker *w, int arg);
	int arg;
	/* In thousandths: they add up to 1000. */
	unsigned int weight;
} ops[] = {
	{ op_take, TAKE_LOCK, 270 },
	{ op_take, TAKE_TRY, 120 },
	{ op_take, TAKE_TIMED, 120 },
	{ op_take, TAKE_CLOCK, 100 },
	{ op_cond_wait, false, 100 },
	{ op_cond_wait, true, 100 },
	{ op_wake, 0, 100 },
	{ op_unlock_not_owner, 0, 50 },
	{ op_cancel, 0, 20 },
	{ op_pause, 0, 16 },
	{ op_exit, 0, 2 },
	{ op_fork, 0, 2 },
};

static bool run_op(struct worker *w)
{
	unsigned int n = pick(w, 1000), i;

	for (i = 0; n >= ops[i].weight; i++)
		n -= ops[i].weight;
	return ops[i].run(w, ops[i].arg);
}

static void worker_ended(void *arg)
{
	struct worker *w = arg;

	__atomic_store_n(&w->life, LIFE_DONE, __ATOMIC_RELEASE);
}

/* Cancellation is disabled but in pthread_cond_wait() (op_cond_wait). */
static void *worker_main(void *arg)
{
	struct worker *w = arg;

	__atomic_store_n(&w->tid, gettid(), __ATOMIC_RELAXED);
	set_cancel_state(w, PTHREAD_CANCEL_DISABLE);
	pthread_cleanup_push(worker_ended, w);
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED) && run_op(w))
		progress(w);
	pthread_cleanup_pop(1);
	return NULL;
}

static void spawn(struct worker *w)
{
	uint64_t stream = seed ^ ((uint64_t) w->index << 32 | ++w->generation);
	enum life starting = LIFE_STARTING;
	int ret;

	w->rng = splitmix64(&stream);
	w->tid = 0;
	w->in_cond_wait = false;
	w->doing = "starting";
	w->progress_ns = now_ns();
	memset(w->increments, 0, sizeof(w->increments));
	memset(w->counts, 0, sizeof(w->counts));
	__atomic_store_n(&w->life, LIFE_STARTING, __ATOMIC_RELEASE);
	ret = pthread_create(&w->thread, NULL, worker_main, w);
	if (ret)
		die("pthread_create: %s", strerror(ret));
	/* Cancellable once its pthread_t is stored, unless it ended already. */
	pthread_spin_lock(&registry);
	__atomic_compare_exchange_n(&w->life, &starting, LIFE_RUNNING, false, __ATOMIC_RELEASE,
				    __ATOMIC_RELAXED);
	pthread_spin_unlock(&registry);
}

/* Join an ended worker, adding up its counts in @totals. */
static void reap(struct worker *w, unsigned long *increments, unsigned long *totals)
{
	int i, ret;

	pthread_spin_lock(&registry);
	__atomic_store_n(&w->life, LIFE_VACANT, __ATOMIC_RELAXED);
	pthread_spin_unlock(&registry);
	ret = pthread_join(w->thread, NULL);
	if (ret)
		die("pthread_join: %s", strerror(ret));
	for (i = 0; i < NR_SLOTS; i++)
		increments[i] += w->increments[i];
	for (i = 0; i < NR_COUNTS; i++)
		totals[i] += w->counts[i];
}

/* No progress for the watchdog's bound: say where everyone is, and fail. */
static void __attribute__((noreturn)) report_stall(struct worker *stuck, unsigned long long now)
{
	int i;

	fprintf(stderr, "random_stress: FAIL, worker %d.%u (tid %d) made no progress for %.1f s; where each thread is:\n",
		stuck->index, stuck->generation, stuck->tid, idle_s(stuck, now));
	for (i = 0; i < nr_workers; i++) {
		struct worker *w = &workers[i];
		int slot = __atomic_load_n(&w->slot, __ATOMIC_RELAXED);

		enum life life = __atomic_load_n(&w->life, __ATOMIC_RELAXED);
		bool ended = life == LIFE_DONE || life == LIFE_VACANT;

		fprintf(stderr, "  worker %d.%u (tid %d): %s%s on the %s mutex, last progress %.1f s ago\n",
			w->index, w->generation, __atomic_load_n(&w->tid, __ATOMIC_RELAXED),
			ended ? "ended after " : "", __atomic_load_n(&w->doing, __ATOMIC_RELAXED),
			slots[slot].name, idle_s(w, now));
	}
	for (i = 0; i < NR_SLOTS; i++) {
		struct slot *s = &slots[i];

		fprintf(stderr, "  %s mutex: lock word %d, glibc owner %d; held by tid %d\n", s->name,
			__atomic_load_n(&s->mutex.__data.__lock, __ATOMIC_RELAXED),
			__atomic_load_n(&s->mutex.__data.__owner, __ATOMIC_RELAXED),
			__atomic_load_n(&s->owner, __ATOMIC_RELAXED));
	}
	fprintf(stderr, "random_stress: replay with -s %llu -t %d\n", seed, nr_workers);
	_exit(1);
}

/*
 * The main thread: replaces the workers that end, wakes every waiter
 * each tick, and watches progress. It calls no mutex function until
 * every worker is joined, so that a hang of the code under test cannot
 * stop the watchdog.
 */
static void supervise(unsigned long *increments, unsigned long *totals, unsigned long *threads)
{
	unsigned long long start = now_ns(), now;
	bool stopping = false;
	int i, live;

	for (i = 0; i < nr_workers; i++) {
		workers[i].index = i;
		spawn(&workers[i]);
	}
	*threads = nr_workers;
	do {
		sleep_us(TICK_MS * 1000);
		now = now_ns();
		if (now - start >= run_s * 1000000000ULL) {
			__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
			stopping = true;
		}
		for (i = 0; i < NR_SLOTS; i++)
			if (pthread_cond_broadcast(&slots[i].cond))
				die("pthread_cond_broadcast failed");
		live = 0;
		for (i = 0; i < nr_workers; i++) {
			struct worker *w = &workers[i];
			enum life life = __atomic_load_n(&w->life, __ATOMIC_ACQUIRE);

			if (life == LIFE_DONE) {
				reap(w, increments, totals);
				if (stopping)
					continue;
				spawn(w);
				++*threads;
			} else if (life == LIFE_VACANT) {
				continue;
			} else if (idle_s(w, now) > watchdog_s) {
				report_stall(w, now);
			}
			live++;
		}
	} while (live);
}

static void init_slot(struct slot *s, const char *name, int type, int protocol, int robust)
{
	pthread_mutexattr_t attr;
	int ret;

	s->name = name;
	s->type = type;
	s->cond = (pthread_cond_t) PTHREAD_COND_INITIALIZER;
	if ((ret = pthread_mutexattr_init(&attr)) || (ret = pthread_mutexattr_settype(&attr, type)) ||
	    (ret = pthread_mutexattr_setprotocol(&attr, protocol)) ||
	    (ret = pthread_mutexattr_setrobust(&attr, robust)) ||
	    (ret = pthread_mutex_init(&s->mutex, &attr)) || (ret = pthread_mutexattr_destroy(&attr)))
		die("initializing the %s mutex: %s", name, strerror(ret));
}

static void init_slots(void)
{
	/* The static initializer: pthread_mutexattr_settype() gives another kind (glibc). */
	slots[SLOT_DEFAULT] = (struct slot) { .mutex = PTHREAD_MUTEX_INITIALIZER,
					      .cond = PTHREAD_COND_INITIALIZER, .name = "default",
					      .type = PTHREAD_MUTEX_DEFAULT };
	init_slot(&slots[SLOT_NORMAL], "normal", PTHREAD_MUTEX_NORMAL, PTHREAD_PRIO_NONE, 0);
	init_slot(&slots[SLOT_ADAPTIVE], "adaptive_np", PTHREAD_MUTEX_ADAPTIVE_NP,
		  PTHREAD_PRIO_NONE, 0);
	init_slot(&slots[SLOT_RECURSIVE], "recursive", PTHREAD_MUTEX_RECURSIVE,
		  PTHREAD_PRIO_NONE, 0);
	init_slot(&slots[SLOT_ERRORCHECK], "errorcheck", PTHREAD_MUTEX_ERRORCHECK,
		  PTHREAD_PRIO_NONE, 0);
	init_slot(&slots[SLOT_ROBUST], "robust", PTHREAD_MUTEX_NORMAL, PTHREAD_PRIO_NONE,
		  PTHREAD_MUTEX_ROBUST);
	init_slot(&slots[SLOT_PI], "pi", PTHREAD_MUTEX_NORMAL, PTHREAD_PRIO_INHERIT, 0);
}

/*
 * After the run, with every worker joined: each counter is what its
 * threads counted, and each mutex is free, unlocks and is destroyed.
 */
static int check_slots(const unsigned long *increments)
{
	int i, failed = 0, ret;

	for (i = 0; i < NR_SLOTS; i++) {
		struct slot *s = &slots[i];

		if (s->counter != increments[i]) {
			fprintf(stderr, "random_stress: FAIL, the %s mutex's counter is %lu, its threads counted %lu\n",
				s->name, s->counter, increments[i]);
			failed = 1;
		}
		if ((ret = pthread_mutex_trylock(&s->mutex)) || (ret = pthread_mutex_unlock(&s->mutex)) ||
		    (ret = pthread_mutex_destroy(&s->mutex)) || (ret = pthread_cond_destroy(&s->cond))) {
			fprintf(stderr, "random_stress: FAIL, the %s mutex after the run: %s\n", s->name,
				strerror(ret));
			failed = 1;
		}
	}
	return failed;
}

static unsigned long long parse_number(const char *what, const char *value, unsigned long long max)
{
	unsigned long long n;
	char *end;

	errno = 0;
	n = strtoull(value, &end, 10);
	if (errno || end == value || *end || !n || n > max) {
		fprintf(stderr, "random_stress: %s %s: expected a number from 1 to %llu\n", what,
			value, max);
		exit(2);
	}
	return n;
}

static void usage(const char *argv0)
{
	fprintf(stderr, "usage: %s [-d SECONDS] [-t THREADS] [-s SEED] [-w SECONDS]\n", argv0);
	exit(2);
}

int main(int argc, char **argv)
{
	const char *stress_s = getenv("STRESS_SECONDS"), *scale = getenv("TEST_TIMEOUT_SCALE");
	unsigned long increments[NR_SLOTS] = { 0 }, totals[NR_COUNTS] = { 0 }, threads;
	int opt, i;

	seed = now_ns() ^ getpid();
	run_s = stress_s ? parse_number("STRESS_SECONDS", stress_s, 86400) : 2;
	watchdog_s = 5 * (scale ? parse_number("TEST_TIMEOUT_SCALE", scale, 1000) : 1);
	while ((opt = getopt(argc, argv, "d:t:s:w:")) != -1) {
		switch (opt) {
		case 'd':
			run_s = parse_number("-d", optarg, 86400);
			break;
		case 't':
			nr_workers = parse_number("-t", optarg, MAX_THREADS);
			break;
		case 's':
			seed = parse_number("-s", optarg, ULLONG_MAX);
			break;
		case 'w':
			watchdog_s = parse_number("-w", optarg, 3600);
			break;
		default:
			usage(argv[0]);
		}
	}
	if (optind != argc)
		usage(argv[0]);
	/* First, and out before any failure: the seed that replays this run. */
	printf("random_stress: seed %llu, %d threads, %u s, watchdog %u s\n", seed, nr_workers,
	       run_s, watchdog_s);
	fflush(stdout);

	init_slots();
	if (pthread_spin_init(&registry, PTHREAD_PROCESS_PRIVATE))
		die("pthread_spin_init failed");
	supervise(increments, totals, &threads);

	printf("random_stress: %lu threads, %lu cancelled in pthread_cond_wait;", threads,
	       cancelled);
	for (i = 0; i < NR_COUNTS; i++)
		printf(" %s %lu%s", count_names[i], totals[i], i < NR_COUNTS - 1 ? "," : "\n");
	return check_slots(increments);
}
