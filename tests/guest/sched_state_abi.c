// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ABI tests of rseq's sched_state_ptr (kernel/patches): registration,
 * validation, the ON_CPU flag as other threads see it, and what fork,
 * execve, thread exit, unregistration and munmap do to it.
 *
 * Every case registers rseq itself, so glibc must not: the program
 * re-executes itself with GLIBC_TUNABLES=glibc.pthread.rseq=0 when glibc
 * registered. On a kernel without the feature, the cases that need it
 * skip and the others still pass.
 *
 * usage: sched_state_abi [NAME-SUBSTRING]
 *        sched_state_abi --exec-child FD ADDRESS   (the execve case's new image)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/rseq.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "rseq-abi.h"

#define ON_CPU RSEQ_ABI_SCHED_STATE_FLAG_ON_CPU
#define REGISTER_LEN RSEQ_ABI_SCHED_STATE_FEATURE_SIZE
/* Time given to a thread to block, or to an execve to complete. */
#define SETTLE_MS 50

static __thread struct rseq_abi tls_area;

static long sys_rseq(struct rseq_abi *area, uint32_t len, int flags)
{
	return syscall(__NR_rseq, area, len, flags, RSEQ_ABI_SIG) ? -errno : 0;
}

static void require_sched_state(void)
{
	unsigned long size = getauxval(AT_RSEQ_FEATURE_SIZE);

	if (size < RSEQ_ABI_SCHED_STATE_FEATURE_SIZE)
		test_skip("kernel without rseq sched_state_ptr (AT_RSEQ_FEATURE_SIZE %lu)", size);
}

static uint32_t load_state(const struct rseq_abi_sched_state *st)
{
	return __atomic_load_n(&st->state, __ATOMIC_RELAXED);
}

static void *map_pages(size_t len, int prot, int flags)
{
	void *p = mmap(NULL, len, prot, flags | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		test_fail("mmap: %m");
	return p;
}

/* A state on a page of its own, never unmapped by the case. */
static struct rseq_abi_sched_state *new_state(void)
{
	return map_pages(getpagesize(), PROT_READ | PROT_WRITE, MAP_PRIVATE);
}

/*
 * Register the calling thread's TLS area with @state (or none), as a
 * careful user does: version set to a non-zero value to see the kernel
 * acknowledge it, tid filled in.
 */
static long register_thread(struct rseq_abi_sched_state *state)
{
	memset(&tls_area, 0, sizeof(tls_area));
	tls_area.cpu_id = RSEQ_ABI_CPU_ID_UNINITIALIZED;
	tls_area.sched_state_ptr = (uintptr_t) state;
	if (state) {
		state->version = UINT32_MAX;
		state->tid = gettid();
	}
	return sys_rseq(&tls_area, REGISTER_LEN, 0);
}

static void register_or_fail(struct rseq_abi_sched_state *state)
{
	long ret = register_thread(state);

	if (ret)
		test_fail("rseq registration: %s", strerror(-ret));
}

/* The calling thread has no rseq registration at all. */
static void check_unregistered(void)
{
	long ret = sys_rseq(&tls_area, REGISTER_LEN, RSEQ_ABI_FLAG_UNREGISTER);

	CHECK(ret == -EINVAL, "unregistering gave %ld: a registration was left", ret);
}

/* Context switches and returns to user space, for the kernel to act on. */
static void reschedule(void)
{
	int i;

	for (i = 0; i < 20; i++) {
		sched_yield();
		sleep_ms(1);
	}
}

/* The child's wait status, failing the case if it could not be waited for. */
static int wait_status(pid_t pid)
{
	int status;

	CHECK_SYS(waitpid(pid, &status, 0));
	return status;
}

static void test_feature_size(void)
{
	require_sched_state();
	CHECK(getauxval(AT_RSEQ_FEATURE_SIZE) == RSEQ_ABI_SCHED_STATE_FEATURE_SIZE,
	      "AT_RSEQ_FEATURE_SIZE %lu", getauxval(AT_RSEQ_FEATURE_SIZE));
	CHECK(getauxval(AT_RSEQ_ALIGN) == RSEQ_ABI_ALIGN, "AT_RSEQ_ALIGN %lu",
	      getauxval(AT_RSEQ_ALIGN));
}

static void test_register_sets_version(void)
{
	struct rseq_abi_sched_state *st = new_state();

	require_sched_state();
	register_or_fail(st);
	CHECK(st->version == 0, "version %u", st->version);
	CHECK(st->tid == (uint32_t) gettid(), "tid %u overwritten", st->tid);
	CHECK(load_state(st) & ON_CPU, "state %#x", load_state(st));
	CHECK(tls_area.cpu_id != RSEQ_ABI_CPU_ID_UNINITIALIZED, "cpu_id not set");
}

static void test_register_without_state(void)
{
	register_or_fail(NULL);
	reschedule();
	CHECK(tls_area.cpu_id < CPU_SETSIZE, "cpu_id %u", tls_area.cpu_id);
	CHECK(!sys_rseq(&tls_area, REGISTER_LEN, RSEQ_ABI_FLAG_UNREGISTER), "unregister");
}

/*
 * glibc registers 32 bytes: the kernel must ignore whatever follows
 * them. The RFC stored through a NULL state pointer for such threads
 * and killed them on their first return to user space.
 */
static void test_register_32_bytes_glibc_style(void)
{
	pid_t pid = fork();
	int status;

	CHECK_SYS(pid);
	if (!pid) {
		memset(&tls_area, 0, sizeof(tls_area));
		tls_area.cpu_id = RSEQ_ABI_CPU_ID_UNINITIALIZED;
		tls_area.sched_state_ptr = 0xdeadbeefdeadbeefULL;
		if (sys_rseq(&tls_area, RSEQ_ABI_ORIG_SIZE, 0))
			_exit(2);
		reschedule();
		_exit(tls_area.cpu_id < CPU_SETSIZE ? 0 : 3);
	}
	status = wait_status(pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "32-byte registered child: wait status %#x", status);
}

/* A rejected registration leaves the thread unregistered and able to register. */
static void check_rejected(uintptr_t ptr, long expected)
{
	long ret;

	require_sched_state();
	memset(&tls_area, 0, sizeof(tls_area));
	tls_area.sched_state_ptr = ptr;
	ret = sys_rseq(&tls_area, REGISTER_LEN, 0);
	CHECK(ret == expected, "registration gave %ld, expected %ld", ret, expected);
	check_unregistered();
	register_or_fail(new_state());
}

static void test_misaligned_einval(void)
{
	check_rejected((uintptr_t) new_state() + 1, -EINVAL);
}

static void test_unmapped_efault(void)
{
	struct rseq_abi_sched_state *st = new_state();

	CHECK_SYS(munmap(st, getpagesize()));
	check_rejected((uintptr_t) st, -EFAULT);
}

static void test_readonly_efault(void)
{
	struct rseq_abi_sched_state *st = new_state();

	CHECK_SYS(mprotect(st, getpagesize(), PROT_READ));
	check_rejected((uintptr_t) st, -EFAULT);
}

static void test_kernel_address_efault(void)
{
	check_rejected(0xffffffff81000000ULL, -EFAULT);
}

/* A structure straddling the end of the user address space. */
static void test_end_of_user_space_efault(void)
{
	check_rejected(0x00007ffffffffffcULL, -EFAULT);
}

/*
 * A failed attempt to register again must leave the existing
 * registration, and its state, working.
 */
static void test_failed_registration_keeps_existing(void)
{
	static __thread struct rseq_abi other_area;
	struct rseq_abi_sched_state *st = new_state();
	long ret;

	require_sched_state();
	register_or_fail(st);
	other_area.sched_state_ptr = 1;
	ret = sys_rseq(&other_area, REGISTER_LEN, 0);
	CHECK(ret == -EINVAL, "second area: %ld", ret);
	ret = sys_rseq(&tls_area, REGISTER_LEN, 0);
	CHECK(ret == -EBUSY, "same area again: %ld", ret);
	__atomic_store_n(&st->state, 0, __ATOMIC_RELAXED);
	reschedule();
	CHECK(load_state(st) == ON_CPU, "state %#x: the kernel stopped updating it",
	      load_state(st));
	CHECK(!sys_rseq(&tls_area, REGISTER_LEN, RSEQ_ABI_FLAG_UNREGISTER), "unregister");
}

static void test_on_cpu_while_running(void)
{
	struct rseq_abi_sched_state *st = new_state();
	int i;

	require_sched_state();
	register_or_fail(st);
	for (i = 0; i < 100000; i++) {
		if (!(load_state(st) & ON_CPU))
			test_fail("read clear by the running thread itself at sample %d", i);
		if (!(i % 1000))
			sched_yield();
	}
}

/* Until the thread registered with @st and the kernel acknowledged it. */
static void wait_registered(struct rseq_abi_sched_state *st)
{
	while (!__atomic_load_n(&st->tid, __ATOMIC_RELAXED) ||
	       __atomic_load_n(&st->version, __ATOMIC_RELAXED))
		sleep_ms(1);
}

/*
 * A target thread that blocks in some way, for up to BLOCK_MS, until the
 * main thread interrupts it with a signal.
 */
struct blocking_target {
	void (*block)(void);
	struct rseq_abi_sched_state *state;
	/* Incremented by the target right before it blocks. */
	int round;
	bool stop, done;
};

#define BLOCKING_ROUNDS 3
#define BLOCK_MS 10000

static void *blocking_target_thread(void *arg)
{
	struct blocking_target *t = arg;

	register_or_fail(t->state);
	while (!__atomic_load_n(&t->stop, __ATOMIC_ACQUIRE)) {
		__atomic_fetch_add(&t->round, 1, __ATOMIC_RELEASE);
		t->block();
	}
	__atomic_store_n(&t->done, true, __ATOMIC_RELEASE);
	return NULL;
}

static void block_futex(void)
{
	static uint32_t never_changes;
	struct timespec timeout = { .tv_sec = BLOCK_MS / 1000 };

	syscall(SYS_futex, &never_changes, FUTEX_WAIT_PRIVATE, 0, &timeout, NULL, 0);
}

static void block_poll(void)
{
	poll(NULL, 0, BLOCK_MS);
}

static void block_nanosleep(void)
{
	struct timespec ts = { .tv_sec = BLOCK_MS / 1000 };

	nanosleep(&ts, NULL);
}

static void on_wake_signal(int sig)
{
}

/*
 * Interrupt the target's sleep until it starts the next round or ends;
 * repeated, since a signal that arrives before it blocks is lost.
 */
static void wake_target(pthread_t thread, struct blocking_target *t, int round)
{
	while (__atomic_load_n(&t->round, __ATOMIC_ACQUIRE) == round &&
	       !__atomic_load_n(&t->done, __ATOMIC_ACQUIRE)) {
		CHECK_OK(pthread_kill(thread, SIGUSR1));
		sleep_ms(2);
	}
}

static void check_off_cpu_while_blocked(void (*block)(void))
{
	struct blocking_target t = { .block = block, .state = new_state() };
	struct sigaction sa = { .sa_handler = on_wake_signal };
	pthread_t thread;
	int round;

	require_sched_state();
	CHECK_SYS(sigaction(SIGUSR1, &sa, NULL));
	CHECK_OK(pthread_create(&thread, NULL, blocking_target_thread, &t));
	for (round = 1; round <= BLOCKING_ROUNDS; round++) {
		while (__atomic_load_n(&t.round, __ATOMIC_ACQUIRE) < round)
			sleep_ms(1);
		sleep_ms(SETTLE_MS);
		CHECK(t.state->version == 0, "version %u", t.state->version);
		CHECK(!(load_state(t.state) & ON_CPU),
		      "ON_CPU set %d ms into the target's sleep (round %d)", SETTLE_MS, round);
		if (round == BLOCKING_ROUNDS)
			__atomic_store_n(&t.stop, true, __ATOMIC_RELEASE);
		wake_target(thread, &t, round);
	}
	CHECK_OK(pthread_join(thread, NULL));
}

static void test_off_cpu_futex(void)
{
	check_off_cpu_while_blocked(block_futex);
}

static void test_off_cpu_poll(void)
{
	check_off_cpu_while_blocked(block_poll);
}

static void test_off_cpu_nanosleep(void)
{
	check_off_cpu_while_blocked(block_nanosleep);
}

/* Two busy threads pinned on one CPU, observed from another. */
struct busy_thread {
	int cpu;
	struct rseq_abi_sched_state *state;
	bool *stop;
};

static void pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	CHECK_SYS(sched_setaffinity(0, sizeof(set), &set));
}

static void *busy_thread(void *arg)
{
	struct busy_thread *b = arg;

	pin_to(b->cpu);
	if (b->state)
		register_or_fail(b->state);
	while (!__atomic_load_n(b->stop, __ATOMIC_RELAXED))
		;
	return NULL;
}

static void test_off_cpu_preempted(void)
{
	bool stop = false;
	struct busy_thread target = { .state = new_state(), .stop = &stop };
	struct busy_thread hog = { .stop = &stop };
	int i, on = 0, off = 0, cpus[2], n = 0, cpu;
	pthread_t threads[2];
	cpu_set_t set;

	require_sched_state();
	CHECK_SYS(sched_getaffinity(0, sizeof(set), &set));
	for (cpu = 0; cpu < CPU_SETSIZE && n < 2; cpu++)
		if (CPU_ISSET(cpu, &set))
			cpus[n++] = cpu;
	if (n < 2)
		test_skip("needs two CPUs");
	pin_to(cpus[0]);
	target.cpu = hog.cpu = cpus[1];
	CHECK_OK(pthread_create(&threads[0], NULL, busy_thread, &target));
	CHECK_OK(pthread_create(&threads[1], NULL, busy_thread, &hog));
	wait_registered(target.state);
	for (i = 0; i < 2000 && !(on && off); i++) {
		if (load_state(target.state) & ON_CPU)
			on++;
		else
			off++;
		usleep(500);
	}
	__atomic_store_n(&stop, true, __ATOMIC_RELAXED);
	CHECK_OK(pthread_join(threads[0], NULL));
	CHECK_OK(pthread_join(threads[1], NULL));
	CHECK(on && off, "sharing a CPU with a busy thread, the target read ON_CPU "
	      "%d times and clear %d times", on, off);
}

static void test_unregister_clears(void)
{
	struct rseq_abi_sched_state *st = new_state();

	require_sched_state();
	register_or_fail(st);
	CHECK(!sys_rseq(&tls_area, REGISTER_LEN, RSEQ_ABI_FLAG_UNREGISTER), "unregister");
	CHECK(load_state(st) == 0, "state %#x after unregistration", load_state(st));
	st->state = 0x5a5a5a5a;
	reschedule();
	CHECK(st->state == 0x5a5a5a5a, "the kernel wrote %#x after unregistration", st->state);
}

/*
 * A forked child keeps the registration, with the state at the same
 * address in its copy of the memory.
 */
static void test_fork_child_inherits(void)
{
	struct rseq_abi_sched_state *st = new_state();
	int status;
	pid_t pid;

	require_sched_state();
	register_or_fail(st);
	pid = fork();
	CHECK_SYS(pid);
	if (!pid) {
		st->tid = gettid();
		st->state = 0;
		reschedule();
		if (load_state(st) != ON_CPU)
			_exit(2);
		if (sys_rseq(&tls_area, REGISTER_LEN, RSEQ_ABI_FLAG_UNREGISTER))
			_exit(3);
		_exit(load_state(st) == 0 ? 0 : 4);
	}
	status = wait_status(pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "child: wait status %#x (2: state not updated, 3: not registered, "
	      "4: not cleared at unregistration)", status);
	CHECK(load_state(st) == ON_CPU, "the child's unregistration touched the parent's state %#x",
	      load_state(st));
}

static int clone_vm_child(void *arg)
{
	struct rseq_abi *parent_area = arg;

	return sys_rseq(parent_area, REGISTER_LEN, RSEQ_ABI_FLAG_UNREGISTER) == -EINVAL ? 0 : 1;
}

/* A CLONE_VM child shares the memory and must start unregistered. */
static void test_clone_vm_child_unregistered(void)
{
	size_t stack_len = 256 * 1024;
	char *stack = map_pages(stack_len, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	int status;
	pid_t pid;

	require_sched_state();
	register_or_fail(new_state());
	pid = clone(clone_vm_child, stack + stack_len, CLONE_VM | SIGCHLD, &tls_area);
	CHECK_SYS(pid);
	status = wait_status(pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "CLONE_VM child inherited the registration (wait status %#x)", status);
}

/*
 * After execve the kernel must forget the old image's state pointer. The
 * state sits in a memfd that the new image maps again at the same
 * address: a kernel still holding the pointer would write into it.
 */
static void test_execve_forgets_state(void)
{
	int fd = memfd_create("sched_state", 0);
	struct rseq_abi_sched_state *st;
	uint32_t *remapped;
	char fd_arg[16], addr_arg[32];
	int status;
	pid_t pid;

	require_sched_state();
	CHECK_SYS(fd);
	CHECK_SYS(ftruncate(fd, getpagesize()));
	st = mmap(NULL, getpagesize(), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(st != MAP_FAILED, "mmap memfd: %m");
	remapped = (uint32_t *) (st + 1);
	snprintf(fd_arg, sizeof(fd_arg), "%d", fd);
	snprintf(addr_arg, sizeof(addr_arg), "%p", (void *) st);
	pid = fork();
	CHECK_SYS(pid);
	if (!pid) {
		register_or_fail(st);
		execl("/proc/self/exe", "sched_state_abi", "--exec-child", fd_arg, addr_arg,
		      (char *) NULL);
		_exit(127);
	}
	while (!__atomic_load_n(remapped, __ATOMIC_ACQUIRE))
		sleep_ms(1);
	__atomic_store_n(&st->state, 0x5a5a5a5a, __ATOMIC_RELAXED);
	status = wait_status(pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "exec'd child: wait status %#x (3: could not map at the old address)", status);
	CHECK(load_state(st) == 0x5a5a5a5a, "the kernel wrote %#x after execve", load_state(st));
}

/* The new image of test_execve_forgets_state(). */
static int exec_child(const char *fd_arg, const char *addr_arg)
{
	void *addr = (void *) strtoul(addr_arg, NULL, 0);
	struct rseq_abi_sched_state *st;
	int i;

	st = mmap(addr, getpagesize(), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_FIXED_NOREPLACE, atoi(fd_arg), 0);
	if (st != addr)
		return 3;
	__atomic_store_n((uint32_t *) (st + 1), 1, __ATOMIC_RELEASE);
	for (i = 0; i < 100; i++)
		sleep_ms(2);
	return 0;
}

static void *register_and_exit(void *arg)
{
	register_or_fail(arg);
	reschedule();
	return NULL;
}

/* An exited thread reads off CPU, and the kernel stops writing. */
static void test_thread_exit_clears(void)
{
	struct rseq_abi_sched_state *st = new_state();
	pthread_t thread;

	require_sched_state();
	CHECK_OK(pthread_create(&thread, NULL, register_and_exit, st));
	CHECK_OK(pthread_join(thread, NULL));
	CHECK(st->version == 0, "version %u: never registered", st->version);
	CHECK(load_state(st) == 0, "state %#x after the thread exited", load_state(st));
	st->state = 0x5a5a5a5a;
	reschedule();
	CHECK(st->state == 0x5a5a5a5a, "the kernel wrote %#x after exit", st->state);
}

/*
 * The state must stay mapped and writable while registered, as struct
 * rseq must: a thread that breaks that receives SIGSEGV at its next
 * return to user space, and the kernel stays healthy (the suite checks
 * dmesg).
 */
static void check_segv_after(int (*breaker)(void *addr, size_t len))
{
	int status;
	pid_t pid;

	require_sched_state();
	pid = fork();
	CHECK_SYS(pid);
	if (!pid) {
		struct rseq_abi_sched_state *st = new_state();

		register_or_fail(st);
		if (breaker(st, getpagesize()))
			_exit(2);
		reschedule();
		_exit(0);
	}
	status = wait_status(pid);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV,
	      "child: wait status %#x, expected death by SIGSEGV", status);
}

static int unmap(void *addr, size_t len)
{
	return munmap(addr, len);
}

static int make_readonly(void *addr, size_t len)
{
	return mprotect(addr, len, PROT_READ);
}

static void test_munmap_after_registration_segv(void)
{
	check_segv_after(unmap);
}

static void test_readonly_after_registration_segv(void)
{
	check_segv_after(make_readonly);
}

static const struct test_case cases[] = {
	TEST_CASE(feature_size),
	TEST_CASE(register_sets_version),
	TEST_CASE(register_without_state),
	TEST_CASE(register_32_bytes_glibc_style),
	TEST_CASE(misaligned_einval),
	TEST_CASE(unmapped_efault),
	TEST_CASE(readonly_efault),
	TEST_CASE(kernel_address_efault),
	TEST_CASE(end_of_user_space_efault),
	TEST_CASE(failed_registration_keeps_existing),
	TEST_CASE(on_cpu_while_running),
	TEST_CASE(off_cpu_futex),
	TEST_CASE(off_cpu_poll),
	TEST_CASE(off_cpu_nanosleep),
	TEST_CASE(off_cpu_preempted),
	TEST_CASE(unregister_clears),
	TEST_CASE(fork_child_inherits),
	TEST_CASE(clone_vm_child_unregistered),
	TEST_CASE(execve_forgets_state),
	TEST_CASE(thread_exit_clears),
	TEST_CASE(munmap_after_registration_segv),
	TEST_CASE(readonly_after_registration_segv),
};

/* glibc registers rseq unless told not to: start again without it. */
static void ensure_glibc_rseq_off(char **argv)
{
	const char *old = getenv("GLIBC_TUNABLES");
	char *tunables;

	if (!__rseq_size)
		return;
	if (asprintf(&tunables, "%s%sglibc.pthread.rseq=0", old ? old : "",
		     old ? ":" : "") < 0 ||
	    setenv("GLIBC_TUNABLES", tunables, 1)) {
		perror("sched_state_abi: setenv");
		exit(2);
	}
	execv("/proc/self/exe", argv);
	perror("sched_state_abi: execv /proc/self/exe");
	exit(2);
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "--exec-child"))
		return exec_child(argv[2], argv[3]);
	ensure_glibc_rseq_off(argv);
	return run_tests("abi", cases, ARRAY_SIZE(cases), argc > 1 ? argv[1] : NULL);
}
