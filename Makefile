# routeguard — see README.md. `make test` is what CI runs (.ci/run).
GO       ?= go
BIN      ?= bin
GOFLAGS  ?= -buildvcs=false
# Static binaries, as the sidecar image ships them (and as Istio and Argo CD
# release theirs). With cgo, Kustomize's Go-plugin loader (package plugin)
# makes the linker export every symbol: a 172 MB binary instead of 106 MB,
# and ~30 MB more resident memory per run. Tests build the same way, so
# they share the build cache with `make build`.
CGO_ENABLED ?= 0
export GOFLAGS CGO_ENABLED

# Version stamped into `make build` and `make image` (internal/version);
# releases get theirs from GoReleaser.
VERSION  ?= $(shell git describe --tags --match 'v[0-9]*' --dirty 2>/dev/null || echo v0.0.0-dev)
REVISION ?= $(shell git rev-parse HEAD 2>/dev/null)
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
VERSION_PKG := github.com/routeguard/routeguard/internal/version
LDFLAGS  := -X $(VERSION_PKG).version=$(VERSION) -X $(VERSION_PKG).revision=$(REVISION)

# Release tools, installed from the Go module proxy into .tools/<version>/
# (Renovate bumps the versions here).
TOOLS              := $(CURDIR)/.tools
GORELEASER_VERSION := v2.15.1
CYCLONEDX_VERSION  := v1.10.0
GORELEASER         := $(TOOLS)/goreleaser-$(GORELEASER_VERSION)/goreleaser
CYCLONEDX          := $(TOOLS)/cyclonedx-gomod-$(CYCLONEDX_VERSION)/cyclonedx-gomod
IMAGE_DIR          ?= $(BIN)/image

.PHONY: fuzz all build demo test test-fresh test-main test-race test-sdk test-compat test-tools test-newcomer test-release e2e-cluster e2e-bench e2e-tools lint bench clean \
	image image-release release release-check release-snapshot schema sdk-sum tidy tools

all: build

# build: routeguard and its first-party Istio analysis plugin (kept out of the
# main binary so apps without Istio objects do not pay for Istio's packages).
# Built outside the checkout and moved into bin/ only when they changed: go
# build -o writes the file again even when it is the same, and a new
# modification time would make Go's test cache run every test that runs the
# binary again (docs/contributing.md, "Test cache").
build:
	@mkdir -p $(BIN)
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	echo "$(GO) build -ldflags \"$(LDFLAGS)\" -o $(BIN)/routeguard ./cmd/routeguard" && \
	$(GO) build -ldflags "$(LDFLAGS)" -o $$tmp/routeguard ./cmd/routeguard && \
	echo "$(GO) build -ldflags \"$(LDFLAGS)\" -o $(BIN)/routeguard-istio ./cmd/routeguard-istio" && \
	$(GO) build -ldflags "$(LDFLAGS)" -o $$tmp/routeguard-istio ./cmd/routeguard-istio && \
	for b in routeguard routeguard-istio; do cmp -s $$tmp/$$b $(BIN)/$$b || mv -f $$tmp/$$b $(BIN)/$$b || exit 1; done

# demo: build routeguard; render and analyze every bundled example app.
demo: build
	./scripts/demo.sh $(BIN)/routeguard

# make test uses Go's test cache: a second run replays the results of the
# packages whose inputs did not change (the test binary, the environment
# variables and the files a test read; docs/contributing.md, "Test cache").
# make test-fresh (TESTCOUNT=-count=1) runs every test again.
TESTCOUNT ?=
# CHECKOUT_ID: the path, size and modification time of every file of the
# checkout (bin/ included, not .git, .tools, .bench, dist), for the modules
# whose tests read the checkout from outside their own module (compat/argocd,
# release): the go command does not check those files again, so the ID goes
# into their test binaries' link flags (-X of a variable that does not
# exist: ignored by the linker, but part of the test binary's ID, so of the
# key of a cached result). Expanded when the recipe runs, after make build.
CHECKOUT_ID = $(shell find . \( -path ./.git -o -path ./.tools -o -path ./.bench -o -path ./dist \) -prune -o -printf '%p %s %T@\n' | LC_ALL=C sort | sha256sum | cut -c1-32)
CHECKOUT_LDFLAGS = -ldflags "-X routeguard.checkout=$(CHECKOUT_ID)"

