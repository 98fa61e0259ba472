# libadaptive: owner-aware adaptive pthread mutexes. `make help` lists
# the targets; every output goes under $(BUILD) (git-ignored).

BUILD ?= $(CURDIR)/build
export BUILD_DIR := $(BUILD)

CC ?= gcc
WARNINGS := -Wall -Wextra -Werror -Wshadow -Wmissing-prototypes -Wformat=2 \
	-Wno-unused-parameter
CFLAGS := -O2 -g -pthread $(WARNINGS)

PRELOAD_SRC := $(wildcard preload/*.c)
PRELOAD_DEPS := $(PRELOAD_SRC) $(wildcard preload/*.h) preload/libadaptive.map
PRELOAD := $(BUILD)/libadaptive.so

TEST_CFLAGS := $(CFLAGS) -Itests/lib -Ipreload
HARNESS := tests/lib/harness.c tests/lib/harness.h
GUEST_TESTS := $(patsubst tests/guest/%.c,$(BUILD)/tests/guest/%,$(wildcard tests/guest/*.c))
HOST_TESTS := $(patsubst tests/host/%.c,$(BUILD)/tests/host/%,$(wildcard tests/host/*.c))
HELPERS := $(BUILD)/tests/helpers/exit_paths $(BUILD)/tests/helpers/owner_blocks \
	$(BUILD)/tests/helpers/glibc_rseq_intact $(BUILD)/tests/helpers/waiter_shares_cpu \
	$(BUILD)/tests/helpers/sched_state_probe $(BUILD)/tests/helpers/passthrough_calls \
	$(BUILD)/tests/helpers/random_stress $(BUILD)/tests/helpers/relock_waits \
	$(BUILD)/tests/helpers/owner_foreign $(BUILD)/tests/helpers/locked_memory \
	$(BUILD)/tests/helpers/exit_destructor_locks $(BUILD)/tests/helpers/yield_then_hold \
	$(BUILD)/tests/helpers/yield_in_section $(BUILD)/tests/helpers/long_holds \
	$(BUILD)/tests/helpers/libearly_lock.so $(BUILD)/tests/helpers/libnext_profiler.so \
	$(BUILD)/tests/helpers/libexhaust_keys.so $(BUILD)/tests/helpers/libcount_clock.so
WORKLOAD_PROGRAMS := $(patsubst workloads/%.c,$(BUILD)/workloads/%,$(wildcard workloads/*.c))
# vm-bench's baselines: glibc's own mutex kinds applied to every mutex,
# and a preload that defines nothing (the harness's control).
BASELINES := $(BUILD)/workloads/libglibc-adaptive.so $(BUILD)/workloads/libkernel-spin.so \
	$(BUILD)/workloads/libempty-preload.so

SELFTESTS_SRC := $(BUILD)/kernel/patched/src/tools/testing/selftests/rseq
SELFTESTS := $(BUILD)/selftests/rseq

.PHONY: help deps preload workloads vm-bench kernel kernel-stock kernel-debug kernel-debian selftests tests initramfs vm-run vm-run-usage vm-test test \
	host-test install uninstall clean

help:
	@echo 'Usage: make TARGET [VARIABLE=value...]'
	@echo
	@echo 'Targets:'
	@echo '  test          host tests, then vm-test; ends with "N passed, N failed"'
	@echo '  vm-test       the guest suite on build/bzImage, bzImage-debug and vmlinuz-debian'
	@echo '  vm-bench      lock workloads under every policy in the guest [PROFILE=smoke|quick|contract|full]'
	@echo '  host-test     the host tests only'
	@echo '  vm-run        run CMD in the guest: make vm-run CMD="..." [FILES="..."] [KERNEL=stock|debug|debian]'
	@echo '  preload       build/libadaptive.so: LD_PRELOAD=build/libadaptive.so ./app'
	@echo '  install       $$(DESTDIR)$$(PREFIX)/lib/libadaptive.so [PREFIX=$(PREFIX)]'
	@echo '  uninstall     remove what install installed'
	@echo '  kernel        build/bzImage: Debian linux-source-6.12 + kernel/patches'
	@echo '  kernel-stock  build/bzImage-stock: the same tree and config, unpatched'
	@echo '  kernel-debug  build/bzImage-debug: kernel + kernel/config/debug.config (lockdep,'
	@echo '                sleep-in-atomic and rseq checks, full preemption)'
	@echo '  kernel-debian build/vmlinuz-debian: Debian'"'"'s own build of the same 6.12 release,'
	@echo '                the stock kernel of the guest suite'
	@echo '  selftests     the rseq selftests of the patched tree'
	@echo '  tests         the test programs (and workloads)'
	@echo '  workloads     the benchmark programs of workloads/'
	@echo '  initramfs     build/initramfs.cpio.gz'
	@echo '  deps          install the Debian packages every target needs (root)'
	@echo '  clean         remove build/'
	@echo
	@echo 'Variables: BUILD=$(BUILD), JOBS (kernel build jobs), V=1 (verbose kernel build),'
	@echo '  VCPUS=2, MEM=1G, ACCEL=auto|kvm|tcg, TIMEOUT (seconds) for the guest,'
	@echo '  PROFILE=smoke|quick|contract|full for vm-bench (workloads/vm-bench.sh --help)'

deps:
	scripts/install-deps.sh kernel vm test bench

preload: $(PRELOAD)

PREFIX ?= /usr/local
LIBDIR := $(DESTDIR)$(PREFIX)/lib

install: $(PRELOAD)
	install -d $(LIBDIR)
	install -m 0644 $(PRELOAD) $(LIBDIR)/libadaptive.so

uninstall:
	rm -f $(LIBDIR)/libadaptive.so

# Only the interposed symbols are exported (libadaptive.map); -z now binds
# our calls into glibc at load time, before any mutex operation.
$(PRELOAD): $(PRELOAD_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fPIC -fvisibility=hidden -shared -Wl,--version-script=preload/libadaptive.map \
		-Wl,-z,now -o $@ $(PRELOAD_SRC)

kernel: variant := patched
kernel-stock: variant := stock
kernel-debug: variant := debug
kernel kernel-stock kernel-debug:
	@scripts/install-deps.sh kernel
	@kernel/build-kernel.sh $(variant)

kernel-debian:
	@scripts/install-deps.sh kernel
	@kernel/fetch-debian-kernel.sh

# The selftests come from the patched tree, built against its headers.
selftests: kernel
	@mkdir -p $(SELFTESTS)
	@echo '[selftests] building tools/testing/selftests/rseq'
	@$(MAKE) -s -C $(SELFTESTS_SRC) OUTPUT=$(SELFTESTS) \
		KHDR_INCLUDES=-I$(BUILD)/kernel/patched/headers/include >$(BUILD)/selftests.log 2>&1 || \
		{ tail -n 20 $(BUILD)/selftests.log; echo 'selftests: build failed, see $(BUILD)/selftests.log'; exit 1; }
	@cp -p $(SELFTESTS_SRC)/run_sched_state_tests.sh $(SELFTESTS)/

tests: $(GUEST_TESTS) $(HOST_TESTS) $(HELPERS) $(PRELOAD) $(WORKLOAD_PROGRAMS) $(BASELINES)

workloads: $(WORKLOAD_PROGRAMS) $(BASELINES)

$(BUILD)/workloads/%: workloads/%.c $(wildcard workloads/*.h) preload/rseq-abi.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WORKLOAD_LDFLAGS) -Ipreload -o $@ $< -lm

# cputime wraps every bench run: static, so that the run's LD_PRELOAD
# reaches only the program it times, and a run starts about 30 ms sooner
# under TCG (no dynamic loading of cputime and of the preload into it).
$(BUILD)/workloads/cputime: WORKLOAD_LDFLAGS := -static

$(BUILD)/workloads/libglibc-adaptive.so: KIND := ADAPTIVE
$(BUILD)/workloads/libkernel-spin.so: KIND := PI
$(BUILD)/workloads/libglibc-adaptive.so $(BUILD)/workloads/libkernel-spin.so: workloads/lib/glibc-mutex-kind.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -DKIND_$(KIND) -fPIC -fvisibility=hidden -shared -o $@ $< -ldl

$(BUILD)/workloads/libempty-preload.so: workloads/lib/empty-preload.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fPIC -shared -o $@ $<

$(BUILD)/tests/%: tests/%.c $(HARNESS) preload/rseq-abi.h preload/handoff.h preload/thread.h
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) -o $@ $< tests/lib/harness.c -ldl

# Programs and a library that the test scripts run, not tests themselves.
$(BUILD)/tests/helpers/lib%.so: tests/helpers/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fPIC -shared -o $@ $<

$(BUILD)/tests/helpers/%: tests/helpers/%.c preload/rseq-abi.h tests/helpers/two_cpus.h \
	tests/helpers/publish_state.h tests/helpers/queued.h tests/helpers/clock_ms.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Ipreload -o $@ $<

# memcached is unpacked (make vm-bench), not installed: installing it
# would start its daemon on this machine.
MEMCACHED := $(BUILD)/apps/memcached/usr/bin/memcached

INITRAMFS_FILES := \
	$(SELFTESTS)=/selftests/rseq \
	$(BUILD)/tests=/tests \
	$(BUILD)/workloads=/workloads \
	$(PRELOAD)=/usr/lib/libadaptive.so \
	tests/guest/run-suite.sh=/tests/run-suite.sh \
	tests/guest/bench-harness.sh=/tests/bench-harness.sh \
	tests/guest/bench-defs=/tests/bench-defs \
	tests/preload-tests.sh=/tests/preload-tests.sh \
	tests/bounded.sh=/tests/bounded.sh \
	tests/ksft-tap.sh=/tests/ksft-tap.sh \
	workloads/run-bench.sh=/workloads/run-bench.sh \
	workloads/defs=/workloads/defs \
	/usr/bin/sysbench=/usr/bin/sysbench \
	/usr/bin/stress-ng=/usr/bin/stress-ng \
	$(foreach p,cache_bench db_bench kccachetest ptsematest hackbench memcslap,$(if $(wildcard /usr/bin/$(p)),/usr/bin/$(p)=/usr/bin/$(p))) \
	$(if $(wildcard $(MEMCACHED)),$(MEMCACHED)=/usr/bin/memcached)

initramfs: selftests tests
	@scripts/install-deps.sh vm test
	@vm-image/build-initramfs.sh $(BUILD)/initramfs.cpio.gz $(INITRAMFS_FILES)

# KERNEL=stock or debug: build/bzImage-$(KERNEL); debian: build/vmlinuz-debian;
# otherwise build/bzImage.
KERNEL_VARIANT := $(filter stock debug debian,$(KERNEL))
KERNEL_IMAGE := $(if $(filter debian,$(KERNEL_VARIANT)),$(BUILD)/vmlinuz-debian,$(BUILD)/bzImage$(KERNEL_VARIANT:%=-%))

vm-run-usage:
	@$(if $(value CMD),:,echo 'usage: make vm-run CMD="..." [FILES="..."] [KERNEL=stock|debug|debian]'; exit 2)

# CMD reaches the guest's shell verbatim, by a file of this run's own: a
# command line would have make expand its $ and run each of its lines as
# a recipe of its own.
vm-run: vm-run-usage initramfs $(KERNEL_VARIANT:%=kernel-%)
	$(eval vm_run_cmd_file := $(shell mktemp $(BUILD)/.vm-run-cmd.XXXXXX))
	$(file >$(vm_run_cmd_file),$(value CMD))
	@trap 'rm -f $(vm_run_cmd_file)' EXIT; \
	vm-image/run-vm.sh --kernel $(KERNEL_IMAGE) $(foreach f,$(FILES),--file $(f)) \
		"$$(cat $(vm_run_cmd_file))"

host-test: tests
	@scripts/install-deps.sh test
	@tests/run-tests.sh host

vm-test: initramfs kernel-debug kernel-debian
	@tests/run-tests.sh guest

test: tests initramfs kernel-debug kernel-debian
	@scripts/install-deps.sh test
	@tests/run-tests.sh host guest

# The settings are checked before anything is installed or built. The
# rest is built in one sub-make, after the deps step, which may just have
# installed the bench group's programs (cache_bench, db_bench, ...) that
# the image includes; the image builds the patched kernel (through
# selftests), so that its build runs once.
vm-bench:
	@workloads/vm-bench.sh --check
	@scripts/install-deps.sh vm bench
	@scripts/fetch-deb.sh memcached $(BUILD)/apps/memcached
	@$(MAKE) --no-print-directory kernel-stock initramfs
	@workloads/vm-bench.sh

clean:
	rm -rf $(BUILD)
