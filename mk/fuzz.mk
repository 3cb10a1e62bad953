# Fuzzing: `make fuzz` runs every fuzz target of the repository, one at a time, for FUZZTIME
# each with one worker (the machine is shared). `make fuzz-list` prints the targets.
#
# Targets are discovered, not listed: every `func FuzzXxx` at the start of a line in a
# _test.go file (node_modules and dot-directories skipped), as "dir/file_test.go:FuzzXxx".
# scan/fuzzmk_test.go checks that this discovery finds every fuzz target go/parser finds.
# Crashers are written to <package>/testdata/fuzz/<Target>/ by go test; commit them as
# regression seeds.

FUZZTIME  ?= 1m
# Minimizing each new corpus entry for 5 s left FuzzEngine 39 executions in a minute
# (docs/RELIABILITY.md), so minimization is one attempt; to shrink a crasher, rerun its target
# with a larger -fuzzminimizetime.
FUZZFLAGS ?= -parallel=1 -fuzzminimizetime=1x
FUZZ_TARGETS = $(shell grep -rHo --include='*_test.go' --exclude-dir=node_modules --exclude-dir='.?*' \
	'^func Fuzz[A-Za-z0-9_]*' . | sed 's/:func /:/' | sort -u)

.PHONY: fuzz fuzz-list

fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		dir=$$(dirname "$${t%%:*}"); name="$${t##*:}"; \
		echo "== $$dir $$name (-fuzztime=$(FUZZTIME))"; \
		$(GO) test "$$dir" -run '^$$' -fuzz "^$$name\$$" -fuzztime=$(FUZZTIME) $(FUZZFLAGS); \
	done

fuzz-list:
	@for t in $(FUZZ_TARGETS); do echo "$$(dirname "$${t%%:*}") $${t##*:}"; done
