package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/routeguard/routeguard/e2e/testbed"
)

// patience bounds every wait: the machine may be shared and slow. A wait
// that runs out is a failure with what was last seen, never a measured time.
const patience = 6 * time.Minute

var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// eventually polls check until it reports true; on running out of patience
// the test fails with the last state check described.
func eventually(t *testing.T, what string, check func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(patience)
	var last string
	for {
		ok, state := check()
		if ok {
			return
		}
		last = state
		if time.Now().After(deadline) {
			t.Fatalf("%s: not reached; last seen: %s", what, last)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// app reads an Argo CD Application (nil when absent).
func app(t *testing.T, kube *testbed.Kube, name string) *unstructured.Unstructured {
	t.Helper()
	a, err := kube.Get(context.Background(), testbed.ApplicationGVK, "argocd", name)
	if err != nil {
		t.Fatalf("get application %s: %v", name, err)
	}
	return a
}

func str(o *unstructured.Unstructured, path ...string) string {
	if o == nil {
		return ""
	}
	s, _, _ := unstructured.NestedString(o.Object, path...)
	return s
}

// appResource returns the entry of status.resources for kind namespace/name.
func appResource(a *unstructured.Unstructured, kind, namespace, name string) map[string]any {
	if a == nil {
		return nil
	}
	rs, _, _ := unstructured.NestedSlice(a.Object, "status", "resources")
	for _, r := range rs {
		m, _ := r.(map[string]any)
		if m["kind"] == kind && m["name"] == name && (m["namespace"] == namespace || (namespace == "" && m["namespace"] == nil)) {
			return m
		}
	}
	return nil
}

func resourceHealth(a *unstructured.Unstructured, kind, namespace, name string) (status, message string) {
	r := appResource(a, kind, namespace, name)
	h, _ := r["health"].(map[string]any)
	status, _ = h["status"].(string)
	message, _ = h["message"].(string)
	return status, message
}

// appConditions returns the messages of the Application's conditions of a type.
func appConditions(a *unstructured.Unstructured, typ string) []string {
	if a == nil {
		return nil
	}
	cs, _, _ := unstructured.NestedSlice(a.Object, "status", "conditions")
	var out []string
	for _, c := range cs {
		m, _ := c.(map[string]any)
		if m["type"] == typ {
			msg, _ := m["message"].(string)
			out = append(out, msg)
		}
	}
	return out
}

func appSummary(a *unstructured.Unstructured) string {
	if a == nil {
		return "application absent"
	}
	return fmt.Sprintf("sync=%s revision=%s health=%s operation=%s (%s) conditions=%v",
		str(a, "status", "sync", "status"), short(str(a, "status", "sync", "revision")), str(a, "status", "health", "status"),
		str(a, "status", "operationState", "phase"), str(a, "status", "operationState", "message"),
		appConditions(a, "ComparisonError"))
}

func short(rev string) string {
	if len(rev) > 8 {
		return rev[:8]
	}
	return rev
}

// routeguardRun runs the routeguard binary under test.
func routeguardRun(t *testing.T, b *testbed.Bed, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(b.Routeguard, args...)
	cmd.Dir = dir
	cmd.Env = os.Environ()
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return o.String(), e.String(), ee.ExitCode()
	} else if err != nil {
		t.Fatalf("routeguard %v: %v", args, err)
	}
	return o.String(), e.String(), 0
}

var gvkHTTPRoute = schema.GroupVersionKind{Group: "gateway.networking.k8s.io", Version: "v1", Kind: "HTTPRoute"}
var gvkGRPCRoute = schema.GroupVersionKind{Group: "gateway.networking.k8s.io", Version: "v1", Kind: "GRPCRoute"}
var gvkGateway = schema.GroupVersionKind{Group: "gateway.networking.k8s.io", Version: "v1", Kind: "Gateway"}

// runWithStdin runs routeguard with input on stdin; exit 1 (a verdict or
// finding that fails) is not an error here.
func runWithStdin(t *testing.T, b *testbed.Bed, input string, args ...string) (stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(b.Routeguard, args...)
	cmd.Dir = t.TempDir()
	cmd.Stdin = strings.NewReader(input)
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			t.Fatalf("routeguard %v: %v\n%s", args, err, e.String())
		}
	}
	return o.String(), e.String()
}
