# libadaptive: owner-aware adaptive pthread mutexes. `make help` lists
# the targets; every output goes under $(BUILD) (git-ignored).

BUILD ?= $(CURDIR)/build
export BUILD_DIR := $(BUILD)

.PHONY: help deps kernel kernel-stock

help:
	@echo 'Targets:'
	@echo '  kernel        build/bzImage: Debian linux-source-6.12 + kernel/patches'
	@echo '  kernel-stock  build/bzImage-stock: the same tree and config, unpatched'
	@echo '  deps          install the Debian packages every target needs (root)'
	@echo 'Variables: BUILD=$(BUILD), JOBS (kernel build jobs), V=1 (verbose)'

deps:
	scripts/install-deps.sh kernel vm test bench

kernel:
	@scripts/install-deps.sh kernel
	@kernel/build-kernel.sh patched

kernel-stock:
	@scripts/install-deps.sh kernel
	@kernel/build-kernel.sh stock
