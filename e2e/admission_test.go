package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/routeguard/routeguard/e2e/testbed"
)

// Scenario 6: routeguard's admission checks (RG5xxx) measured against the
// real API server. Every object of examples/, test/corpus and Gateway API's
// conformance manifests is created with a server-side dry run (strict field
// validation, as kubectl and Argo CD apply) on a fresh kube-apiserver with
// routeguard's bundled CRDs (Gateway API experimental channel, Istio, Flux,
// Argo CD), and
// analyzed by routeguard on the same bytes. Goals: no object routeguard
// rejects that the API server accepts; every rejection of a routing object
// caught. Every disagreement is listed in docs/validation.md.

// admissionObject is one document of an input file.
type admissionObject struct {
	File string // relative to its source root, with the source's prefix
	Doc  int    // document index in the file
	Obj  *unstructured.Unstructured

	served   bool   // the API server serves the kind (built in or bundled CRD)
	fluxVars bool   // holds ${...}: Flux substitutes it before anything applies it
	rejected string // the API server's rejection ("" accepted)
	rgCodes  []string
	rgMsgs   []string
}

func (o *admissionObject) id() string {
	ns := o.Obj.GetNamespace()
	if ns != "" {
		ns += "/"
	}
	return fmt.Sprintf("%s#%d %s %s%s", o.File, o.Doc, o.Obj.GetKind(), ns, o.Obj.GetName())
}

// routingGroups are the API groups of routing objects (Gateway API, Ingress, Istio).
var routingGroups = map[string]bool{
	"gateway.networking.k8s.io": true, "networking.istio.io": true, "security.istio.io": true,
}

func isRouting(o *unstructured.Unstructured) bool {
	g := o.GroupVersionKind().Group
	return routingGroups[g] || (g == "networking.k8s.io" && (o.GetKind() == "Ingress" || o.GetKind() == "IngressClass"))
}

