# pqtls: the two commands a fresh machine needs are `make run` and `make test`.
# Both install missing Debian packages, find or build OpenSSL >= 3.5 (cached outside the
# clone, in ~/.cache/pqtls), build pqtls, and then run the quick job or every test.
BUILD      ?= build
BUILD_ASAN ?= build-asan
JOBS       ?= $(shell nproc)

.PHONY: all deps openssl build run test test-fast test-asan bench clean

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

run: build
	@bash scripts/quick-run.sh $(BUILD)/pqtls

test-fast: build
	@cd $(BUILD) && ctest --output-on-failure -j 1

test-asan: deps openssl
	@cmake -S . -B $(BUILD_ASAN) -DPQTLS_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug \
		-DPQTLS_OPENSSL="$$(cat $(BUILD)/openssl-prefix)" >/dev/null
	@cmake --build $(BUILD_ASAN) -j $(JOBS)
	@cd $(BUILD_ASAN) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		ctest --output-on-failure -L unit

# Every test on the normal build, then the unit tests again under ASan+UBSan.
test: build
	@$(MAKE) --no-print-directory test-asan
	@cd $(BUILD) && ctest --output-on-failure -j 1

bench: build
	@for b in bench/*.sh; do echo "== $$b"; PQTLS=$(BUILD)/pqtls bash $$b || exit 1; done

clean:
	rm -rf $(BUILD) $(BUILD_ASAN)
