package health

import (
	"context"
	"math/rand"
	"strings"
	"testing"
	"time"
)

// TestRandomShapes feeds 150 random status shapes per kind (status a string,
// conditions not a list, conditions without type, numbers as strings, ...)
// to every check. The Lua check must give a verdict with a message; CEL must
// evaluate without error as long as the object has a status at all (an
// absent status is the documented evaluation error); and the two must agree
// except for the documented no-clock case and for JSON nulls inside lists,
// which Argo CD's decoding drops before Lua sees them.
func TestRandomShapes(t *testing.T) {
	checks, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	r := randSource{rand.New(rand.NewSource(20261130))}
	compared := 0
	for _, c := range checks {
		ev, err := NewEvaluator(c)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 150; i++ {
			obj := object(r, c.CEL.APIVersion, c.Kind)
			v, err := EvalLua(ctx, c.Lua, obj)
			if err != nil || v.Message == "" || FluxStatusFor(v.Status) == "" {
				t.Fatalf("%s: Lua gave %+v, %v on status %#v", c.Dir, v, err, obj["status"])
			}
			res := ev.Evaluate(ctx, obj)
			_, hasStatus := obj["status"]
			switch {
			case !hasStatus:
				if res.Err == nil || !strings.Contains(res.Err.Error(), "no such attribute(s): status") {
					t.Fatalf("%s: without status want the absent-status error, got %s %v", c.Dir, res.Status, res.Err)
				}
				continue
			case res.Err != nil:
				t.Fatalf("%s: CEL evaluation error on status %#v: %v", c.Dir, obj["status"], res.Err)
			case nullInList(obj):
				continue
			case v.Status == "Degraded" && res.Status == "InProgress" && strings.Contains(v.Message, "5 minutes after"):
				continue // no clock in CEL
			}
			compared++
			if want := FluxStatusFor(v.Status); res.Status != want {
				t.Errorf("%s: Lua %s (%q) but CEL %s on status %#v, metadata %#v, spec %#v",
					c.Dir, v.Status, v.Message, res.Status, obj["status"], obj["metadata"], obj["spec"])
			}
		}
	}
	if compared < 1000 {
		t.Fatalf("only %d random shapes were compared; the generator no longer exercises the checks", compared)
	}
}

// nullInList reports whether a JSON null sits inside a list anywhere in v.
func nullInList(v any) bool {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			if e == nil || nullInList(e) {
				return true
			}
		}
	case map[string]any:
		for _, e := range x {
			if nullInList(e) {
				return true
			}
		}
	}
	return false
}

// TestVMMatchesArgoCD pins the VM details routeguard copies from Argo CD's
// util/lua (compat/argocd/luahealth runs the same probe through Argo CD's VM):
// no string library, no global os, a safe os from require("os").
func TestVMMatchesArgoCD(t *testing.T) {
	probe := `local os = require("os")
return {status = "Healthy", message = type(string) .. "," .. type(_G.os) .. "," .. type(os.time) .. "," .. type(os.execute) .. "," .. type(io)}`
	v, err := EvalLua(context.Background(), probe, map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	if v.Message != "nil,nil,function,nil,nil" {
		t.Fatalf("VM libraries differ from Argo CD's: %s", v.Message)
	}
	v, err = EvalLua(context.Background(), `return {status = "Fine"}`, map[string]any{})
	if err != nil || v != (Verdict{Status: "Unknown", Message: "Lua returned an invalid health status"}) {
		t.Fatalf("invalid status: got %+v, %v", v, err)
	}
	defer func(b time.Duration) { luaBudget = b }(luaBudget)
	luaBudget = LuaBudget
	if _, err := EvalLua(context.Background(), `while true do end`, map[string]any{}); err == nil {
		t.Fatal("an endless script must be stopped by the one-second budget")
	}
}
