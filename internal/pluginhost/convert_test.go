package pluginhost

import (
	"reflect"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/plugins/sdk"
)

// TestRequestStubsKindsOutsideInputs: a plugin that declares its inputs
// gets those kinds whole and every other object as a stub that still says
// what it is and where; without inputs every object goes whole.
func TestRequestStubsKindsOutsideInputs(t *testing.T) {
	c := analysis.NewContext(decodeSet(t, "a.yaml", appYAML), nil, "apps")
	md := &sdk.Metadata{Inputs: []sdk.Kind{{Group: "", Kind: "Service"}}}
	req, err := request(c, md, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(req.Objects) != 2 || req.DefaultNamespace != "apps" {
		t.Fatalf("request %+v", req)
	}
	svc, secret := req.Objects[0], req.Objects[1]
	if svc.Kind != "Service" || svc.Body["spec"] == nil {
		t.Errorf("the Service (an input) lost its body: %#v", svc.Body)
	}
	wantStub := map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "creds", "namespace": "shop"}}
	if !reflect.DeepEqual(secret.Body, wantStub) || secret.File != "a.yaml" || secret.Line != 8 || secret.Name != "creds" {
		t.Errorf("Secret sent as %#v (%s:%d), want the stub %#v at a.yaml:8", secret.Body, secret.File, secret.Line, wantStub)
	}
	all, err := request(c, &sdk.Metadata{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if all.Objects[1].Body["data"] == nil {
		t.Error("without inputs the Secret was not sent whole")
	}
	group, err := request(c, &sdk.Metadata{Inputs: []sdk.Kind{{Group: "", Kind: "*"}}}, nil)
	if err != nil || group.Objects[1].Body["data"] == nil {
		t.Errorf("kind * of the core group did not take the Secret whole: %v", err)
	}
}

func TestCheckMetadataInputs(t *testing.T) {
	md := sdk.Metadata{Name: "x", Inputs: []sdk.Kind{{Group: "apps"}}}
	if _, err := checkMetadata(md, false); err == nil || !strings.Contains(err.Error(), `input {group: "apps"} names no kind`) {
		t.Errorf("err = %v", err)
	}
}