test: test-main test-race test-sdk test-compat test-tools test-newcomer

test-fresh:
	$(MAKE) test TESTCOUNT=-count=1

test-main: build
	ROUTEGUARD_BIN=$(CURDIR)/$(BIN)/routeguard $(GO) test $(TESTCOUNT) -timeout 30m ./...

# test-newcomer: the four newcomer tasks of docs/contributing.md, each done
# once in a copy of the tree (test/newcomer; it compiles most of the module
# there, so it is not part of ./...).
test-newcomer:
	$(GO) test $(TESTCOUNT) -tags newcomer -timeout 30m ./test/newcomer

# test-race: the tests that render many repositories concurrently in one
# process, under the race detector (which needs cgo).
test-race:
	CGO_ENABLED=1 $(GO) test -race $(TESTCOUNT) -timeout 30m -run 'Concurrent' ./internal/render/ ./internal/action/

# fuzz: explore each fuzz target for FUZZTIME (the seeds run in make test):
# repository input (decoder, .routeguard.yaml, analyzers, the bounded
# template functions) and what reaches a terminal, a CI log or a pull
# request (report writers, escaping, workflow commands, shortening, the
# diff comment's budget and structure).
FUZZTIME ?= 30s
FUZZ_TARGETS := FuzzDecode:./internal/manifest FuzzParse:./internal/config FuzzAnalyzers:./internal/analysis/registry \
	FuzzWriters:./internal/report FuzzString:./internal/printable FuzzLines:./internal/printable FuzzCut:./internal/printable \
	FuzzMarkdown:./internal/routediff FuzzFuncs:./internal/templatelimit
fuzz:
	@for t in $(FUZZ_TARGETS); do \
		echo "== $${t%%:*}"; \
		$(GO) test -run XXX -fuzz "^$${t%%:*}$$" -fuzztime $(FUZZTIME) "$${t#*:}" || exit 1; \
	done

# test-sdk: the plugin SDK is its own module (plugin authors do not pull in
# routeguard's dependencies).
test-sdk:
	cd plugins/sdk && $(GO) test $(TESTCOUNT) ./...

# test-compat runs routeguard's artifacts through Argo CD's own code
# (argocd-cmp-server, Lua VM, notifications, install manifests) of Argo CD
# v3.5.7. Cold build: see README ("Argo CD versions tested").
test-compat: build
	cd compat/argocd && ROUTEGUARD_BIN=$(CURDIR)/$(BIN)/routeguard $(GO) test $(TESTCOUNT) $(CHECKOUT_LDFLAGS) -timeout 30m ./...

# test-tools: the release tooling's fast tests (module release/): go.sum pins
# the plugin SDK, the image's structure and reproducibility on stand-in
# binaries, the GitHub Action and GitLab template (their diff comments
# against loopback fakes of the GitHub and GitLab APIs), and the Mermaid
# route maps parsed by the mermaid npm package (scripts/check-mermaid; npm ci
# into the user cache directory on the first run).
test-tools: build
	cd release && ROUTEGUARD_BIN=$(CURDIR)/$(BIN)/routeguard $(GO) test $(TESTCOUNT) $(CHECKOUT_LDFLAGS) -timeout 30m ./modproxy/... ./image/... ./ci/... ./cmd/...

