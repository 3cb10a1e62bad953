# DuckDB as a second oracle: internal/conformance/corpus_duckdb_test.go (a Go test, run by `go test ./...` in
# test-go) reads the whole shared corpus with DuckDB through duckdb/dump.mjs, which needs the
# npm package @duckdb/node-api (pinned in duckdb/package.json; its native binary ships in the
# package). Without duckdb/node_modules the test skips, or fails under CI=true.
#
#   make duckdb-deps   npm ci in duckdb/ (when node_modules is missing or older than the lock)
#   make test-duckdb   the differential test alone, verbose

NPM ?= npm

.PHONY: duckdb-deps test-duckdb

duckdb/node_modules/.package-lock.json: duckdb/package-lock.json
	cd duckdb && $(NPM) ci --no-audit --no-fund
	@touch $@
duckdb-deps: duckdb/node_modules/.package-lock.json

# The test is part of test-go: install the oracle before it.
test-go: duckdb-deps

test-duckdb: duckdb-deps
	$(GO) test -count=1 -v -run '^TestCorpusDuckDB$$' .
