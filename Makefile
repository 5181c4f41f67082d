# The README's commands. Each installs what it needs first.
SWIFT ?= swift

.PHONY: dependencies build test demo

dependencies:
	@scripts/install-dependencies

build: dependencies
	$(SWIFT) build

# Every test suite: unit, fuzz (seeded; GROUPVAULT_SEED=<n> replays), multi-process, fault injection.
test: dependencies
	$(SWIFT) test

# The app/widget flow across two real processes.
demo: dependencies
	scripts/demo
