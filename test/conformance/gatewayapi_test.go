// Package conformance runs routeguard's built-in analyzers over the Gateway
// API v1.6.3 conformance manifests (each test's file together with the
// suite's base manifests), read from the Go module cache: every test whose
// file is named *invalid* expects the implementation to reject a route,
// listener or reference, and must get a finding; the tests that expect
// everything accepted must get no error.
package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/analysis/registry"
	"github.com/routeguard/routeguard/internal/manifest"
)

const conformanceModule = "sigs.k8s.io/gateway-api/conformance@v1.6.3"

// minInvalidCaught is the goal: findings on at least this many of the 29
// *invalid* test files.
const minInvalidCaught = 27

// expectRejection lists the test files not named *invalid* whose test
// (the .go file beside it) expects some route, listener, ListenerSet or
// policy to be rejected; errors are allowed there. Every other file must
// give no error.
var expectRejection = map[string]string{
	"backendtlspolicy-conflict-resolution":              "the second policy on the same Service (and section) is Conflicted",
	"gateway-secret-missing-reference-grant":            "the listener's certificateRef is not permitted (RefNotPermitted)",
	"gateway-with-attached-routes":                      "http-route-not-accepted matches no listener hostname; http-route-4's backend does-not-exist (ResolvedRefs False); http-route-3 repeats http-route-2's match (RG1301: accepted, never served)",
	"httproute-disallowed-kind":                         "the HTTPRoute is NotAllowedByListeners on a TLS-only Gateway",
	"httproute-hostname-intersection":                   "no-intersecting-hosts matches no listener hostname",
	"listenerset-allowed-namespace-none":                "the ListenerSet is not allowed (allowedListeners from: None)",
	"listenerset-allowed-namespace-same":                "the ListenerSet in another namespace is not allowed (from: Same)",
	"listenerset-allowed-namespace-selector":            "the ListenerSet outside the selected namespaces is not allowed",
	"listenerset-allowed-routes-namespaces":             "route-in-gateway-namespace is NotAllowedByListeners (the ListenerSet listener admits its own namespace only)",
	"listenerset-allowed-routes-supported-kinds":        "the TLS-only listener lists HTTPRoute: ResolvedRefs False (InvalidRouteKinds)",
	"listenerset-default-not-allowed":                   "a Gateway admits no ListenerSets by default",
	"listenerset-dual-parentref-independence":           "route-dual-parentref-one's Gateway parentRef names a ListenerSet's listener (NoMatchingParent)",
	"listenerset-gateway-parent-section-name-not-found": "route-via-gateway's sectionName names a ListenerSet's listener on the Gateway (NoMatchingParent)",
	"listenerset-hostname-conflict":                     "ListenerSet listeners sharing a hostname with the Gateway's or an older ListenerSet's are Conflicted",
	"listenerset-protocol-conflict":                     "ListenerSet TCP listeners on the Gateway's HTTP port are Conflicted",
	"listenerset-reference-grant":                       "listenerset-without-reference-grant's certificateRef is not permitted (RefNotPermitted)",
	"tlsroute-listener-passthrough-supported-kinds":     "the Passthrough listener lists TCPRoute: ResolvedRefs False (InvalidRouteKinds)",
	"udproute-not-allowed-by-listeners":                 "the UDPRoute is NotAllowedByListeners on a TLS-only Gateway",
}

// conformanceDir returns the module's directory in the module cache,
// downloading the module through the Go module proxy if it is not there.
func conformanceDir(t *testing.T) string {
	t.Helper()
	cmd := exec.Command("go", "mod", "download", "-json", conformanceModule)
	cmd.Dir = t.TempDir() // outside any module: download the version asked for
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go mod download %s: %v\n%s", conformanceModule, err, out)
	}
	var info struct{ Dir, Error string }
	if err := json.Unmarshal(out, &info); err != nil || info.Dir == "" {
		t.Fatalf("go mod download %s: %v %s\n%s", conformanceModule, err, info.Error, out)
	}
	return info.Dir
}

