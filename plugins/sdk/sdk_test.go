package sdk

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-plugin"
)

// fake reports one finding per Service, with the prefix from its config.
type fake struct {
	fail, panics bool
	sawDeadline  *bool
}

func (f fake) Metadata(context.Context) (Metadata, error) {
	return Metadata{Name: "fake", Version: "1.2.3", Codes: []Code{{ID: "FK001", Severity: SeverityWarning, Description: "a Service"}}}, nil
}

func (f fake) Analyze(ctx context.Context, req *Request) ([]Finding, error) {
	if f.fail {
		return nil, errors.New("cannot analyze today")
	}
	if f.panics {
		var m map[string]int
		m["x"]++
	}
	if f.sawDeadline != nil {
		_, *f.sawDeadline = ctx.Deadline()
	}
	var cfg struct {
		Prefix string `json:"prefix"`
	}
	if err := req.DecodeConfig(&cfg); err != nil {
		return nil, err
	}
	var out []Finding
	for i := range req.Objects {
		o := &req.Objects[i]
		if o.Kind == "Service" && !o.Context {
			out = append(out, Findingf(o, "FK001", "%s%s in %s", cfg.Prefix, o.Name, req.Namespace(o)))
		}
	}
	return out, nil
}

func connect(t *testing.T, impl Analyzer) *Client {
	t.Helper()
	c, _ := plugin.TestPluginGRPCConn(t, false, PluginSet(impl))
	t.Cleanup(func() { c.Close() })
	raw, err := c.Dispense(PluginName)
	if err != nil {
		t.Fatal(err)
	}
	return raw.(*Client)
}

func object(kind, ns, name, file string, line int) Object {
	md := map[string]any{"name": name}
	if ns != "" {
		md["namespace"] = ns
	}
	return Object{File: file, Line: line, Body: map[string]any{"apiVersion": "v1", "kind": kind, "metadata": md}}
}