# test-release: what a release builds, built and checked: `goreleaser
# check`, the snapshot release (8 binaries, archives, checksums, SBOMs),
# the image from real binaries (twice, for reproducibility), and `go
# install .../cmd/routeguard@VERSION` through a local module proxy.
# The image is built with the snapshot's version and commit, so that the
# tests can compare its binaries with the archives'.
SNAPSHOT_VERSION = $(shell sed -n 's/.*"version":"\([^"]*\)".*/\1/p' dist/metadata.json)
SNAPSHOT_COMMIT  = $(shell sed -n 's/.*"commit":"\([^"]*\)".*/\1/p' dist/metadata.json)
test-release: release-check release-snapshot
	$(MAKE) image VERSION=v$(SNAPSHOT_VERSION) REVISION=$(SNAPSHOT_COMMIT)
	cd release && RELEASE_DIST=$(CURDIR)/dist IMAGE_LAYOUT=$(CURDIR)/$(IMAGE_DIR)/oci \
		$(GO) test -count=1 -timeout 90m ./e2e/...

# e2e-cluster: routeguard end to end on a local control plane built from the
# projects' own Go modules (e2e/tools: kube-apiserver 1.37 + etcd, Argo CD
# v3.5's multi-call binary and the helm and kustomize its repo-server runs,
# Flux's source- and kustomize-controller) and run
# as processes on 127.0.0.1: Argo CD syncs the example repository through
# routeguard's sidecar, Flux reconciles examples/flux, and routeguard's
# admission checks are measured against the real API server (README, "End to
# end"). The binaries are cached by a hash of their module (e2e/tools/build.sh);
# a warm run builds nothing. One scenario: make e2e-cluster E2E_RUN=TestFlux
E2E_RUN ?= .
e2e-cluster: build e2e-tools
	cd e2e && ROUTEGUARD_BIN=$(CURDIR)/$(BIN)/routeguard \
		ROUTEGUARD_E2E_KUBE_BIN=$$(tools/build.sh kube) \
		ROUTEGUARD_E2E_ARGOCD_BIN=$$(tools/build.sh argocd) \
		ROUTEGUARD_E2E_ARGOCD_TOOLS_BIN=$$(tools/build.sh argocd-tools) \
		ROUTEGUARD_E2E_FLUX_BIN=$$(tools/build.sh flux) \
		$(GO) test -count=1 -timeout 60m -v -run '$(E2E_RUN)' ./...

# e2e-bench: the application controller's reconciliation of one app with and
# without routeguard's sidecar, from Argo CD's own metrics (BENCHMARKS.md).
e2e-bench: build e2e-tools
	cd e2e && ROUTEGUARD_BIN=$(CURDIR)/$(BIN)/routeguard \
		ROUTEGUARD_E2E_KUBE_BIN=$$(tools/build.sh kube) \
		ROUTEGUARD_E2E_ARGOCD_BIN=$$(tools/build.sh argocd) \
		ROUTEGUARD_E2E_ARGOCD_TOOLS_BIN=$$(tools/build.sh argocd-tools) \
		ROUTEGUARD_E2E_FLUX_BIN=$$(tools/build.sh flux) \
		$(GO) test -count=1 -timeout 30m -run '^$$' -bench AppReconcile -benchtime 10x ./...

# e2e-tools: build (or find in the cache) the control plane's binaries.
e2e-tools:
	e2e/tools/build.sh kube
	e2e/tools/build.sh argocd
	e2e/tools/build.sh argocd-tools
	e2e/tools/build.sh flux

# image: the Argo CD sidecar image (linux/amd64 + linux/arm64), built without
# a container engine on a base assembled from pinned inputs (no registry
# needed), as an OCI layout and an oci-archive tar. Releases build it on
# distroless instead (docs/releasing.md).
image:
	cd release && $(GO) run ./cmd/image -source .. -version $(VERSION) -revision $(REVISION) \
		-created $(SOURCE_DATE_EPOCH) -out $(CURDIR)/$(IMAGE_DIR)/oci -archive $(CURDIR)/$(IMAGE_DIR)/routeguard-cmp.oci.tar