// suitePlaceholders are what the conformance suite fills in at run time
// (the controller's name, addresses of the cluster's network) before it
// applies a manifest; as committed they are not valid values, and the
// API server never sees them.
var suitePlaceholders = bytesReplacer(
	"{GATEWAY_CONTROLLER_NAME}", "example.com/gateway-controller",
	"{GATEWAY_CLASS_NAME}", "conformance",
	"PLACEHOLDER_USABLE_ADDRS", "192.0.2.10",
	"PLACEHOLDER_UNUSABLE_ADDRS", "192.0.2.11",
)

type replacer struct{ r *strings.Replacer }

func bytesReplacer(oldnew ...string) replacer { return replacer{strings.NewReplacer(oldnew...)} }

func (r replacer) Replace(b []byte) []byte { return []byte(r.r.Replace(string(b))) }

func load(t *testing.T, files ...string) *manifest.Set {
	t.Helper()
	s := manifest.NewSet()
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		objs, err := manifest.Decode(filepath.Base(f), suitePlaceholders.Replace(data))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, o := range objs {
			if _, dup := s.Get(o.Key()); dup {
				continue // a test may repeat a base object
			}
			if err := s.Add(o); err != nil {
				t.Fatal(err)
			}
		}
	}
	return s
}

type outcome struct {
	file     string
	findings []analysis.Finding
}

func (o outcome) errors() []analysis.Finding {
	var out []analysis.Finding
	for _, f := range o.findings {
		if f.Severity == analysis.SeverityError {
			out = append(out, f)
		}
	}
	return out
}

func (o outcome) fromTest() []analysis.Finding {
	var out []analysis.Finding
	for _, f := range o.findings {
		if f.Source.File == o.file {
			out = append(out, f)
		}
	}
	return out
}

func analyzeAll(t *testing.T) []outcome {
	t.Helper()
	dir := conformanceDir(t)
	base := filepath.Join(dir, "base", "manifests.yaml")
	files, err := filepath.Glob(filepath.Join(dir, "tests", "*.yaml"))
	if err != nil || len(files) < 100 {
		t.Fatalf("found %d conformance test files in %s (%v)", len(files), dir, err)
	}
	var out []outcome
	for _, f := range files {
		res, err := analysis.RunAnalyzers(context.Background(), analysis.RunOptions{
			Set: load(t, base, f), Analyzers: registry.All()})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out = append(out, outcome{file: filepath.Base(f), findings: res.Findings})
	}
	return out
}

func describe(fs []analysis.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "    %s %s %s: %s\n", f.Severity, f.Code, f.Object, f.Message)
	}
	return b.String()
}

func TestGatewayAPIConformance(t *testing.T) {
	outcomes := analyzeAll(t)
	invalid, caught := 0, 0
	var missed []string
	for _, o := range outcomes {
		name := strings.TrimSuffix(o.file, ".yaml")
		switch {
		case strings.Contains(name, "invalid"):
			invalid++
			if len(o.fromTest()) > 0 {
				caught++
			} else {
				missed = append(missed, name)
			}
		case expectRejection[name] != "":
			// Rejections expected; errors allowed.
		default:
			if errs := o.errors(); len(errs) > 0 {
				t.Errorf("%s expects everything accepted, but routeguard reports errors:\n%s", o.file, describe(errs))
			}
		}
	}
	t.Logf("invalid test files with a finding: %d of %d; missed: %s", caught, invalid, strings.Join(missed, ", "))
	if os.Getenv("ROUTEGUARD_CONFORMANCE_REPORT") == "1" {
		for _, o := range outcomes {
			if len(o.findings) > 0 {
				fmt.Printf("== %s\n%s", o.file, describe(o.findings))
			}
		}
	}
	if invalid != 29 {
		t.Errorf("found %d *invalid* test files, want 29 (did the suite change?)", invalid)
	}
	if caught < minInvalidCaught {
		t.Errorf("findings on %d of %d *invalid* test files, want at least %d; missed: %s",
			caught, invalid, minInvalidCaught, strings.Join(missed, ", "))
	}
	slices.Sort(missed)
}
