# The README's commands. Each installs what it needs first.
SWIFT ?= swift

.PHONY: dependencies build test sanitize demo fuzz bench

dependencies:
	@scripts/install-dependencies

build: dependencies
	$(SWIFT) build

# Every test suite: unit, fuzz (seeded; GROUPVAULT_SEED=<n> replays), multi-process, fault injection.
# One `swift test` per test target, two targets at a time (scripts/test-targets; TEST_JOBS=1 runs
# them one after another); each target's output is printed whole once it is done, then a summary.
# All suites are XCTest; Swift Testing is disabled so each run ends on XCTest's own summary line
# rather than on an empty "0 tests" report from the other runner.
# GROUPVAULT_LARGE_TESTS=1 also runs the functional 10,000-record group (about 2.5 minutes of
# fsyncs in a debug build); a bare `swift test` leaves it out for quick local runs.
# Then the reference docs (`docs` below): CI runs exactly this command, so a DocC warning fails CI
# without a command of its own (docs/ARCHITECTURE.md, "Reference docs").
test: dependencies
	GROUPVAULT_LARGE_TESTS=1 SWIFT=$(SWIFT) scripts/test-targets
	SWIFT=$(SWIFT) scripts/docs

# Every library product's DocC catalog (Sources/<Target>/<Target>.docc) through swift-docc-plugin;
# fails on any DocC warning and on a public symbol left out of its module's Topics (scripts/docs).
.PHONY: docs
docs: dependencies
	SWIFT=$(SWIFT) scripts/docs

# The suites under AddressSanitizer (all) and ThreadSanitizer (the multi-threaded ones), then
# every libFuzzer target for FUZZ_SECONDS (10 s here) printing the executions reached
# (README, "Sanitizers"). CI runs it after `test`.
sanitize: dependencies
	FUZZ_SECONDS=$(or $(SANITIZE_FUZZ_SECONDS),10) scripts/sanitize

# The app/widget flow across two real processes.
demo: dependencies
	scripts/demo

# vaultcli's man page, from the same definitions as its --help (docs/CLI.md, "Manual page").
.PHONY: man
man: dependencies
	$(SWIFT) package generate-manual --configuration debug && mkdir -p .build/man && cp .build/plugins/GenerateManual/outputs/vaultcli/vaultcli.1 .build/man/

# Coverage-guided fuzzing of every parser with libFuzzer, 30 s per target (README, "Fuzzing");
# FUZZ_SECONDS=<n> runs each target longer. `test` replays the committed corpus; this searches
# for new inputs, so it is run on purpose rather than on every test run.
FUZZ_SECONDS ?= 30
fuzz: dependencies
	scripts/fuzz all $(FUZZ_SECONDS)

# Measures GroupVault's operations, each interleaved with its C floor (libsodium, SQLite) and the
# peers a Linux user would pick (SQLCipher, the kernel keyring, D-Bus), against the performance
# targets, and rewrites BENCHMARKS.md (Benchmarks/README.md). Every product is built first, and the C
# programs (the peers' C processes, ProcessMeter) compiled beside them: the benchmark starts them as child processes.
# Benchmarks/ANALYSIS.md (why a missed target is missed, from a profile) goes into the report.
# BENCH_FLAGS passes options, e.g. BENCH_FLAGS=--quick (not for committing) or --note "...".
BENCH_FLAGS ?=
bench:
	@scripts/install-dependencies --bench
	@pkg-config --exists sqlite3 || { echo "make bench needs SQLite's headers for its floors: sudo apt-get install libsqlite3-dev" >&2; exit 1; }
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { echo "make bench needs PostgreSQL's server programs for the sync figures (it starts a throw-away server): sudo apt-get install postgresql" >&2; exit 1; }
	cd Benchmarks && $(SWIFT) build -c release && ./build-c-programs .build/release && .build/release/GroupVaultBenchmarks --output ../BENCHMARKS.md --analysis ANALYSIS.md $(BENCH_FLAGS)
