# routeguard — see README.md. `make test` is what CI runs (.ci/run).
GO       ?= go
BIN      ?= bin
GOFLAGS  ?= -buildvcs=false
# Static binaries, as the sidecar image ships them (and as Istio and Argo CD
# release theirs). With cgo, Kustomize's Go-plugin loader (package plugin)
# makes the linker export every symbol: a 135 MB binary instead of 86 MB,
# and ~30 MB more resident memory per run. Tests build the same way, so
# they share the build cache with `make build`.
CGO_ENABLED ?= 0
export GOFLAGS CGO_ENABLED

.PHONY: all build demo test test-main test-race test-sdk test-compat lint bench clean

all: build

# build: routeguard and its first-party Istio analysis plugin (kept out of the
# main binary so apps without Istio objects do not pay for Istio's packages).
build:
	$(GO) build -o $(BIN)/routeguard ./cmd/routeguard
	$(GO) build -o $(BIN)/routeguard-istio ./cmd/routeguard-istio

# demo: build routeguard; render and analyze every bundled example app.
demo: build
	./scripts/demo.sh $(BIN)/routeguard

test: test-main test-race test-sdk test-compat

test-main: build
	ROUTEGUARD_BIN=$(CURDIR)/$(BIN)/routeguard $(GO) test -count=1 -timeout 30m ./...

# test-race: the tests that render many repositories concurrently in one
# process, under the race detector (which needs cgo).
test-race:
	CGO_ENABLED=1 $(GO) test -race -count=1 -timeout 30m -run 'Concurrent' ./internal/render/ ./internal/pipeline/

# test-sdk: the plugin SDK is its own module (plugin authors do not pull in
# routeguard's dependencies).
test-sdk:
	cd plugins/sdk && $(GO) test -count=1 ./...

# test-compat runs routeguard's artifacts through Argo CD's own code
# (argocd-cmp-server, Lua VM, notifications, install manifests) of Argo CD
# v3.5.7. Cold build: see README ("Argo CD versions tested").
test-compat: build
	cd compat/argocd && ROUTEGUARD_BIN=$(CURDIR)/$(BIN)/routeguard $(GO) test -count=1 -timeout 30m ./...

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	cd plugins/sdk && $(GO) vet ./...
	cd compat/argocd && $(GO) vet ./...

bench: build
	./scripts/bench.sh

clean:
	rm -rf $(BIN) .bench
