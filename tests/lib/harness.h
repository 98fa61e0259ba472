/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A small test harness shared by the host and guest test programs.
 *
 * Each case runs in a child process of its own, with a timeout, so that
 * a crash, a hang or a leftover rseq registration affects that case
 * only; whatever processes the case started end with it. It prints one
 * line per case on stdout:
 *
 *   PASS <prefix>/<name>
 *   FAIL <prefix>/<name>: <why>
 *   SKIP <prefix>/<name>: <why>
 *
 * and the suite scripts count those lines.
 */
#ifndef HARNESS_H
#define HARNESS_H

#include <stddef.h>

struct test_case {
	const char *name;
	void (*run)(void);
	/*
	 * Seconds before the case is killed and failed; 0 for the default.
	 * Both are multiplied by $TEST_TIMEOUT_SCALE (default 1), which a
	 * slower machine raises (tests/guest/run-suite.sh, for TCG guests).
	 */
	unsigned int timeout_s;
};

/*
 * The longest case of mutex_semantics took 0.75 s (thread_churn: 2400
 * threads) on a 2-core host loaded by a kernel build, 2026-12-04; 10 s
 * leaves more than ten times that, and fails a hung case in seconds.
 */
#define TEST_DEFAULT_TIMEOUT_S	10

/* How a case's process ends (the skip status is automake's). */
enum { TEST_EXIT_PASS = 0, TEST_EXIT_FAIL = 1, TEST_EXIT_SKIP = 77 };

/* The case test_<name>(), reported as <name>. */
#define TEST_CASE(case_name) { .name = #case_name, .run = test_##case_name }

/*
 * Run @cases whose name contains @filter (all when NULL). Returns the
 * process exit status: 0 when none failed, 1 otherwise.
 */
int run_tests(const char *prefix, const struct test_case *cases, size_t nr_cases,
	      const char *filter);

/* End the running case. */
void test_fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
void test_skip(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

#define CHECK(cond, fmt, ...)							\
	do {									\
		if (!(cond))							\
			test_fail("%s:%d: %s: " fmt, __FILE__, __LINE__, #cond,	\
				  ##__VA_ARGS__);				\
	} while (0)

/* Fail the case when a call returning 0 or an error number (pthread) fails. */
#define CHECK_OK(call)								\
	do {									\
		int check_ok_err = (call);					\
		if (check_ok_err)						\
			test_fail("%s:%d: %s: %s", __FILE__, __LINE__, #call,	\
				  strerror(check_ok_err));			\
	} while (0)

/* Fail the case when a system call returning -1 with errno fails. */
#define CHECK_SYS(call)								\
	do {									\
		if ((call) == -1)						\
			test_fail("%s:%d: %s: %m", __FILE__, __LINE__, #call);	\
	} while (0)

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Sleep for @ms milliseconds. */
void sleep_ms(unsigned int ms);

/* Monotonic time in nanoseconds. */
unsigned long long now_ns(void);

#endif /* HARNESS_H */
