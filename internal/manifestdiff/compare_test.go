package manifestdiff

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/manifest"
)

func objects(t *testing.T, y string) []*manifest.Object {
	t.Helper()
	objs, err := manifest.Decode("test.yaml", []byte(y))
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

func group(t *testing.T, kind, name, y string) Group {
	return Group{App: App{Kind: kind, Name: name}, Objects: objects(t, y)}
}

func compare(t *testing.T, in Input, opts Options) *Result {
	t.Helper()
	res, err := Compare(in, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func text(t *testing.T, r *Result) string {
	t.Helper()
	var b bytes.Buffer
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func allLines(r *Result) []string {
	var out []string
	for _, a := range r.Apps {
		for _, o := range a.Objects {
			for _, h := range o.Hunks {
				out = append(out, h.Lines...)
			}
		}
	}
	return out
}

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
  labels:
    app.kubernetes.io/name: web
    app.kubernetes.io/version: "%VERSION%"
    helm.sh/chart: web-%VERSION%
spec:
  replicas: %REPLICAS%
  template:
    metadata:
      annotations:
        checksum/config: %SUM%
      labels:
        app.kubernetes.io/name: web
        helm.sh/chart: web-%VERSION%
    spec:
      containers:
        - name: web
          image: web:1
`

func deploy(version, replicas, sum string) string {
	return strings.NewReplacer("%VERSION%", version, "%REPLICAS%", replicas, "%SUM%", sum).Replace(deployment)
}

// TestNoiseFilters: a chart release that bumps only the chart and version
// labels and the checksum annotations (in the pod template too) is no
// change; the same release with a real change shows that change and none
// of the noise.
func TestNoiseFilters(t *testing.T) {
	base := group(t, "HelmRelease", "shop/web", deploy("1.0.0", "2", "aaa"))
	res := compare(t, Input{Base: []Group{base}, Head: []Group{group(t, "HelmRelease", "shop/web", deploy("1.1.0", "2", "bbb"))}}, Options{})
	if res.Changed() || res.FilteredOnly != 1 {
		t.Fatalf("a label and checksum bump is a change: %+v", res)
	}
	if !slices.Equal(res.Filters, DefaultFilters) {
		t.Errorf("filters applied %q, want %q", res.Filters, DefaultFilters)
	}
	res = compare(t, Input{Base: []Group{base}, Head: []Group{group(t, "HelmRelease", "shop/web", deploy("1.1.0", "3", "bbb"))}}, Options{})
	got := allLines(res)
	if !slices.Contains(got, "-  replicas: 2") || !slices.Contains(got, "+  replicas: 3") {
		t.Errorf("the replica change is not in the diff: %q", got)
	}
	for _, l := range got {
		if strings.Contains(l, "helm.sh/chart") || strings.Contains(l, "checksum/") || strings.Contains(l, "app.kubernetes.io/version") {
			t.Errorf("a filtered field is in the diff: %q", l)
		}
	}
	if res.Objects() != 1 || res.Apps[0].Objects[0].Change != Changed || res.Apps[0].Objects[0].LinesAdded != 1 || res.Apps[0].Objects[0].LinesRemoved != 1 {
		t.Errorf("want one object changed +1 -1: %+v", res.Apps)
	}
}

// TestPointers: the user's pointers, scoped by kind or not, and an
// Application's ignoreDifferences for its own objects only.
func TestPointers(t *testing.T) {
	cm := func(v string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: shop\n  labels:\n    team: " + v + "\ndata:\n  k: " + v + "\n"
	}
	in := Input{
		Base: []Group{group(t, "Application", "argocd/a", deploy("1", "2", "s")), group(t, "Application", "argocd/b", cm("x"))},
		Head: []Group{group(t, "Application", "argocd/a", deploy("1", "5", "s")), group(t, "Application", "argocd/b", cm("y"))},
	}
	kindScoped, err := ParsePointer("Deployment:/spec/replicas")
	if err != nil {
		t.Fatal(err)
	}
	res := compare(t, in, Options{Pointers: []Pointer{kindScoped}})
	if len(res.Apps) != 1 || res.Apps[0].App.Name != "argocd/b" {
		t.Errorf("Deployment:/spec/replicas did not hide the Deployment's change only: %+v", res.Apps)
	}
	if !slices.Contains(res.Filters, "--ignore-pointer /spec/replicas") {
		t.Errorf("filters %q", res.Filters)
	}
	wrongKind, _ := ParsePointer("StatefulSet:/spec/replicas")
	if res := compare(t, in, Options{Pointers: []Pointer{wrongKind}}); len(res.Apps) != 2 {
		t.Errorf("a pointer for another kind hid a change: %d apps", len(res.Apps))
	}
	all, _ := ParsePointer("/metadata/labels/team")
	if res := compare(t, in, Options{Pointers: []Pointer{all}}); len(res.Apps) != 2 || !slices.Contains(allLines(res), "-  k: x") || slices.ContainsFunc(allLines(res), func(l string) bool { return strings.Contains(l, "team") }) {
		t.Errorf("/metadata/labels/team: %q", allLines(res))
	}
	for _, bad := range []string{"spec/replicas", "Deployment:spec", ":/x", "/a~2"} {
		if _, err := ParsePointer(bad); err == nil {
			t.Errorf("ParsePointer(%q) took it", bad)
		}
	}

	app := objects(t, `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: a, namespace: argocd}
spec:
  ignoreDifferences:
    - group: apps
      kind: Deployment
      jsonPointers: [/spec/replicas]
    - group: "*"
      kind: ConfigMap
      jqPathExpressions: [.data.k]
    - kind: Service
      managedFieldsManagers: [kube-controller-manager]
`)[0]
	ptrs, notices := IgnoreDifferences(app.Body, "Application argocd/a")
	if len(ptrs) != 1 || ptrs[0].Path != "/spec/replicas" || ptrs[0].Group != "apps" || ptrs[0].Kind != "Deployment" {
		t.Fatalf("pointers %+v", ptrs)
	}
	if len(notices) != 2 || !strings.Contains(notices[0].Text, `jqPathExpressions ".data.k" not applied`) || !strings.Contains(notices[1].Text, "managedFieldsManagers") {
		t.Errorf("notices %+v", notices)
	}
	// The Application's rule is for its own objects: b's ConfigMap and a
	// Deployment b would render are not filtered by it.
	in.Ignore = map[App][]Pointer{{Kind: "Application", Name: "argocd/a"}: ptrs}
	res = compare(t, in, Options{})
	if len(res.Apps) != 1 || res.Apps[0].App.Name != "argocd/b" {
		t.Errorf("ignoreDifferences of argocd/a: %+v", res.Apps)
	}
	in.Ignore = map[App][]Pointer{{Kind: "Application", Name: "argocd/b"}: ptrs}
	if res := compare(t, in, Options{}); len(res.Apps) != 2 {
		t.Errorf("argocd/b's rules hid argocd/a's Deployment change")
	}
}

const secret = `apiVersion: v1
kind: Secret
metadata:
  name: db
  namespace: shop
type: Opaque
data:
  user: ` + "YWRtaW4=" + `
  password: %PW%
stringData:
  token: %TOKEN%
`

// TestSecretRedacted: no value of a Secret reaches any output; a changed
// value shows as a changed count of pluses, an unchanged one as the same
// line; a ConfigMap is not redacted.
func TestSecretRedacted(t *testing.T) {
	s := func(pw, token string) string {
		return strings.NewReplacer("%PW%", base64.StdEncoding.EncodeToString([]byte(pw)), "%TOKEN%", token).Replace(secret)
	}
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: conf, namespace: shop}\ndata:\n  password: visible-one\n"
	in := Input{
		Base: []Group{group(t, "Kustomization", "flux-system/shop", s("hunter2", "tok-old")+"---\n"+cm)},
		Head: []Group{group(t, "Kustomization", "flux-system/shop", s("correct-horse", "tok-old")+"---\n"+strings.Replace(cm, "one", "two", 1))},
	}
	res := compare(t, in, Options{})
	var js bytes.Buffer
	if err := res.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	md, err := res.Markdown("<!-- x -->\n", 60000, "the JSON output has it all")
	if err != nil {
		t.Fatal(err)
	}
	out := text(t, res) + js.String() + md
	for _, secret := range []string{"hunter2", "correct-horse", "tok-old", "YWRtaW4=", "admin",
		base64.StdEncoding.EncodeToString([]byte("hunter2")), base64.StdEncoding.EncodeToString([]byte("correct-horse")), base64.StdEncoding.EncodeToString([]byte("tok-old"))} {
		if strings.Contains(out, secret) {
			t.Errorf("a Secret's value %q is in the output", secret)
		}
	}
	var secretLines []string
	for _, a := range res.Apps {
		for _, o := range a.Objects {
			if o.Kind == "Secret" {
				for _, h := range o.Hunks {
					secretLines = append(secretLines, h.Lines...)
				}
			}
		}
	}
	for _, want := range []string{"-  password: ++++++++", "+  password: ++++++++++++", "   token: ++++++++", "   user: ++++++++"} {
		if !slices.Contains(secretLines, want) {
			t.Errorf("the Secret's diff has no %q: %q", want, secretLines)
		}
	}
	if !strings.Contains(out, "visible-one") || !strings.Contains(out, "visible-two") {
		t.Errorf("a ConfigMap's data was redacted")
	}
	if res.Redacted != 1 {
		t.Errorf("redacted %d Secrets, want 1", res.Redacted)
	}
	// The same value moved from stringData to data is no change, as in
	// Argo CD (stringData is folded into data).
	moved := "apiVersion: v1\nkind: Secret\nmetadata: {name: m}\ndata:\n  k: " + base64.StdEncoding.EncodeToString([]byte("v")) + "\n"
	res = compare(t, Input{Base: []Group{group(t, "path", "a", "apiVersion: v1\nkind: Secret\nmetadata: {name: m}\nstringData:\n  k: v\n")}, Head: []Group{group(t, "path", "a", moved)}}, Options{})
	if res.Changed() {
		t.Errorf("stringData moved to data is a change: %q", allLines(res))
	}
}

// TestOrderAndDeterminism: apps by kind and name, objects by kind,
// namespace and name, whatever order the input has; the same input gives
// the same bytes; added and removed objects are whole.
func TestOrderAndDeterminism(t *testing.T) {
	cm := func(ns, name, v string) string {
		return "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: " + name + ", namespace: " + ns + "}\ndata: {k: " + v + "}\n"
	}
	base := []Group{
		group(t, "path", "z", cm("b", "one", "1")+cm("a", "two", "1")+cm("a", "gone", "1")),
		group(t, "path", "a", cm("x", "c", "1")),
	}
	head := []Group{
		group(t, "path", "a", cm("x", "c", "2")),
		group(t, "path", "z", cm("a", "two", "2")+cm("b", "one", "2")+cm("a", "new", "1")),
	}
	res := compare(t, Input{Base: base, Head: head}, Options{})
	var order []string
	for _, a := range res.Apps {
		for _, o := range a.Objects {
			order = append(order, a.App.Name+" "+o.Namespace+"/"+o.Name+" "+string(o.Change))
		}
	}
	want := []string{"a x/c changed", "z a/gone removed", "z a/new added", "z a/two changed", "z b/one changed"}
	if !slices.Equal(order, want) {
		t.Errorf("order %q, want %q", order, want)
	}
	added := res.Apps[1].Objects[1]
	if len(added.Hunks) != 1 || added.Hunks[0].Header() != "@@ -0,0 +1,7 @@" || added.LinesAdded != 7 {
		t.Errorf("an added object is not whole: %+v", added)
	}
	first := text(t, res)
	slices.Reverse(base)
	slices.Reverse(head)
	if again := text(t, compare(t, Input{Base: base, Head: head}, Options{})); again != first {
		t.Errorf("the input's order changed the output:\n%s\n%s", first, again)
	}
	var a, b bytes.Buffer
	_ = res.WriteJSON(&a)
	_ = compare(t, Input{Base: base, Head: head}, Options{}).WriteJSON(&b)
	if a.String() != b.String() {
		t.Errorf("JSON differs between runs")
	}
	var doc struct {
		Apps []struct {
			Objects []struct {
				Hunks []struct{ Lines []string }
			}
		}
	}
	if err := json.Unmarshal(a.Bytes(), &doc); err != nil || len(doc.Apps) != 2 || len(doc.Apps[0].Objects[0].Hunks[0].Lines) == 0 {
		t.Errorf("JSON: %v %s", err, a.String())
	}
}

// TestKustomizeHashRename: a generated ConfigMap whose content changed
// changes name; the two names are diffed as one object, and the
// Deployment's reference to it is a one-line change.
func TestKustomizeHashRename(t *testing.T) {
	app := func(hash, v string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web-config-" + hash + ", namespace: shop}\ndata: {LOG: " + v + "}\n---\n" +
			"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec:\n  template:\n    spec:\n      volumes:\n        - name: c\n          configMap: {name: web-config-" + hash + "}\n"
	}
	res := compare(t, Input{Base: []Group{group(t, "path", "apps/web", app("5h2d7b9mkt", "info"))}, Head: []Group{group(t, "path", "apps/web", app("g8b6c4f2hm", "debug"))}}, Options{})
	if res.Objects() != 2 {
		t.Fatalf("want the ConfigMap and the Deployment changed: %s", text(t, res))
	}
	c := res.Apps[0].Objects[0]
	if c.Kind != "ConfigMap" || c.Change != Changed || c.RenamedFrom != "web-config-5h2d7b9mkt" || c.Name != "web-config-g8b6c4f2hm" {
		t.Errorf("the ConfigMap is not diffed as renamed: %+v", c)
	}
	if !slices.Contains(c.Hunks[0].Lines, "-  LOG: info") || !slices.Contains(c.Hunks[0].Lines, "+  LOG: debug") {
		t.Errorf("the ConfigMap's diff: %q", c.Hunks[0].Lines)
	}
	// A name that is not a Kustomize hash is not paired.
	res = compare(t, Input{Base: []Group{group(t, "path", "p", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web-aaaaaaaaaa}\n")}, Head: []Group{group(t, "path", "p", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web-bbbbbbbbbb}\n")}}, Options{})
	if res.Objects() != 2 {
		t.Errorf("names without a Kustomize hash were paired: %s", text(t, res))
	}
}

// TestMovedBetweenApps: an object another app renders at head is diffed
// once, under its head app, saying where it was.
func TestMovedBetweenApps(t *testing.T) {
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {k: %s}\n"
	res := compare(t, Input{Base: []Group{group(t, "Application", "argocd/old", strings.Replace(cm, "%s", "1", 1))},
		Head: []Group{group(t, "Application", "argocd/new", strings.Replace(cm, "%s", "2", 1))}}, Options{})
	if res.Objects() != 1 || res.Apps[0].App.Name != "argocd/new" || res.Apps[0].Objects[0].MovedFrom == nil || res.Apps[0].Objects[0].MovedFrom.Name != "argocd/old" {
		t.Errorf("moved: %s", text(t, res))
	}
}

// TestUnbuiltNotCompared: the objects of an app not built at head are not
// removed, only not compared; those of an app built at both are diffed.
func TestUnbuiltNotCompared(t *testing.T) {
	cm := "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s}\ndata: {k: %s}\n"
	f := func(name, v string) string {
		return fmt.Sprintf(cm, name, v)
	}
	chart := App{Kind: "HelmRelease", Name: "shop/web"}
	in := Input{
		Base:        []Group{{App: chart, Objects: objects(t, f("a", "1")+f("b", "1"))}, group(t, "Kustomization", "flux-system/shop", f("c", "1"))},
		Head:        []Group{group(t, "Kustomization", "flux-system/shop", f("c", "2"))},
		HeadUnbuilt: map[App]bool{chart: true},
	}
	res := compare(t, in, Options{})
	if res.Objects() != 1 || res.Apps[0].App.Name != "flux-system/shop" {
		t.Errorf("objects of an app not built at head shown: %s", text(t, res))
	}
	if len(res.NotCompared) != 1 || res.NotCompared[0] != (NotCompared{App: chart, Revision: "head", Objects: 2}) {
		t.Errorf("not compared %+v", res.NotCompared)
	}
	if !strings.Contains(text(t, res), "2 objects not compared, their apps not built at one revision: HelmRelease shop/web (not built at head)") || len(res.Notices) != 1 {
		t.Errorf("the review does not say what it did not compare: %s %+v", text(t, res), res.Notices)
	}
	in.HeadUnbuilt = nil
	if res := compare(t, in, Options{}); res.Objects() != 3 {
		t.Errorf("without the unbuilt mark the chart's objects are removed: %d objects", res.Objects())
	}
}