func TestMetadataOverGRPC(t *testing.T) {
	md, err := connect(t, fake{}).Metadata(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if md.Name != "fake" || md.Version != "1.2.3" || len(md.Codes) != 1 || md.Codes[0] != (Code{"FK001", SeverityWarning, "a Service"}) {
		t.Fatalf("metadata = %+v", md)
	}
}

func TestAnalyzeOverGRPC(t *testing.T) {
	var sawDeadline bool
	c := connect(t, fake{sawDeadline: &sawDeadline})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ctxObj := object("Service", "other", "ctx", "other/svc.yaml", 1)
	ctxObj.Context = true
	req := &Request{
		DefaultNamespace: "apps",
		Config:           []byte(`{"prefix":"svc "}`),
		Objects: []Object{object("Service", "", "web", "apps/svc.yaml", 7), object("ConfigMap", "apps", "cm", "apps/cm.yaml", 1),
			object("Service", "b", "api", "apps/svc.yaml", 12), ctxObj},
	}
	fs, err := c.Analyze(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	want := []Finding{
		{Code: "FK001", Message: "svc web in apps", Object: ObjectRef{APIVersion: "v1", Kind: "Service", Name: "web"}, File: "apps/svc.yaml", Line: 7},
		{Code: "FK001", Message: "svc api in b", Object: ObjectRef{APIVersion: "v1", Kind: "Service", Namespace: "b", Name: "api"}, File: "apps/svc.yaml", Line: 12},
	}
	if fmt.Sprint(fs) != fmt.Sprint(want) {
		t.Fatalf("findings:\n got %+v\nwant %+v", fs, want)
	}
	if !sawDeadline {
		t.Error("the host's deadline did not reach the plugin")
	}
}

func TestConfigUnknownField(t *testing.T) {
	_, err := connect(t, fake{}).Analyze(context.Background(), &Request{Config: []byte(`{"prefx":"x"}`)})
	if err == nil || !strings.Contains(err.Error(), `unknown field "prefx"`) {
		t.Fatalf("err = %v, want the unknown field named", err)
	}
}

func TestPluginErrorAndPanic(t *testing.T) {
	_, err := connect(t, fake{fail: true}).Analyze(context.Background(), &Request{})
	if err == nil || !strings.Contains(err.Error(), "cannot analyze today") {
		t.Fatalf("err = %v", err)
	}
	_, err = connect(t, fake{panics: true}).Analyze(context.Background(), &Request{})
	if err == nil || !strings.Contains(err.Error(), "plugin panicked: assignment to entry in nil map") {
		t.Fatalf("err = %v", err)
	}
}

func TestCanceledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := connect(t, fake{}).Analyze(ctx, &Request{}); err == nil {
		t.Fatal("a canceled call succeeded")
	}
}

func TestDecodeRequestFillsRefs(t *testing.T) {
	data, err := EncodeRequest(&Request{Objects: []Object{object("Service", "ns", "a", "f.yaml", 3)}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), `"Kind"`) {
		t.Errorf("identifying fields travel twice: %s", data)
	}
	req, err := DecodeRequest(data)
	if err != nil {
		t.Fatal(err)
	}
	o := req.Objects[0]
	if o.Ref() != (ObjectRef{"v1", "Service", "ns", "a"}) || o.File != "f.yaml" || o.Line != 3 || o.Group() != "" {
		t.Fatalf("object = %+v", o)
	}
}

func TestSeverityValid(t *testing.T) {
	for s, want := range map[Severity]bool{"error": true, "warning": true, "info": true, "": false, "fatal": false} {
		if s.Valid() != want {
			t.Errorf("%q.Valid() = %v", s, !want)
		}
	}
}

// TestAnalyzeManyChunks: a request larger than one chunk arrives whole,
// in order.
func TestAnalyzeManyChunks(t *testing.T) {
	var objs []Object
	for i := range 4000 {
		o := object("Service", "ns", fmt.Sprintf("svc-%04d", i), "big.yaml", i+1)
		o.Body["spec"] = map[string]any{"description": strings.Repeat("x", 200)}
		objs = append(objs, o)
	}
	fs, err := connect(t, fake{}).Analyze(context.Background(), &Request{Objects: objs})
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 4000 || fs[0].Object.Name != "svc-0000" || fs[3999].Object.Name != "svc-3999" || fs[3999].Line != 4000 {
		t.Fatalf("%d findings, first %+v", len(fs), fs[0])
	}
}

// receiving converts each object as it arrives and keeps only its name.
type receiving struct {
	fake
	names *[]string
	fail  string // Receive fails on the object of this name
}

func (r receiving) Receive(_ context.Context, req *Request, o *Object) error {
	if req.DefaultNamespace != "apps" {
		return errors.New("the request header is missing")
	}
	if n := len(*r.names); n >= len(req.Objects) || &req.Objects[n] != o {
		return fmt.Errorf("object %d is not req.Objects[%d]", n, n)
	}
	if o.Name == r.fail {
		return errors.New("cannot take " + o.Name)
	}
	*r.names = append(*r.names, o.Name)
	o.Body = nil
	return nil
}

func (r receiving) Analyze(ctx context.Context, req *Request) ([]Finding, error) {
	var out []Finding
	for i := range req.Objects {
		if o := &req.Objects[i]; o.Body != nil {
			out = append(out, Findingf(o, "FK001", "%s still has its body", o.Name))
		}
	}
	if len(*r.names) != len(req.Objects) {
		return nil, fmt.Errorf("received %d objects, the request has %d", len(*r.names), len(req.Objects))
	}
	return out, nil
}

// TestReceiver: a Receiver gets every object in order, over several
// chunks, before Analyze, which sees what Receive left; a Receive error
// ends the call with that error.
func TestReceiver(t *testing.T) {
	var objs []Object
	for i := range 3000 {
		o := object("ConfigMap", "ns", fmt.Sprintf("cm-%04d", i), "cm.yaml", i+1)
		o.Body["data"] = map[string]any{"k": strings.Repeat("v", 300)}
		objs = append(objs, o)
	}
	var names []string
	fs, err := connect(t, receiving{names: &names}).Analyze(context.Background(), &Request{DefaultNamespace: "apps", Objects: objs})
	if err != nil || len(fs) != 0 {
		t.Fatalf("findings %v, err %v", fs, err)
	}
	if len(names) != 3000 || names[0] != "cm-0000" || names[2999] != "cm-2999" {
		t.Fatalf("received %d objects, first %v", len(names), names[:1])
	}
	names = nil
	_, err = connect(t, receiving{names: &names, fail: "cm-2500"}).Analyze(context.Background(), &Request{DefaultNamespace: "apps", Objects: objs})
	if err == nil || !strings.Contains(err.Error(), "cannot take cm-2500") {
		t.Fatalf("err = %v", err)
	}
}
