# The README's commands. Each installs what it needs first.
SWIFT ?= swift

.PHONY: dependencies build test demo

dependencies:
	@scripts/install-dependencies

build: dependencies
	$(SWIFT) build

# Every test suite: unit, fuzz (seeded; GROUPVAULT_SEED=<n> replays), multi-process, fault injection.
# All suites are XCTest; Swift Testing is disabled so the run ends on XCTest's own summary line
# rather than on an empty "0 tests" report from the other runner.
test: dependencies
	$(SWIFT) test --disable-swift-testing

# The app/widget flow across two real processes.
demo: dependencies
	scripts/demo
