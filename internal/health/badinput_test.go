package health

import (
	"context"
	"math/rand"
	"strings"
	"testing"
)

// TestRandomShapesNeverFailToEvaluate feeds 100 random status shapes (status a
// string, conditions not a list, conditions without type, numbers as
// strings, ...) to every check: the Lua check must give a verdict with a
// message, and CEL must evaluate without error as long as the object has a
// status at all (an absent status is the one documented evaluation error).
func TestRandomShapesNeverFailToEvaluate(t *testing.T) {
	checks, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	r := randSource{rand.New(rand.NewSource(20261130))}
	for _, c := range checks {
		ev, err := NewEvaluator(c)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 100; i++ {
			obj := object(r, c.CEL.APIVersion, c.Kind)
			v, err := EvalLua(ctx, c.Lua, obj)
			if err != nil || v.Message == "" || FluxStatusFor(v.Status) == "" {
				t.Fatalf("%s: Lua gave %+v, %v on status %#v", c.Dir, v, err, obj["status"])
			}
			res := ev.Evaluate(ctx, obj)
			_, hasStatus := obj["status"]
			switch {
			case hasStatus && res.Err != nil:
				t.Fatalf("%s: CEL evaluation error on status %#v: %v", c.Dir, obj["status"], res.Err)
			case !hasStatus && (res.Err == nil || !strings.Contains(res.Err.Error(), "no such attribute(s): status")):
				t.Fatalf("%s: without status want the absent-status error, got %s %v", c.Dir, res.Status, res.Err)
			}
		}
	}
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
	if _, err := EvalLua(context.Background(), `while true do end`, map[string]any{}); err == nil {
		t.Fatal("an endless script must be stopped by the one-second budget")
	}
}