# image-release: the release image, on distroless (pinned by digest in
# release/image), carrying the binaries GoReleaser built into dist/, pushed
# to ghcr.io/routeguard/routeguard-cmp:$(VERSION) (after `docker login`).
image-release:
	cd release && $(GO) run ./cmd/image -source .. -version $(VERSION) -revision $(REVISION) \
		-created $(SOURCE_DATE_EPOCH) -base distroless -goreleaser-dist $(CURDIR)/dist -push

tools: $(GORELEASER) $(CYCLONEDX)

$(GORELEASER):
	GOBIN=$(dir $@) GOWORK=off $(GO) install github.com/goreleaser/goreleaser/v2@$(GORELEASER_VERSION)

$(CYCLONEDX):
	GOBIN=$(dir $@) GOWORK=off $(GO) install github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod@$(CYCLONEDX_VERSION)

release-check: $(GORELEASER)
	$(GORELEASER) check

# release: publish a release from a v* tag (.github/workflows/release.yml).
release: $(GORELEASER) $(CYCLONEDX)
	PATH="$(dir $(CYCLONEDX)):$$PATH" $(GORELEASER) release --clean --timeout 2h

# GoReleaser reads the git remote's URL and, in a snapshot, drops all git
# facts (the commit too) when there is none: a checkout without a remote
# (a worktree, a CI checkout made with git init) gets the project's URL.
GIT_REMOTE_ENV := $(if $(shell git remote 2>/dev/null),,GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=remote.origin.url \
	GIT_CONFIG_VALUE_0=https://github.com/routeguard/routeguard.git)

# release-snapshot: the release, unpublished, into dist/. Cross-compiling the
# eight binaries is most of the time (BENCHMARKS.md).
release-snapshot: $(GORELEASER) $(CYCLONEDX)
	PATH="$(dir $(CYCLONEDX)):$$PATH" $(GIT_REMOTE_ENV) $(GORELEASER) release --snapshot --clean --timeout 2h

# schema: regenerate schema/routeguard.schema.json from internal/config.
schema:
	$(GO) test ./internal/config/jsonschema -run TestSchemaIsCurrent -update

# go.mod requires the plugin SDK at its release version; go.work builds it
# from plugins/sdk. `go mod tidy` ignores go.work, so tidy (and sdk-sum,
# after a change to plugins/sdk) serve the SDK from a local module proxy.
SDK_PROXY := $(CURDIR)/$(BIN)/sdk-proxy
tidy:
	sed -i '/^github\.com\/routeguard\/routeguard\/plugins\/sdk /d' go.sum
	rm -rf $(SDK_PROXY) && cd release && $(GO) run ./cmd/modproxy -root .. -out $(SDK_PROXY)
	GOWORK=off GOFLAGS=-mod=mod GONOSUMDB=github.com/routeguard/routeguard \
		GOPROXY="file://$(SDK_PROXY),$$($(GO) env GOPROXY)" $(GO) mod tidy
	cd plugins/sdk && $(GO) mod tidy
	cd release && $(GO) mod tidy
	cd compat/argocd && $(GO) mod tidy
	cd e2e && $(GO) mod tidy
	$(MAKE) sdk-sum

# sdk-sum: the go.sum lines of the SDK computed from plugins/sdk as it is
# now. `go mod tidy` alone would take a copy of the same version already in
# the module cache (made from an older tree) and keep its hash.
sdk-sum:
	@mkdir -p $(BIN)
	cd release && $(GO) run ./cmd/modproxy -root .. -sum >$(CURDIR)/$(BIN)/sdk.sum
	awk 'NR==FNR {line[$$1" "$$2]=$$0; next} ($$1" "$$2) in line {print line[$$1" "$$2]; next} {print}' \
		$(BIN)/sdk.sum go.sum >$(BIN)/go.sum.new && mv $(BIN)/go.sum.new go.sum

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	cd plugins/sdk && $(GO) vet ./...
	cd compat/argocd && $(GO) vet ./...
	cd release && $(GO) vet ./...
	cd e2e && $(GO) vet ./...

bench: build
	./scripts/bench.sh

clean:
	rm -rf $(BIN) .bench dist
