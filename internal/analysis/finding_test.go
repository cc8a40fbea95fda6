package analysis

import (
	"reflect"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/manifest"
)

// A finding names its Application once: after an object the Application
// renders, and not again when the finding is about the Application itself
// (RG0009 "does not render", RG0007 "renders nothing").
func TestFindingSubject(t *testing.T) {
	app := ObjectRef{APIVersion: "argoproj.io/v1alpha1", Kind: "Application", Namespace: "argocd", Name: "bad"}
	route := ObjectRef{APIVersion: "gateway.networking.k8s.io/v1", Kind: "HTTPRoute", Namespace: "shop", Name: "web"}
	other := ObjectRef{APIVersion: "argoproj.io/v1alpha1", Kind: "Application", Namespace: "argocd", Name: "child"}
	for _, c := range []struct {
		f    Finding
		want string
	}{
		{Finding{Code: CodeAppNotRendered, Object: app, App: "argocd/bad"}, "Application argocd/bad"},
		{Finding{Code: CodeRendersNothing, Object: app, App: "argocd/bad"}, "Application argocd/bad"},
		{Finding{Object: route, App: "argocd/bad"}, "HTTPRoute shop/web (Application argocd/bad)"},
		// An app of apps renders another Application: both are named.
		{Finding{Object: other, App: "argocd/bad"}, "Application argocd/child (Application argocd/bad)"},
		{Finding{Object: route}, "HTTPRoute shop/web"},
	} {
		if got := c.f.Subject(); got != c.want {
			t.Errorf("Subject of %s = %q, want %q", c.f.Object, got, c.want)
		}
	}
}

// Fill makes the message from the code's template and keeps the
// arguments, a copy the caller's slice cannot change afterwards.
func TestFindingFill(t *testing.T) {
	args := []any{"Gateway", "infra/public"}
	f := Finding{Code: CodeParentNotFound}.Fill(args...)
	if f.Message != Message(CodeParentNotFound, args...) || !strings.Contains(f.Message, "Gateway infra/public") {
		t.Errorf("message %q", f.Message)
	}
	args[1] = "changed"
	if !reflect.DeepEqual(f.Args, []any{"Gateway", "infra/public"}) {
		t.Errorf("args %v", f.Args)
	}
	if g := (Finding{Code: CodeParentNotFound}).Fill(); g.Args == nil {
		t.Error("Fill() left Args nil: a template without arguments would hash its message")
	}
}

// Same compares every field but Args, and findingKey holds them all: a
// field added to Finding and left out of the key would make settle drop
// findings that differ in it.
func TestFindingSame(t *testing.T) {
	if n, k := reflect.TypeFor[Finding]().NumField(), reflect.TypeFor[findingKey]().NumField(); k != n-1 {
		t.Fatalf("Finding has %d fields, findingKey %d: it must hold all but Args", n, k)
	}
	f := Finding{Code: CodeParentNotFound, Object: ObjectRef{Kind: "HTTPRoute", Name: "web"}, Source: manifest.Source{File: "a.yaml", Line: 3}}.Fill("Gateway", "x")
	g := f
	g.Args = nil
	if !f.Same(g) {
		t.Error("Args make findings differ")
	}
	for name, change := range map[string]func(*Finding){
		"code":     func(f *Finding) { f.Code = CodeBackendNotFound },
		"severity": func(f *Finding) { f.Severity = SeverityInfo },
		"message":  func(f *Finding) { f.Message += "!" },
		"object":   func(f *Finding) { f.Object.Name = "other" },
		"line":     func(f *Finding) { f.Source.Line = 4 },
		"analyzer": func(f *Finding) { f.Analyzer = "x" },
		"app":      func(f *Finding) { f.App = "argocd/x" },
	} {
		h := f
		change(&h)
		if f.Same(h) {
			t.Errorf("another %s, Same", name)
		}
	}
}
