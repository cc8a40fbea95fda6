package notifications

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"regexp"
	"strings"
	"testing"

	notifv1beta3 "github.com/fluxcd/notification-controller/api/v1beta3"
	"k8s.io/apimachinery/pkg/util/yaml"
	sigsyaml "sigs.k8s.io/yaml"
)

// decodeFlux splits the Flux bundle and decodes each document strictly into
// notification-controller's API types: an unknown or misspelt field fails.
func decodeFlux(t *testing.T, raw []byte) ([]notifv1beta3.Provider, []notifv1beta3.Alert) {
	t.Helper()
	var providers []notifv1beta3.Provider
	var alerts []notifv1beta3.Alert
	r := yaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(raw)))
	for i := 0; ; i++ {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		var meta struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
		}
		if err := sigsyaml.Unmarshal(doc, &meta); err != nil {
			t.Fatalf("document %d: %v", i, err)
		}
		if meta.APIVersion != notifv1beta3.GroupVersion.String() {
			t.Fatalf("document %d: apiVersion %q, want %s", i, meta.APIVersion, notifv1beta3.GroupVersion)
		}
		switch meta.Kind {
		case notifv1beta3.ProviderKind:
			var p notifv1beta3.Provider
			if err := sigsyaml.UnmarshalStrict(doc, &p); err != nil {
				t.Fatalf("Provider (document %d): %v", i, err)
			}
			providers = append(providers, p)
		case notifv1beta3.AlertKind:
			var a notifv1beta3.Alert
			if err := sigsyaml.UnmarshalStrict(doc, &a); err != nil {
				t.Fatalf("Alert (document %d): %v", i, err)
			}
			alerts = append(alerts, a)
		default:
			t.Fatalf("document %d: unexpected kind %q", i, meta.Kind)
		}
	}
	return providers, alerts
}

func TestFluxManifestsDecodeStrictly(t *testing.T) {
	raw, err := FluxManifests()
	if err != nil {
		t.Fatal(err)
	}
	providers, alerts := decodeFlux(t, raw)
	if len(providers) != 1 || len(alerts) != 2 {
		t.Fatalf("%d providers and %d alerts, want 1 and 2", len(providers), len(alerts))
	}
	p := providers[0]
	if p.Spec.Type != notifv1beta3.SlackProvider || p.Spec.SecretRef == nil || p.Spec.SecretRef.Name != "routeguard-slack" || p.Spec.Address != "" {
		t.Errorf("provider spec = %+v: want type slack, address and token from the Secret routeguard-slack", p.Spec)
	}
	severities := map[string]string{}
	for _, a := range alerts {
		severities[a.Name] = a.Spec.EventSeverity
		if a.Spec.ProviderRef.Name != p.Name || a.Namespace != p.Namespace {
			t.Errorf("alert %s refers to provider %s/%s, not %s/%s", a.Name, a.Namespace, a.Spec.ProviderRef.Name, p.Namespace, p.Name)
		}
		kinds := []string{}
		for _, s := range a.Spec.EventSources {
			kinds = append(kinds, s.Kind)
			if s.Name != "*" || s.MatchLabels["routeguard.io/routing"] != "true" {
				t.Errorf("alert %s source %+v does not select by the routing label", a.Name, s)
			}
		}
		if strings.Join(kinds, ",") != "Kustomization,HelmRelease" {
			t.Errorf("alert %s watches %v", a.Name, kinds)
		}
		if a.Spec.EventMetadata["cluster"] != "${cluster_name:=unknown-cluster}" || a.Spec.EventMetadata["environment"] != "${environment:=unknown-environment}" || a.Spec.EventMetadata["summary"] == "" {
			t.Errorf("alert %s eventMetadata = %v", a.Name, a.Spec.EventMetadata)
		}
		for _, re := range append(append([]string{}, a.Spec.ExclusionList...), a.Spec.InclusionList...) {
			if _, err := regexp.Compile(re); err != nil {
				t.Errorf("alert %s: %q is not a Go regular expression: %v", a.Name, re, err)
			}
		}
	}
	if severities["routeguard-routing-errors"] != "error" || severities["routeguard-routing-changes"] != "info" {
		t.Errorf("severities = %v", severities)
	}
}

// Strict decoding is what catches a misspelt field (the API server would
// silently drop it): prove the check bites.
func TestFluxStrictDecodingRejectsUnknownFields(t *testing.T) {
	bad := []byte("apiVersion: notification.toolkit.fluxcd.io/v1beta3\nkind: Alert\nmetadata: {name: x}\nspec:\n  providerRef: {name: p}\n  eventSeverty: error\n  eventSources: []\n")
	var a notifv1beta3.Alert
	if err := sigsyaml.UnmarshalStrict(bad, &a); err == nil || !strings.Contains(err.Error(), "eventSeverty") {
		t.Fatalf("misspelt field accepted: %v", err)
	}
}

// The routing-changes Alert lets through kustomize-controller's change-set
// lines for routing kinds only; the error Alert drops the known noise.
func TestFluxAlertFilters(t *testing.T) {
	raw, _ := FluxManifests()
	_, alerts := decodeFlux(t, raw)
	byName := map[string]notifv1beta3.AlertSpec{}
	for _, a := range alerts {
		byName[a.Name] = a.Spec
	}
	matchesAny := func(list []string, msg string) bool {
		for _, re := range list {
			if regexp.MustCompile(re).MatchString(msg) {
				return true
			}
		}
		return false
	}
	changes := byName["routeguard-routing-changes"].InclusionList
	for msg, want := range map[string]bool{
		"HTTPRoute/shop-prod/frontend configured\nService/shop-prod/frontend unchanged": true,
		"VirtualService/reviews/reviews created":                                        true,
		"Gateway/gateway-infra/public deleted":                                          true,
		"Deployment/shop-prod/frontend configured":                                      false,
		"HTTPRoute/shop-prod/frontend unchanged":                                        false,
	} {
		if got := matchesAny(changes, msg); got != want {
			t.Errorf("routing-changes includes %q = %v, want %v", msg, got, want)
		}
	}
	noise := byName["routeguard-routing-errors"].ExclusionList
	for msg, want := range map[string]bool{
		"Operation cannot be fulfilled on httproutes.gateway.networking.k8s.io \"web\": the object has been modified; please apply your changes to the latest version and try again": true,
		"dependency 'flux-system/frontend' is not ready":                                                      true,
		"HTTPRoute/shop-prod/frontend dry-run failed: spec.parentRefs: Invalid value":                         false,
		"health check failed after 30s: timeout waiting for: [HTTPRoute/shop-prod/frontend status: 'Failed']": false,
	} {
		if got := matchesAny(noise, msg); got != want {
			t.Errorf("routing-errors excludes %q = %v, want %v", msg, got, want)
		}
	}
}
