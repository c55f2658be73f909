# pqtls: the two commands a fresh machine needs are `make run` and `make test`.
# Both install missing Debian packages, find or build OpenSSL >= 3.5 (cached outside the
# clone, in ~/.cache/pqtls), build pqtls, and then run the quick job or every test.
BUILD      ?= build
BUILD_ASAN ?= build-asan
JOBS       ?= $(shell nproc)
SHELL      := /bin/bash

.PHONY: all deps openssl build run test test-fast test-asan fuzz bench clean

all: build

deps:
	@bash scripts/deps.sh

# scripts/openssl.sh prints the prefix (or "system") on its last line.
$(BUILD)/openssl-prefix: scripts/openssl.sh | deps
	@mkdir -p $(BUILD)
	@bash scripts/openssl.sh | tail -n 1 > $@.tmp && mv $@.tmp $@

openssl: $(BUILD)/openssl-prefix
	@if [ "$$(cat $<)" != system ] && [ ! -f "$$(cat $<)/.pqtls-complete" ]; then rm -f $<; $(MAKE) --no-print-directory $<; fi

build: deps openssl
	@cmake -S . -B $(BUILD) -DPQTLS_OPENSSL="$$(cat $(BUILD)/openssl-prefix)" >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

# The quick reproduction: the `quick` preset of pqtls sweep (needs root for the links), then
# the report from its database. A new run each time; `pqtls sweep --preset quick` by hand
# resumes an interrupted one.
QUICK_OUT ?= out/quick
run: build
	@rm -f $(QUICK_OUT)/results.db $(QUICK_OUT)/results.db-wal $(QUICK_OUT)/results.db-shm
	@$(BUILD)/pqtls sweep --preset quick --out $(QUICK_OUT)/results.db $(SWEEP_ARGS)
	@$(BUILD)/pqtls report $(QUICK_OUT)/results.db -o $(QUICK_OUT)/report.html --csv $(QUICK_OUT)/csv

test-fast: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The tests on an ASan+UBSan build: every one but the longest measuring ones (label
# plain_only, CMakeLists.txt says why), those that neither measure nor time themselves
# $(JOBS) at once (the others alone: RUN_SERIAL). Child processes (servers, forwarders) report
# into log files rather than a terminal nobody reads; any report fails the target.
test-asan: deps openssl
	@cmake -S . -B $(BUILD_ASAN) -DPQTLS_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug \
		-DPQTLS_OPENSSL="$$(cat $(BUILD)/openssl-prefix)" >/dev/null
	@cmake --build $(BUILD_ASAN) -j $(JOBS)
	@rm -rf $(BUILD_ASAN)/sanitizer-logs && mkdir -p $(BUILD_ASAN)/sanitizer-logs
	@cd $(BUILD_ASAN) && ASAN_OPTIONS=detect_leaks=1:log_path=$(CURDIR)/$(BUILD_ASAN)/sanitizer-logs/asan \
		UBSAN_OPTIONS=print_stacktrace=1:log_path=$(CURDIR)/$(BUILD_ASAN)/sanitizer-logs/ubsan \
		ctest --output-on-failure -j $(JOBS) -LE plain_only | tee ctest.out; exit $${PIPESTATUS[0]}
	@bash scripts/check-skips.sh $(BUILD_ASAN)/ctest.out $(BUILD_ASAN)/Testing/Temporary/LastTest.log
	@if [ -n "$$(ls -A $(BUILD_ASAN)/sanitizer-logs)" ]; then \
		echo "sanitizer reports:"; head -n 40 $(BUILD_ASAN)/sanitizer-logs/*; exit 1; fi
	@echo "sanitizers: no reports"

# The tests under ASan+UBSan, then a short run of each fuzz target (skipped, with the
# reason, without clang and libFuzzer), then on the normal build the unit tests and every
# test that measures across emulated links (labels unit, links: what those judge is the
# real build's timing) but those that judge nothing of time (asan_only), whose ctest
# summary closes the run. Every test runs at least once;
# `make test-fast` runs them all on the normal build. A test skipped for anything but the
# documented reasons (no root, no ../shared) fails the run: scripts/check-skips.sh reads
# what ctest printed.
test: build
	@$(MAKE) --no-print-directory test-asan
	@bash scripts/fuzz.sh short
	@cd $(BUILD) && ctest --output-on-failure -j 1 -L 'unit|links' -LE asan_only | tee ctest.out; exit $${PIPESTATUS[0]}
	@bash scripts/check-skips.sh $(BUILD)/ctest.out $(BUILD)/Testing/Temporary/LastTest.log

# Each libFuzzer target for FUZZ_SECONDS (default 300), one after another.
fuzz: deps openssl
	@bash scripts/fuzz.sh long

bench: build
	@for b in bench/*.sh; do echo "== $$b"; PQTLS=$(BUILD)/pqtls bash $$b || exit 1; done

clean:
	rm -rf $(BUILD) $(BUILD_ASAN) build-fuzz
