# teamlead — the Makefile is the entry point. `make help` lists the targets.
GO        ?= go
BIN       := bin
CONFIG    ?= configs/team.yaml
STATE     ?= .teamlead-demo
FUZZTIME  ?= 5m
# Where the real agent CLIs are installed with npm, one folder each
# (claude/, codex/, gemini/); .ci/run installs them there.
CLIS      ?= $(HOME)/.cache/teamlead/clis
# CI runs every fuzz target for this many inputs as part of `make test`: a
# count, not a duration, because Go's fuzz coordinator can fail a target with
# "context deadline exceeded" when a duration ends while a starved worker is
# mid-input (seen in CI on FuzzEscapeName); a count has no deadline to race.
CI_FUZZTIME ?= 20000x
LDFLAGS   := -X main.version=$(shell git describe --always --dirty 2>/dev/null || echo dev)

.PHONY: help run demo build test unit e2e e2e-real soak soak-short bench fuzz fuzz-ci lint fmt clean

help: ## list the targets
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-8s %s\n", $$1, $$2}'

build: ## build bin/teamlead and bin/mockagent
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/teamlead ./cmd/teamlead
	$(GO) build -o $(BIN)/mockagent ./cmd/mockagent

run: build ## open the console on the bundled demo team (q quits)
	$(BIN)/teamlead run --config $(CONFIG) --state $(STATE)

demo: build ## run the demo team headless, printing events (Ctrl-C stops)
	$(BIN)/teamlead run --headless --config $(CONFIG) --state $(STATE)

test: lint unit fuzz-ci soak-short ## everything CI runs: vet, gofmt, all tests with -race (end-to-end included), a short fuzz, the 2-minute soak

unit: ## all Go tests with the race detector
	$(GO) test -race -count=1 -timeout 20m ./...

e2e: ## only the end-to-end tests (real binary, real PTYs)
	$(GO) test -race -count=1 -timeout 20m ./internal/e2e/...

e2e-real: ## the real Claude Code, Codex, Gemini CLI, Copilot CLI and OpenCode inside teamlead, offline (CLIS=folder of their npm installs)
	TEAMLEAD_CLIS=$(CLIS) $(GO) test -tags realcli -count=1 -timeout 15m -v ./internal/realcli/...

# The soak (internal/soak, build tag soak): the real console headless over
# SOAK_AGENTS mockagent agents (odd ones echo, even ones raw) sending mixed
# traffic, with random SIGKILLs of the console and the agents; it fails
# naming each broken invariant's message id, sender, recipient and the
# folder of the logs. SOAK_SEED=N repeats a run's random choices (default:
# 1 for soak-short, so CI repeats one schedule; a new one, printed, for
# soak); SOAK_DIR keeps the logs there; SOAK_TEAMLEAD soaks another
# teamlead binary than the one built from this tree.
SOAK_DURATION ?= 10m
SOAK_AGENTS   ?= 20
SOAK_RATE     ?= 2
SOAK_SEED     ?=
SOAK_DIR      ?=
SOAK_TEAMLEAD ?=
SOAK_ARGS      = -soak.agents=$(SOAK_AGENTS) -soak.rate=$(SOAK_RATE) -soak.dir=$(SOAK_DIR) -soak.teamlead=$(SOAK_TEAMLEAD)

soak-short: ## the 2-minute soak: 20 agents, kills, every invariant (seed 1; SOAK_SEED=N for another)
	$(GO) test -tags soak -count=1 -v -timeout 15m -run '^TestSoak$$' ./internal/soak -args -soak.duration=2m -soak.seed=$(or $(SOAK_SEED),1) $(SOAK_ARGS)

soak: ## the long soak: SOAK_DURATION (10m), SOAK_AGENTS (20), SOAK_RATE (msg/s each), SOAK_SEED (new), SOAK_DIR
	$(GO) test -tags soak -count=1 -v -timeout 0 -run '^TestSoak$$' ./internal/soak -args -soak.duration=$(SOAK_DURATION) -soak.seed=$(or $(SOAK_SEED),0) $(SOAK_ARGS)

# package:target for every fuzz target; `make fuzz` runs each for FUZZTIME.
FUZZ_TARGETS := ./internal/protocol:FuzzParser ./internal/protocol:FuzzStripANSI ./internal/protocol:FuzzDefuse ./internal/textsafe:FuzzText ./internal/textsafe:FuzzClip ./internal/cellwidth:FuzzCell \
	./internal/config:FuzzLoadTeam ./agents:FuzzSanitize ./cmd/mockagent:FuzzParse ./cmd/mockagent:FuzzEnvelopeReader \
	./internal/store:FuzzEscapeName ./internal/questions:FuzzParseRoutes ./internal/questions:FuzzParseSLA \
	./internal/questions:FuzzMatchAgreesWithGlob ./internal/vt:FuzzTerminal ./internal/vt:FuzzResizeReflow ./internal/progress:FuzzParse ./internal/queryfiles:FuzzParseQuery ./internal/tasks:FuzzValidateReview ./internal/permit:FuzzParseRule ./internal/permit:FuzzSplitShell ./internal/permit:FuzzFloorAnywhere ./internal/permit:FuzzArchives ./internal/permit:FuzzAlwaysPrefix ./internal/detect:FuzzDetect ./internal/detect:FuzzPending ./internal/soak:FuzzParseLog ./internal/usage:FuzzClaudeTranscript ./internal/usage:FuzzOpenCodeSessions ./internal/store:FuzzTuple ./bus/natsbus:FuzzSubjects ./internal/worktree:FuzzParsers

fuzz-ci:
	@$(MAKE) --no-print-directory fuzz FUZZTIME=$(CI_FUZZTIME)

fuzz: ## fuzz every parser for FUZZTIME each (default 5m)
	@set -e; for t in $(FUZZ_TARGETS); do \
	  echo "fuzz $${t#*:} in $${t%%:*} for $(FUZZTIME)"; \
	  $(GO) test -run=NONE -fuzz="^$${t#*:}$$" -fuzztime=$(FUZZTIME) "$${t%%:*}" >/tmp/teamlead-fuzz.log 2>&1 || { cat /tmp/teamlead-fuzz.log; exit 1; }; \
	done

bench: build ## parser and relay figures as ratios to a baseline measured in the same run
	$(GO) run ./cmd/tlbench

lint: ## go vet and a gofmt check
	$(GO) vet ./...
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

fmt: ## format the code
	gofmt -w $$(find . -name '*.go' -not -path './.git/*')

clean: ## remove build output and the demo state
	rm -rf $(BIN) $(STATE)
