# Fuzzing: `make fuzz` runs every fuzz target of the repository, one at a time, for FUZZTIME
# each with one worker (the machine is shared). `make fuzz-list` prints the targets.
#
# Targets are discovered, not listed: every `func FuzzXxx` at the start of a line in a
# _test.go file (node_modules and dot-directories skipped), as "dir/file_test.go:FuzzXxx".
# internal/scan/fuzzmk_test.go checks that this discovery finds every fuzz target go/parser finds.
# Crashers are written to <package>/testdata/fuzz/<Target>/ by go test; commit them as
# regression seeds.

FUZZTIME  ?= 1m
# Minimizing each new corpus entry for 5 s left FuzzEngine 39 executions in a minute
# (docs/RELIABILITY.md), so minimization is one attempt; to shrink a crasher, rerun its target
# with a larger -fuzzminimizetime.
FUZZFLAGS ?= -parallel=1 -fuzzminimizetime=1x
FUZZ_TARGETS = $(shell grep -rHo --include='*_test.go' --exclude-dir=node_modules --exclude-dir='.?*' \
	'^func Fuzz[A-Za-z0-9_]*' . | sed 's/:func /:/' | sort -u)

.PHONY: fuzz fuzz-list fuzz-short

# fuzz-short is the short pass `make test` runs (so CI runs it): every target replays its seeds
# and regression files, then runs FUZZ_SHORT mutated inputs. It starts from an empty fuzz cache
# (a temporary -test.fuzzcachedir), because go test counts the replay of a warm cache against
# -fuzztime: with a machine's accumulated corpus, 1000x would mutate nothing. A thousand inputs
# will not find what the long runs did not, but they prove each target still builds, starts
# and mutates, which the seed replay of `go test ./...` does not.
FUZZ_SHORT ?= 1000x
TEST_HOOKS += fuzz-short

# A run that ends "context deadline exceeded" without writing a failing input is Go's fuzz
# coordinator racing its own -fuzztime deadline (go.dev/issue/75804, fixed in Go 1.27; seen
# here on go1.26.8 after FuzzColumnIndex's full 10 minutes): reported, not counted as a crash.
fuzz:
	@set -e; log=$$(mktemp); trap 'rm -f "$$log" "$$log.rc"' EXIT; for t in $(FUZZ_TARGETS); do \
		dir=$$(dirname "$${t%%:*}"); name="$${t##*:}"; \
		echo "== $$dir $$name (-fuzztime=$(FUZZTIME))"; \
		{ $(GO) test "$$dir" -run '^$$' -fuzz "^$$name\$$" -fuzztime=$(FUZZTIME) $(FUZZFLAGS) 2>&1; echo $$? > "$$log.rc"; } | tee "$$log"; \
		if [ "$$(cat "$$log.rc")" != 0 ]; then \
			if grep -q 'context deadline exceeded' "$$log" && ! grep -q 'Failing input written' "$$log"; then \
				echo "fuzz: $$name hit go.dev/issue/75804 at its deadline (no failing input): not a crash"; \
			else exit 1; fi; \
		fi; \
	done

fuzz-list:
	@for t in $(FUZZ_TARGETS); do echo "$$(dirname "$${t%%:*}") $${t##*:}"; done

fuzz-short:
	@set -e; cache=$$(mktemp -d); trap 'rm -rf "$$cache"' EXIT; for t in $(FUZZ_TARGETS); do \
		dir=$$(dirname "$${t%%:*}"); name="$${t##*:}"; \
		out=$$($(GO) test "$$dir" -run '^$$' -fuzz "^$$name\$$" -fuzztime=$(FUZZ_SHORT) $(FUZZFLAGS) -args -test.fuzzcachedir="$$cache/$$name" 2>&1) \
			|| { echo "$$out"; echo "fuzz-short: $$dir $$name failed"; exit 1; }; \
		echo "fuzz-short: $$dir $$name: $$(echo "$$out" | grep -o 'execs: [0-9]*' | tail -1)"; \
	done
