package analysis

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/routeguard/routeguard/internal/manifest"
)

// fakeAnalyzer reports one finding per object of its kind.
type fakeAnalyzer struct {
	name, kind, code string
	err              error
	panics           bool
}

func (f fakeAnalyzer) Metadata() Metadata {
	return Metadata{Name: f.name, Description: "test", Inputs: []manifest.GroupKind{{Kind: f.kind}}}
}

func (f fakeAnalyzer) Analyze(_ context.Context, c *Context) error {
	if f.panics {
		var m map[string]int
		m["x"] = 1
	}
	for _, o := range c.Objects().ByKind("", f.kind) {
		c.Report(Finding{Code: f.code, Message: o.Name + " is odd", Object: c.Ref(o), Source: o.Source})
	}
	for _, o := range c.ContextObjects().ByKind("", f.kind) {
		c.Report(Finding{Code: f.code, Message: o.Name + " is odd", Object: c.Ref(o), Source: o.Source}) // must be dropped: context objects are never reported
	}
	return f.err
}

func obj(t *testing.T, file string, line int, kind, ns, name string) *manifest.Object {
	t.Helper()
	md := map[string]any{"name": name}
	if ns != "" {
		md["namespace"] = ns
	}
	o, err := manifest.FromBody(map[string]any{"apiVersion": "v1", "kind": kind, "metadata": md},
		manifest.Source{File: file, Line: line})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func set(t *testing.T, objs ...*manifest.Object) *manifest.Set {
	t.Helper()
	s := manifest.NewSet()
	if err := s.AddAll(objs); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestRunSettles(t *testing.T) {
	rendered := set(t,
		obj(t, "b.yaml", 3, "Secret", "apps", "s2"),
		obj(t, "a.yaml", 9, "Secret", "apps", "s1"),
		obj(t, "a.yaml", 1, "Secret", "", "s0"),
		obj(t, "a.yaml", 20, "Secret", "apps", "keep-me"),
	)
	ctxSet := set(t, obj(t, "other/x.yaml", 1, "Secret", "other", "ctx"))
	res, err := RunAnalyzers(context.Background(), RunOptions{
		Set: rendered, ContextSet: ctxSet,
		Analyzers: []Analyzer{fakeAnalyzer{name: "t.Secrets", kind: "Secret", code: CodePlainSecret}},
		Config: Settings{
			Severity: map[string]Severity{CodePlainSecret: SeverityError},
			Suppress: []Suppression{{Code: "RG4*", Object: "Secret apps/keep-*"}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range res.Findings {
		got = append(got, f.Source.String()+" "+f.Code+" "+f.Severity.String()+" "+f.Object.String()+" "+f.Analyzer)
	}
	want := []string{
		"a.yaml:1 RG4001 error Secret default/s0 t.Secrets",
		"a.yaml:9 RG4001 error Secret apps/s1 t.Secrets",
		"b.yaml:3 RG4001 error Secret apps/s2 t.Secrets",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if res.Suppressed != 1 {
		t.Errorf("suppressed = %d, want 1", res.Suppressed)
	}
	if res.Max() != SeverityError {
		t.Errorf("max = %v", res.Max())
	}
}

func TestRunErrors(t *testing.T) {
	s := set(t, obj(t, "a.yaml", 1, "Secret", "apps", "s"))
	tests := []struct {
		name string
		a    Analyzer
		opts Settings
		want string
	}{
		{"internal error", fakeAnalyzer{name: "t.Err", kind: "Secret", code: CodePlainSecret, err: errors.New("boom")}, Settings{}, "analyzer t.Err: boom"},
		{"panic", fakeAnalyzer{name: "t.Panic", panics: true}, Settings{}, "analyzer t.Panic panicked"},
		{"unknown code", fakeAnalyzer{name: "t.Code", kind: "Secret", code: "RG9999"}, Settings{}, `code "RG9999", which is not in the catalog`},
		{"foreign code without severity", fakeAnalyzer{name: "t.Ist", kind: "Secret", code: "IST0101"}, Settings{}, "without a severity"},
		{"unknown override", fakeAnalyzer{name: "t.Ok", kind: "Secret", code: CodePlainSecret}, Settings{Severity: map[string]Severity{"RG9998": SeverityInfo}}, `unknown code "RG9998"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := RunAnalyzers(context.Background(), RunOptions{Set: s, Analyzers: []Analyzer{tc.a}, Config: tc.opts})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestResolveScopes(t *testing.T) {
	rendered := set(t, obj(t, "a.yaml", 1, "Service", "apps", "web"), obj(t, "a.yaml", 5, "Service", "", "dflt"),
		obj(t, "a.yaml", 9, "ConfigMap", "routes-only", "cm"), obj(t, "a.yaml", 12, "Namespace", "", "owned"),
		obj(t, "a.yaml", 15, "Service", "media", "proxy"))
	ctxSet := set(t, obj(t, "c.yaml", 1, "Service", "shared", "db"))
	c := NewRunContext(RunOptions{Set: rendered, ContextSet: ctxSet, DefaultNamespace: "team",
		Unrendered: []UnrenderedScope{{Namespace: "media", Kinds: []manifest.GroupKind{{Kind: "Service"}}, Reason: "r"}}})
	tests := []struct {
		ns, name string
		want     Scope
	}{
		{"apps", "web", ScopeRendered},
		{"team", "dflt", ScopeRendered},
		{"shared", "db", ScopeContext},
		{"apps", "gone", ScopeMissing},      // Services are rendered in apps
		{"shared", "gone", ScopeMissing},    // ... and in shared, by a context path
		{"routes-only", "x", ScopeOutside},  // the app renders only other kinds there
		{"owned", "x", ScopeMissing},        // the app renders the Namespace
		{"elsewhere", "x", ScopeOutside},    // nothing rendered there
		{"media", "jellyfin", ScopeOutside}, // an unrendered scope covers it
		{"media", "proxy", ScopeRendered},   // found objects are found all the same
	}
	for _, tc := range tests {
		_, got := c.Resolve(manifest.Key{Kind: "Service", Namespace: tc.ns, Name: tc.name})
		if got != tc.want {
			t.Errorf("Resolve(%s/%s) = %v, want %v", tc.ns, tc.name, got, tc.want)
		}
	}
	if msg := c.OutsideMessage("backendRef", manifest.Key{Kind: "Service", Namespace: "media", Name: "jellyfin"}); !strings.Contains(msg, "(r)") {
		t.Errorf("the RG0001 message does not give the unrendered scope's reason: %s", msg)
	}
	if msg := c.OutsideMessage("parentRef", manifest.Key{Kind: "Service", Namespace: "routes-only", Name: "x"}); !strings.Contains(msg, `renders no Service in namespace "routes-only"`) {
		t.Errorf("the RG0001 message does not say what is not rendered: %s", msg)
	}
}

func TestGlob(t *testing.T) {
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{"RG1*", "RG1101", true},
		{"RG1*", "RG2001", false},
		{"HTTPRoute apps/*", "HTTPRoute apps/web", true},
		{"*/web", "HTTPRoute apps/web", true},
		{"*/web", "HTTPRoute apps/web2", false},
		{"RG100?", "RG1001", true},
		{"RG100?", "RG10011", false},
		{"", "", true},
		{"*", "", true},
		{"a*b*c", "axxbyyc", true},
		{"a*b*c", "axxbyy", false},
	}
	for _, tc := range tests {
		if got := Glob(tc.pattern, tc.name); got != tc.want {
			t.Errorf("Glob(%q, %q) = %v, want %v", tc.pattern, tc.name, got, tc.want)
		}
	}
}

func TestCatalog(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range Catalog() {
		if seen[c.ID] {
			t.Errorf("duplicate code %s", c.ID)
		}
		seen[c.ID] = true
		if len(c.ID) != 6 || c.ID[:2] != "RG" {
			t.Errorf("code %q is not RGnnnn", c.ID)
		}
		if c.Title == "" || len(c.Description) < 40 {
			t.Errorf("code %s lacks a title or a description that says how to fix it", c.ID)
		}
		if c.Severity < SeverityInfo || c.Severity > SeverityError {
			t.Errorf("code %s has no default severity", c.ID)
		}
	}
}

func TestParseSeverity(t *testing.T) {
	for _, s := range []Severity{SeverityInfo, SeverityWarning, SeverityError} {
		got, err := ParseSeverity(strings.ToUpper(s.String()))
		if err != nil || got != s {
			t.Errorf("ParseSeverity(%q) = %v, %v", s, got, err)
		}
	}
	if _, err := ParseSeverity("fatal"); err == nil {
		t.Error("ParseSeverity(fatal) succeeded")
	}
}

// blocker holds a processor slot until the out-of-process analyzer has
// started (or gives up after a while, so a broken runner fails the test
// instead of hanging it).
type blocker struct {
	name    string
	started <-chan struct{}
}

func (b blocker) Metadata() Metadata { return Metadata{Name: b.name, Description: "test"} }

func (b blocker) Analyze(context.Context, *Context) error {
	select {
	case <-b.started:
		return nil
	case <-time.After(20 * time.Second):
		return errors.New("the out-of-process analyzer never started while the built-in analyzers held every slot")
	}
}

type external struct{ started chan struct{} }

func (e external) Metadata() Metadata { return Metadata{Name: "zz.external", Description: "test"} }
func (e external) OutOfProcess() bool { return true }
func (e external) Analyze(context.Context, *Context) error {
	close(e.started)
	return nil
}

// TestOutOfProcessStartsFirst: a plugin analyzer (sorted last by name)
// starts even when the built-in analyzers take every processor slot.
func TestOutOfProcessStartsFirst(t *testing.T) {
	e := external{started: make(chan struct{})}
	as := []Analyzer{e}
	for i := range runtime.GOMAXPROCS(0) + 1 {
		as = append(as, blocker{name: fmt.Sprintf("a%d", i), started: e.started})
	}
	res, err := RunAnalyzers(context.Background(), RunOptions{Set: manifest.NewSet(), Analyzers: as})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Analyzers) != len(as) || res.Analyzers[len(as)-1] != "zz.external" {
		t.Errorf("analyzers %v: want every one, sorted by name", res.Analyzers)
	}
}

func TestQualifiedName(t *testing.T) {
	if got := QualifiedName("", "edge"); got != "edge" {
		t.Errorf("QualifiedName without namespace = %q, want edge (never /edge)", got)
	}
	if got := QualifiedName("infra", "edge"); got != "infra/edge" {
		t.Errorf("QualifiedName = %q", got)
	}
}

// TestIgnoreAnnotation: routeguard.io/ignore on the object drops findings
// of the codes (or globs) it lists about that object, and no other.
func TestIgnoreAnnotation(t *testing.T) {
	annotated := func(name, ignore string) *manifest.Object {
		md := map[string]any{"name": name, "namespace": "apps"}
		if ignore != "" {
			md["annotations"] = map[string]any{IgnoreAnnotation: ignore, IgnoreReasonAnnotation: "test"}
		}
		o, err := manifest.FromBody(map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": md}, manifest.Source{File: "a.yaml", Line: 1})
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	s := set(t, annotated("plain", ""), annotated("exact", "RG4001"), annotated("listed", "RG1101, RG4001"),
		annotated("glob", "RG4*"), annotated("star", "*"), annotated("other", "RG4002,RG0001"))
	res, err := RunAnalyzers(context.Background(), RunOptions{Set: s,
		Analyzers: []Analyzer{fakeAnalyzer{name: "t.Secrets", kind: "Secret", code: CodePlainSecret}}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range res.Findings {
		got = append(got, f.Object.Name)
	}
	if strings.Join(got, ",") != "plain,other" && strings.Join(got, ",") != "other,plain" {
		t.Errorf("reported about %v, want plain and other", got)
	}
	if res.Suppressed != 4 {
		t.Errorf("suppressed = %d, want 4", res.Suppressed)
	}
}

func TestRetiredCodeReported(t *testing.T) {
	s := set(t, obj(t, "a.yaml", 1, "Secret", "apps", "s"))
	_, err := RunAnalyzers(context.Background(), RunOptions{Set: s,
		Analyzers: []Analyzer{fakeAnalyzer{name: "t.Old", kind: "Secret", code: CodeCRDOrdering}}})
	if err == nil || !strings.Contains(err.Error(), "retired") {
		t.Fatalf("err = %v, want the retired code refused", err)
	}
}

type longOne struct{ fakeAnalyzer }

func (longOne) Long() bool { return true }

// TestStartOrder: out-of-process analyzers start first, then the long
// ones, then the rest, each group in name order, whatever the names.
func TestStartOrder(t *testing.T) {
	as := []Analyzer{
		fakeAnalyzer{name: "a.short"},
		longOne{fakeAnalyzer{name: "b.long"}},
		fakeAnalyzer{name: "c.short"},
		external{},
		longOne{fakeAnalyzer{name: "y.long"}},
	}
	SortAnalyzers(as)
	var got []string
	for _, i := range startOrder(as) {
		got = append(got, as[i].Metadata().Name)
	}
	if want := "zz.external b.long y.long a.short c.short"; strings.Join(got, " ") != want {
		t.Errorf("start order %v, want %s", got, want)
	}
}
