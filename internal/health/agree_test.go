package health

import (
	"context"
	"strings"
	"testing"
)

// TestCELFixtures evaluates every fixture with fluxcd/pkg/runtime/cel as
// kustomize-controller evaluates healthCheckExprs and checks that the verdict
// is the twin of the Lua verdict (Healthy↔Current, Progressing↔InProgress,
// Degraded↔Failed), except where the fixture declares one of the two
// documented limits of CEL, which are then checked to hold exactly.
func TestCELFixtures(t *testing.T) {
	ctx := context.Background()
	for _, f := range loadFixtures(t) {
		t.Run(f.check.Dir+"/"+f.test.InputPath, func(t *testing.T) {
			ev, err := NewEvaluator(f.check)
			if err != nil {
				t.Fatal(err)
			}
			lua, err := EvalLua(ctx, f.check.Lua, f.obj)
			if err != nil {
				t.Fatal(err)
			}
			got := ev.Evaluate(ctx, f.obj)
			_, hasStatus := f.obj["status"]
			exc := f.test.Flux
			if exc == nil {
				if got.Err != nil {
					t.Fatalf("CEL evaluation error: %v", got.Err)
				}
				if want := FluxStatusFor(lua.Status); got.Status != want {
					t.Fatalf("Lua says %s (%q), so CEL must say %s; got %s", lua.Status, lua.Message, want, got.Status)
				}
				if !hasStatus {
					t.Fatal("a fixture without status must declare flux.limit absent-status")
				}
				return
			}
			if got.Status != exc.Status {
				t.Fatalf("declared flux.status %s, CEL gives %s (err %v)", exc.Status, got.Status, got.Err)
			}
			switch exc.Limit {
			case ExceptionAbsentStatus:
				// kustomize-controller passes the object's fields as CEL
				// variables: no status, no variable, an evaluation error.
				if hasStatus {
					t.Fatal("absent-status declared on a fixture that has a status")
				}
				if got.Err == nil || !strings.Contains(got.Err.Error(), "no such attribute(s): status") {
					t.Fatalf("want the absent-status evaluation error, got %v", got.Err)
				}
			case ExceptionNoClock:
				// Lua is Degraded only because the wait ran out; CEL cannot
				// tell time and stays InProgress. With a creation time inside
				// the wait, Lua must say Progressing and the two agree.
				if !hasStatus || got.Err != nil || got.Status != "InProgress" {
					t.Fatalf("no-clock needs a status and CEL InProgress; got %s, %v", got.Status, got.Err)
				}
				if lua.Status != "Degraded" || !strings.Contains(lua.Message, "5 minutes after") {
					t.Fatalf("no-clock declared but Lua did not time out: %s %q", lua.Status, lua.Message)
				}
				young := withCreationTimestamp(f.obj, "2999-01-01T00:00:00Z")
				lyoung, err := EvalLua(ctx, f.check.Lua, young)
				if err != nil {
					t.Fatal(err)
				}
				if cyoung := ev.Evaluate(ctx, young); lyoung.Status != "Progressing" || cyoung.Status != "InProgress" {
					t.Fatalf("inside the wait: Lua %s (%q), CEL %s; want Progressing and InProgress", lyoung.Status, lyoung.Message, cyoung.Status)
				}
			default:
				t.Fatalf("unknown flux.limit %q (want %s or %s)", exc.Limit, ExceptionNoClock, ExceptionAbsentStatus)
			}
		})
	}
}

// withCreationTimestamp returns a copy of obj with a different creation time.
func withCreationTimestamp(obj map[string]any, ts string) map[string]any {
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		out[k] = v
	}
	md := map[string]any{}
	if m, ok := obj["metadata"].(map[string]any); ok {
		for k, v := range m {
			md[k] = v
		}
	}
	md["creationTimestamp"] = ts
	out["metadata"] = md
	return out
}