func TestAdmissionAgainstAPIServer(t *testing.T) {
	b := testbed.Get(t)
	ctx := context.Background()
	objs := collectAdmissionObjects(t, b.RepoRoot)
	kube := b.FreshKube(t, "admission", "experimental")
	judgeByAPIServer(ctx, t, kube, objs)
	judgeByRouteguard(t, b, objs)

	// The confusion matrix over the objects the API server serves.
	var m [2][2]int // [api rejects][routeguard error]
	var served, notServed, withVars int
	var falseRejects, missed, missedRouting []*admissionObject
	for _, o := range objs {
		if !o.served {
			notServed++
			continue
		}
		if o.fluxVars {
			// Not applied as written: kustomize-controller substitutes the
			// variables first (routeguard flux build judges the result).
			withVars++
			continue
		}
		served++
		apiRejects, rgRejects := o.rejected != "", len(o.rgCodes) > 0
		m[b2i(apiRejects)][b2i(rgRejects)]++
		switch {
		case rgRejects && !apiRejects:
			falseRejects = append(falseRejects, o)
		case apiRejects && !rgRejects:
			missed = append(missed, o)
			if isRouting(o.Obj) {
				missedRouting = append(missedRouting, o)
			}
		}
	}
	var report strings.Builder
	fmt.Fprintf(&report, "admission: %d objects; %d judged; %d of kinds the API server does not serve (no CRD bundled); %d with Flux variables (not applied as written)\n",
		len(objs), served, notServed, withVars)
	fmt.Fprintf(&report, "%-28s %18s %12s\n", "", "routeguard RG5xxx error", "routeguard clean")
	fmt.Fprintf(&report, "%-28s %18d %12d\n", "API server rejects", m[1][1], m[1][0])
	fmt.Fprintf(&report, "%-28s %18d %12d\n", "API server accepts", m[0][1], m[0][0])
	for _, o := range falseRejects {
		fmt.Fprintf(&report, "routeguard rejects, API server accepts: %s: %s\n", o.id(), strings.Join(o.rgMsgs, "; "))
	}
	for _, o := range missed {
		fmt.Fprintf(&report, "API server rejects, routeguard clean: %s: %s\n", o.id(), o.rejected)
	}
	t.Log("\n" + report.String())
	if p := os.Getenv("ROUTEGUARD_E2E_ADMISSION_REPORT"); p != "" {
		if err := os.WriteFile(p, []byte(report.String()), 0o600); err != nil {
			t.Error(err)
		}
	}
	if served < 100 {
		t.Errorf("only %d objects of served kinds: the inputs were not found", served)
	}
	if m[1][1] == 0 {
		t.Errorf("no object both rejected: the broken examples and corpus should hold some")
	}
	for _, o := range falseRejects {
		t.Errorf("routeguard rejects what the API server accepts: %s: %s", o.id(), strings.Join(o.rgMsgs, "; "))
	}
	for _, o := range missedRouting {
		t.Errorf("the API server rejects a routing object routeguard passes: %s: %s", o.id(), o.rejected)
	}
	// Each disagreement is listed in docs/validation.md.
	doc, err := os.ReadFile(filepath.Join(b.RepoRoot, "docs", "validation.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range append(falseRejects, missed...) {
		if !strings.Contains(string(doc), fmt.Sprintf("`%s`", o.File)) {
			t.Errorf("docs/validation.md does not list the disagreement on %s", o.id())
		}
	}
}

func b2i(v bool) int {
	if v {
		return 1
	}
	return 0
}

// collectAdmissionObjects reads every object of the three sources. Helm
// templates and files that do not decode as YAML objects are not objects.
func collectAdmissionObjects(t *testing.T, repoRoot string) []*admissionObject {
	t.Helper()
	conf := downloadModule(t, "sigs.k8s.io/gateway-api/conformance@v1.6.3")
	sources := []struct{ prefix, dir string }{
		{"examples/", filepath.Join(repoRoot, "examples")},
		{"test/corpus/", filepath.Join(repoRoot, "test", "corpus")},
		{"conformance/tests/", filepath.Join(conf, "tests")},
		{"conformance/base/", filepath.Join(conf, "base")},
	}
	var out []*admissionObject
	for _, src := range sources {
		var files []string
		err := filepath.WalkDir(src.dir, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "templates" {
				return filepath.SkipDir // Helm templates
			}
			if !d.IsDir() && (strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		sort.Strings(files)
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(data), "{{") {
				continue // a template
			}
			rel, _ := filepath.Rel(src.dir, f)
			for i, doc := range splitDocs(string(data)) {
				var m map[string]any
				if err := yaml.Unmarshal([]byte(doc), &m); err != nil || m == nil {
					continue
				}
				o := &unstructured.Unstructured{Object: m}
				if o.GetAPIVersion() == "" || o.GetKind() == "" || o.GetName() == "" || o.GetKind() == "List" {
					continue
				}
				out = append(out, &admissionObject{File: src.prefix + filepath.ToSlash(rel), Doc: i, Obj: o,
					fluxVars: strings.Contains(doc, "${")})
			}
		}
	}
	return out
}

// splitDocs splits a YAML stream on document separators.
func splitDocs(s string) []string {
	var docs []string
	var cur strings.Builder
	for _, line := range strings.SplitAfter(s, "\n") {
		if strings.TrimRight(line, " \t\r\n") == "---" {
			docs = append(docs, cur.String())
			cur.Reset()
			continue
		}
		cur.WriteString(line)
	}
	return append(docs, cur.String())
}

func downloadModule(t *testing.T, modVersion string) string {
	t.Helper()
	cmd := exec.Command("go", "mod", "download", "-json", modVersion)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go mod download %s: %v", modVersion, err)
	}
	var info struct{ Dir string }
	if err := json.Unmarshal(out, &info); err != nil || info.Dir == "" {
		t.Fatalf("go mod download %s: %v\n%s", modVersion, err, out)
	}
	return info.Dir
}

