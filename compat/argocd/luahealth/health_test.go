package luahealth

import (
	"testing"

	"github.com/argoproj/argo-cd/v3/util/lua"
)

// TestLuaHealthScripts evaluates every fixture with Argo CD's Lua VM the way
// the application controller runs a check from argocd-cm: UseOpenLibs false
// (base, table, package and the safe os only) and the VM's one-second budget.
// Status and message are asserted exactly.
func TestLuaHealthScripts(t *testing.T) {
	for _, f := range fixtures(t) {
		t.Run(f.dir+"/"+f.input, func(t *testing.T) {
			vm := lua.VM{UseOpenLibs: false}
			got, err := vm.ExecuteHealthLua(f.obj, f.script)
			if err != nil {
				t.Fatalf("Argo CD's VM: %v", err)
			}
			if *got != f.want {
				t.Errorf("got  %s: %q\nwant %s: %q", got.Status, got.Message, f.want.Status, f.want.Message)
			}
		})
	}
}

// TestScriptsNeedNoOpenLibraries proves the scripts use nothing beyond what
// a VM without open libraries has: a script calling string.* would fail here
// while passing with UseOpenLibs (as Argo CD's own built-in tests run).
func TestScriptsNeedNoOpenLibraries(t *testing.T) {
	probe := `return {status = string.upper("healthy"), message = ""}`
	obj := readObject(t, root+"/gateway.networking.k8s.io/HTTPRoute/testdata/healthy_accepted.yaml")
	if _, err := (lua.VM{}).ExecuteHealthLua(obj, probe); err == nil {
		t.Fatal("the string library is loaded without UseOpenLibs; the VM is not set up as the controller's")
	}
	if _, err := (lua.VM{UseOpenLibs: true}).ExecuteHealthLua(obj, probe); err != nil {
		t.Fatalf("probe with open libraries: %v", err)
	}
}
