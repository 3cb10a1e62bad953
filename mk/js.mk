# The browser side: jsbridge (the `pqscan` npm package), the web demo, the e2e tests and
# `make demo`. Included by the root Makefile.
#
#   make test-js   JS unit tests (node --test) of jsbridge against local servers
#   make test-types tsc --noEmit --strict over jsbridge/test/types/usage.ts and the declarations (check.mjs)
#   make test-e2e  headless Chromium (Debian /usr/bin/chromium via playwright-core) against pqserve
#   make js        the browser bundles in jsbridge/dist (esbuild)
#   make demo      sample file and dataset + server on 127.0.0.1 + a query; serves the web demo
#                  until Ctrl-C (it prints the single-file and the dataset-mode URLs)

NPM        ?= npm
NODE       ?= node
CHROMIUM   ?= /usr/bin/chromium
SAMPLE     := .cache/sample/events.parquet
# The dataset mode's sample (pqserve gen-dataset) is the folder .cache/sample/ds/, served at
# /data/ds/; its Hive folder names hold '=', which make cannot have in a target: a stamp stands
# for it.
SAMPLE_DS  := .cache/sample-ds.stamp
# The map view's sample (pqserve gen-geo): places and buildings in .cache/sample/geo/.
SAMPLE_GEO := .cache/sample/geo/places.parquet
PQSERVE    := bin/pqserve
DEMO_ADDR  ?= 127.0.0.1:8080
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD := 1

TEST_HOOKS += test-js test-types test-e2e

.PHONY: js test-js test-types test-e2e demo js-deps e2e-deps

# npm ci only when node_modules is missing or older than the lock file.
jsbridge/node_modules/.package-lock.json: jsbridge/package-lock.json
	cd jsbridge && $(NPM) ci --no-audit --no-fund
	@touch $@
e2e/node_modules/.package-lock.json: e2e/package-lock.json
	cd e2e && $(NPM) ci --no-audit --no-fund
	@touch $@
js-deps: jsbridge/node_modules/.package-lock.json
e2e-deps: e2e/node_modules/.package-lock.json

# The package's copies of the modules (gitignored): what `new URL('../pqscan.wasm', import.meta.url)` finds.
jsbridge/pqscan.wasm: $(WASM)
	cp $(WASM) $@
jsbridge/pqscan-lean.wasm: $(WASM_LEAN)
	cp $(WASM_LEAN) $@

JS_SRC := $(wildcard jsbridge/src/*.js) jsbridge/tools/entry-chunks.mjs
jsbridge/dist/pqscan.js: $(JS_SRC) jsbridge/node_modules/.package-lock.json
	@# The entry splits: apache-arrow, imported dynamically (src/arrow.js), becomes its own chunk
	@# (arrow-HASH.js), fetched while the module compiles instead of before the engine's start.
	@# The Worker's bundle is built on its own, whole: a module Worker importing shared chunks
	@# would fetch them one after the other before its first message.
	rm -rf jsbridge/dist
	cd jsbridge && ./node_modules/.bin/esbuild pqscan=src/index.js --bundle --format=esm --splitting \
		--chunk-names=[name]-[hash] --platform=browser --target=es2022 --outdir=dist \
		--external:node:* --log-level=warning
	@# The entry's import of esbuild's shared helper chunk is dropped (tools/entry-chunks.mjs):
	@# the entry uses none of it, and the page would fetch it before evaluating the entry.
	cd jsbridge && $(NODE) tools/entry-chunks.mjs dist/pqscan.js
	cd jsbridge && ./node_modules/.bin/esbuild src/worker.js --bundle --format=esm \
		--platform=browser --target=es2022 --outdir=dist \
		--external:node:* --log-level=warning
	@# pqscan.js refers to its worker as ./worker.js: the files stay side by side.

js: jsbridge/dist/pqscan.js jsbridge/pqscan.wasm jsbridge/pqscan-lean.wasm

test-js: jsbridge/pqscan.wasm jsbridge/pqscan-lean.wasm js-deps duckdb-deps
	cd jsbridge && $(NODE) --test test/*.test.js

test-types: js-deps
	cd jsbridge && $(NODE) test/types/check.mjs

$(PQSERVE): $(wildcard cmd/pqserve/*.go) $(wildcard internal/faultserver/*.go)
	$(GO) build -o $@ ./cmd/pqserve

$(SAMPLE): $(wildcard cmd/pqserve/gen.go internal/events/*.go)
	@mkdir -p $(dir $@)
	$(GO) run ./cmd/pqserve gen -o $@

$(SAMPLE_GEO): $(wildcard cmd/pqserve/gengeo.go internal/geosample/*.go)
	$(GO) run ./cmd/pqserve gen-geo -o $(dir $@)

$(SAMPLE_DS): $(wildcard cmd/pqserve/gendataset.go internal/events/*.go)
	$(GO) run ./cmd/pqserve gen-dataset -o $(dir $(SAMPLE))ds
	@touch $@

test-e2e: js $(PQSERVE) $(SAMPLE) $(SAMPLE_DS) $(SAMPLE_GEO) e2e-deps
	cd e2e && CHROMIUM=$(CHROMIUM) $(NODE) --test --test-concurrency=1 tests/*.test.js

demo: js $(PQSERVE) $(SAMPLE) $(SAMPLE_DS) $(SAMPLE_GEO)
	@$(MAKE) --no-print-directory build >/dev/null 2>&1 || echo "demo: could not build bin/pqscan; skipping the CLI query"
	@if [ -x bin/pqscan ]; then \
		echo "\$$ bin/pqscan cat $(SAMPLE) --where \"tenant_id = 42 AND event_type = 'purchase'\" --limit 5 --format table"; \
		bin/pqscan cat $(SAMPLE) --where "tenant_id = 42 AND event_type = 'purchase'" --limit 5 --format table || true; \
		echo; \
	fi
	$(PQSERVE) serve -addr $(DEMO_ADDR) -data $(dir $(SAMPLE)) -web web -js jsbridge/dist -wasm $(WASM) -query "tenant_id = 42 AND event_type = 'purchase'"
