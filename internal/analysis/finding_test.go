package analysis

import "testing"

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
