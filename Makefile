# routeguard — see README.md. `make test` is what CI runs (.ci/run).
GO       ?= go
BIN      ?= bin
GOFLAGS  ?= -buildvcs=false
export GOFLAGS

.PHONY: all build demo test test-main test-compat lint bench clean

all: build

build:
	$(GO) build -o $(BIN)/routeguard ./cmd/routeguard && $(GO) build -o $(BIN)/routeguard-istio ./cmd/routeguard-istio

# demo: build routeguard and render every bundled example app.
demo: build
	./scripts/demo.sh $(BIN)/routeguard

test: test-main test-compat

test-main: build
	ROUTEGUARD_BIN=$(CURDIR)/$(BIN)/routeguard $(GO) test -count=1 -timeout 30m ./...

# test-compat runs routeguard's artifacts through Argo CD's own code
# (argocd-cmp-server, Lua VM, notifications). Cold build: ~4 minutes.
test-compat: build
	cd compat/argocd && ROUTEGUARD_BIN=$(CURDIR)/$(BIN)/routeguard $(GO) test -count=1 -timeout 30m ./...

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	cd compat/argocd && $(GO) vet ./...

bench: build
	./scripts/bench.sh

clean:
	rm -rf $(BIN) .bench