// judgeByAPIServer creates each object with a server-side dry run: first
// the cluster-scoped ones, then (their namespaces created for real) the
// namespaced ones.
func judgeByAPIServer(ctx context.Context, t *testing.T, kube *testbed.Kube, objs []*admissionObject) {
	t.Helper()
	// The API server is fresh: it serves the built-in kinds and the bundled
	// CRDs' kinds, nothing else.
	type target struct {
		o          *admissionObject
		namespaced bool
	}
	var cluster, namespaced []target
	namespaces := map[string]bool{}
	for _, o := range objs {
		gvk := o.Obj.GroupVersionKind()
		_, m, err := kube.Resource(gvk)
		if err != nil {
			if meta.IsNoMatchError(err) {
				continue // not served: no CRD for it (or an unknown version, RG5003's business)
			}
			t.Fatalf("%s: %v", o.id(), err)
		}
		o.served = true
		if m.Scope.Name() == meta.RESTScopeNameNamespace {
			ns := o.Obj.GetNamespace()
			if ns == "" {
				ns = "default"
			}
			namespaces[ns] = true
			namespaced = append(namespaced, target{o, true})
		} else {
			cluster = append(cluster, target{o, false})
		}
	}
	dryRun := func(tg target) {
		o := tg.o
		c, err := kube.For(o.Obj)
		if err != nil {
			t.Fatalf("%s: %v", o.id(), err)
		}
		obj := o.Obj.DeepCopy()
		_, err = c.Create(ctx, obj, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: "Strict"})
		switch {
		case err == nil:
		case apierrors.IsInvalid(err) || apierrors.IsBadRequest(err):
			o.rejected = err.Error()
		case apierrors.IsAlreadyExists(err) && obj.GetKind() == "Namespace":
			// A namespace the test created for the namespaced objects.
		default:
			t.Fatalf("dry run of %s: %v", o.id(), err)
		}
	}
	for _, tg := range cluster {
		dryRun(tg)
	}
	var nsNames []string
	for ns := range namespaces {
		nsNames = append(nsNames, ns)
	}
	sort.Strings(nsNames)
	for _, ns := range nsNames {
		if ns == "default" {
			continue
		}
		nsObj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}}}
		if err := kube.Apply(ctx, nsObj); err != nil {
			t.Fatalf("namespace %s: %v", ns, err)
		}
	}
	for _, tg := range namespaced {
		dryRun(tg)
	}
}

// judgeByRouteguard analyzes each file's served objects as one stream
// (stdin), as a user's `routeguard analyze -` would, and keeps each
// object's error-severity RG5xxx findings.
func judgeByRouteguard(t *testing.T, b *testbed.Bed, objs []*admissionObject) {
	t.Helper()
	byFile := map[string][]*admissionObject{}
	var files []string
	for _, o := range objs {
		if !o.served {
			continue
		}
		if byFile[o.File] == nil {
			files = append(files, o.File)
		}
		byFile[o.File] = append(byFile[o.File], o)
	}
	cwd := t.TempDir() // no .routeguard.yaml
	for _, f := range files {
		var stream strings.Builder
		for _, o := range byFile[f] {
			y, err := yaml.Marshal(o.Obj.Object)
			if err != nil {
				t.Fatal(err)
			}
			stream.WriteString("---\n")
			stream.Write(y)
		}
		cmd := exec.Command(b.Routeguard, "analyze", "-o", "json", "--fail-on", "never",
			"--gateway-api-channel", "experimental", "--kube-version", "1.37.1", "-")
		cmd.Dir = cwd
		cmd.Stdin = strings.NewReader(stream.String())
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("routeguard analyze %s: %v\n%s", f, err, stderr.String())
		}
		var rep struct {
			Findings []struct {
				Code, Severity, Message string
				Object                  struct{ APIVersion, Kind, Namespace, Name string }
			}
		}
		if err := json.Unmarshal(out, &rep); err != nil {
			t.Fatalf("routeguard analyze %s: %v\n%s", f, err, out)
		}
		for _, fd := range rep.Findings {
			if !strings.HasPrefix(fd.Code, "RG5") || fd.Severity != "error" {
				continue
			}
			matched := false
			for _, o := range byFile[f] {
				ns := o.Obj.GetNamespace()
				if o.Obj.GetKind() == fd.Object.Kind && o.Obj.GetName() == fd.Object.Name &&
					(ns == fd.Object.Namespace || (ns == "" && fd.Object.Namespace == "default")) {
					o.rgCodes = append(o.rgCodes, fd.Code)
					o.rgMsgs = append(o.rgMsgs, fd.Code+" "+fd.Message)
					matched = true
				}
			}
			if !matched {
				t.Errorf("%s: finding %s on %s %s/%s matches no object of the file", f, fd.Code, fd.Object.Kind, fd.Object.Namespace, fd.Object.Name)
			}
		}
	}
}
