package health

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestParseArgoCDVersion(t *testing.T) {
	tests := []struct {
		in      string
		want    ArgoCDVersion
		wantErr bool
	}{
		{in: "3.5", want: ArgoCDVersion{3, 5}},
		{in: "v3.5.7", want: ArgoCDVersion{3, 5}},
		{in: "3.6.0-rc2", want: ArgoCDVersion{3, 6}},
		{in: "2.14.21", want: ArgoCDVersion{2, 14}},
		{in: "3", wantErr: true},
		{in: "latest", wantErr: true},
		{in: "3.x", wantErr: true},
		{in: "", wantErr: true},
		{in: "0.9", wantErr: true},
	}
	for _, tt := range tests {
		got, err := ParseArgoCDVersion(tt.in)
		if tt.wantErr {
			if err == nil || !strings.Contains(err.Error(), "want a release such as 3.5") {
				t.Errorf("%q: error %v, want one naming the expected form", tt.in, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%q: got %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

func kindsOf(checks []Check) []string {
	var out []string
	for _, c := range checks {
		out = append(out, c.Group+"/"+c.Kind)
	}
	return out
}

func TestSelectForArgoCD(t *testing.T) {
	checks, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	gw := "gateway.networking.k8s.io/"
	tests := []struct {
		version    string
		override   bool
		leftOut    []string
		overridden []string
		untested   bool
		unknown    bool
	}{
		{version: "2.14", leftOut: nil},
		{version: "3.0.5", leftOut: nil},
		{version: "3.1", leftOut: []string{gw + "GRPCRoute", gw + "Gateway", gw + "HTTPRoute"}},
		{version: "v3.4.13", leftOut: []string{gw + "GRPCRoute", gw + "Gateway", gw + "HTTPRoute"}},
		{version: TestedArgoCDVersion, leftOut: []string{gw + "BackendTLSPolicy", gw + "GRPCRoute", gw + "Gateway", gw + "HTTPRoute"}},
		{version: "3.5", override: true, overridden: []string{gw + "BackendTLSPolicy", gw + "GRPCRoute", gw + "Gateway", gw + "HTTPRoute"}},
		{version: "3.6.1", leftOut: []string{gw + "BackendTLSPolicy", gw + "GRPCRoute", gw + "Gateway", gw + "HTTPRoute", gw + "TLSRoute"}, untested: true},
		{version: "4.0", override: true, overridden: []string{gw + "BackendTLSPolicy", gw + "GRPCRoute", gw + "Gateway", gw + "HTTPRoute", gw + "TLSRoute"}, untested: true, unknown: true},
	}
	for _, tt := range tests {
		sel, err := SelectForArgoCD(checks, tt.version, tt.override)
		if err != nil {
			t.Fatalf("%s: %v", tt.version, err)
		}
		if got := kindsOf(sel.LeftOut); !reflect.DeepEqual(got, tt.leftOut) {
			t.Errorf("%s override=%v: left out %v, want %v", tt.version, tt.override, got, tt.leftOut)
		}
		if got := kindsOf(sel.Overridden); !reflect.DeepEqual(got, tt.overridden) {
			t.Errorf("%s override=%v: overridden %v, want %v", tt.version, tt.override, got, tt.overridden)
		}
		if len(sel.Bundle)+len(sel.LeftOut) != len(checks) || sel.Untested != tt.untested || sel.Unknown != tt.unknown {
			t.Errorf("%s: %d bundled + %d left out of %d checks, untested %v, unknown %v", tt.version, len(sel.Bundle), len(sel.LeftOut), len(checks), sel.Untested, sel.Unknown)
		}
		for _, c := range sel.Bundle {
			for _, l := range sel.LeftOut {
				if c.Dir == l.Dir {
					t.Errorf("%s: %s both bundled and left out", tt.version, c.Dir)
				}
			}
		}
		notices := strings.Join(sel.Notices(), "\n")
		if (len(tt.leftOut) > 0) != strings.Contains(notices, "left out "+strings.Join(tt.leftOut, ", ")+": Argo CD ") {
			t.Errorf("%s: notices %q do not name what was left out (%v)", tt.version, notices, tt.leftOut)
		}
		if (len(tt.overridden) > 0) != strings.Contains(notices, "replace Argo CD") || tt.untested != strings.Contains(notices, "is newer than") ||
			tt.unknown != strings.Contains(notices, "assuming they are those of "+LatestKnownArgoCDVersion) {
			t.Errorf("%s override=%v: notices %q", tt.version, tt.override, notices)
		}
	}
	if _, err := SelectForArgoCD(checks, "three", false); err == nil || !strings.Contains(err.Error(), `Argo CD version "three"`) {
		t.Errorf("bad version: %v", err)
	}
}

// TestSelectForArgoCDKeepsTheRest: the kinds Argo CD has no check for (the
// other routes, Istio) are always bundled, and the order is the checks'.
func TestSelectForArgoCDKeepsTheRest(t *testing.T) {
	checks, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	sel, err := SelectForArgoCD(checks, TestedArgoCDVersion, false)
	if err != nil {
		t.Fatal(err)
	}
	// Argo CD 3.5's resource_customizations hold these of routeguard's
	// kinds; every other health-checked kind is bundled.
	builtin := []string{
		"gateway.networking.k8s.io/BackendTLSPolicy", "gateway.networking.k8s.io/GRPCRoute",
		"gateway.networking.k8s.io/Gateway", "gateway.networking.k8s.io/HTTPRoute",
	}
	var want []string
	for _, c := range kindsOf(checks) {
		if !slices.Contains(builtin, c) {
			want = append(want, c)
		}
	}
	if got := kindsOf(sel.LeftOut); !reflect.DeepEqual(got, builtin) {
		t.Errorf("left out %v, want %v", got, builtin)
	}
	if got := kindsOf(sel.Bundle); !reflect.DeepEqual(got, want) || !slices.Contains(got, "networking.istio.io/VirtualService") || !slices.Contains(got, "gateway.networking.k8s.io/TCPRoute") {
		t.Errorf("bundled %v, want %v", got, want)
	}
}
