package project

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	log "github.com/sirupsen/logrus"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

// table is the parity table, decoded with Argo CD's own types.
type table struct {
	Clusters []struct {
		Name   string `json:"name"`
		Server string `json:"server"`
	} `json:"clusters"`
	Projects []struct {
		Name string                  `json:"name"`
		Spec v1alpha1.AppProjectSpec `json:"spec"`
	} `json:"projects"`
	Destinations []v1alpha1.ApplicationDestination `json:"destinations"`
	Apps         []struct {
		Namespace string   `json:"namespace"`
		Repos     []string `json:"repos"`
	} `json:"apps"`
	Objects []struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Name       string `json:"name"`
		Namespace  string `json:"namespace"`
		Namespaced bool   `json:"namespaced"`
	} `json:"objects"`
}

func mainRoot(t *testing.T) string {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Clean(filepath.Join(wd, "..", "..", ".."))
}

// readTable reads the table, its "@inactive" schedules made concrete.
func readTable(t *testing.T, now time.Time) (*table, []byte) {
	data, err := os.ReadFile(filepath.Join(mainRoot(t), "internal", "argocd", "project", "testdata", "parity.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	later := now.Add(12 * time.Hour).UTC()
	data = bytes.ReplaceAll(data, []byte(`"@inactive"`), fmt.Appendf(nil, `"%d %d * * *"`, later.Minute(), later.Hour()))
	var tb table
	if err := yaml.Unmarshal(data, &tb); err != nil {
		t.Fatal(err)
	}
	return &tb, data
}

func appName(project string, d, a int) string { return fmt.Sprintf("%s-d%d-a%d", project, d, a) }

// writeRepo writes the table as a repository: the projects, one
// Application per project × destination × app (automated, so that sync
// windows apply), every object in objects/.
func writeRepo(t *testing.T, tb *table, data []byte) string {
	root := t.TempDir()
	// The projects as written: re-encoding Argo CD's types would drop an
	// empty list (omitempty), which is not the same as an unset one.
	var raw struct {
		Projects []struct {
			Name string         `json:"name"`
			Spec map[string]any `json:"spec"`
		} `json:"projects"`
	}
	if err := yaml.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	write := func(rel string, v any) {
		data, err := yaml.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range raw.Projects {
		write("projects/"+p.Name+".yaml", map[string]any{"apiVersion": "argoproj.io/v1alpha1", "kind": "AppProject",
			"metadata": map[string]any{"name": p.Name, "namespace": "argocd"}, "spec": p.Spec})
	}
	for i, o := range tb.Objects {
		md := map[string]any{"name": o.Name}
		if o.Namespace != "" {
			md["namespace"] = o.Namespace
		}
		write(fmt.Sprintf("objects/%02d.yaml", i), map[string]any{"apiVersion": o.APIVersion, "kind": o.Kind, "metadata": md})
	}
	for _, p := range tb.Projects {
		for d, dest := range tb.Destinations {
			for a, app := range tb.Apps {
				var sources []map[string]any
				for _, r := range app.Repos {
					sources = append(sources, map[string]any{"repoURL": r, "path": "objects", "targetRevision": "main"})
				}
				spec := map[string]any{"project": p.Name, "destination": dest,
					"syncPolicy": map[string]any{"automated": map[string]any{}}}
				if len(sources) == 1 {
					spec["source"] = sources[0]
				} else {
					spec["sources"] = sources
				}
				write("apps/"+appName(p.Name, d, a)+".yaml", map[string]any{"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
					"metadata": map[string]any{"name": appName(p.Name, d, a), "namespace": app.Namespace}, "spec": spec})
			}
		}
	}
	return root
}

func routeguard(t *testing.T) string {
	if bin := os.Getenv("ROUTEGUARD_BIN"); bin != "" {
		return bin
	}
	bin := filepath.Join(t.TempDir(), "routeguard")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/routeguard")
	cmd.Dir = mainRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building routeguard (set ROUTEGUARD_BIN to skip): %v\n%s", err, out)
	}
	return bin
}

// verdict is one refusal: "app key | code | Kind ns/name".
func verdict(app, code, kind, ns, name string) string {
	return fmt.Sprintf("%s | %s | %s %s/%s", app, code, kind, ns, name)
}

// TestProjectParity compares routeguard's project findings with what Argo
// CD's AppProject methods decide, verdict by verdict.
func TestProjectParity(t *testing.T) {
	log.SetLevel(log.ErrorLevel) // Argo CD warns once per bad pattern; the table has them on purpose
	now := time.Now().UTC().Truncate(time.Second)
	tb, data := readTable(t, now)
	root := writeRepo(t, tb, data)
	// Every repoURL of the table means this repository: each Application
	// renders the objects, as Argo CD would from its repository.
	args := []string{"argocd", "analyze", "-o", "json", "--repo-root", root, "--now", now.Format(time.RFC3339)}
	for _, a := range tb.Apps {
		for _, r := range a.Repos {
			args = append(args, "--repo-url", r)
		}
	}
	for _, c := range tb.Clusters {
		if c.Name != "in-cluster" {
			args = append(args, "--cluster", c.Name+"="+c.Server)
		}
	}
	cmd := exec.Command(routeguard(t), append(args, filepath.Join(root, "apps"), filepath.Join(root, "projects"))...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil && cmd.ProcessState.ExitCode() != 1 {
		t.Fatalf("routeguard argocd analyze: %v\n%s", err, stderr.String())
	}
	var report struct {
		Findings []struct {
			Code   string `json:"code"`
			Object struct {
				Kind      string `json:"kind"`
				Namespace string `json:"namespace"`
				Name      string `json:"name"`
			} `json:"object"`
			App string `json:"application"`
		} `json:"findings"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &report); err != nil {
		t.Fatalf("report: %v\n%s", err, stdout.String())
	}
	got := map[string]bool{}
	for _, f := range report.Findings {
		if strings.HasPrefix(f.Code, "RG02") {
			got[verdict(f.App, f.Code, f.Object.Kind, f.Object.Namespace, f.Object.Name)] = true
		}
	}
	if os.Getenv("PARITY_DEBUG") != "" {
		t.Logf("stderr:\n%s", stderr.String())
	}
	for _, line := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(line, " more notices left out") {
			// routeguard caps its notices on stderr; the sync window
			// verdicts are notes among them.
			t.Fatalf("routeguard left notices out, so the sync window verdicts are not all there: %s", line)
		}
		if key, ok := strings.CutPrefix(line, "routeguard: note: Application "); ok && strings.Contains(key, ": the sync windows of AppProject") {
			key, _, _ = strings.Cut(key, ":")
			got[verdict(key, "window", "Application", "", "")] = true
		}
		if strings.Contains(line, "cannot be checked") || strings.Contains(line, "not checked") {
			t.Errorf("routeguard left a verdict undecided: %s", line)
		}
	}

	want, counts := argoVerdicts(t, tb, now)
	var missing, extra []string
	for k := range want {
		if !got[k] {
			missing = append(missing, k)
		}
	}
	for k := range got {
		if !want[k] {
			extra = append(extra, k)
		}
	}
	slices.Sort(missing)
	slices.Sort(extra)
	for _, k := range missing {
		t.Errorf("Argo CD refuses, routeguard does not: %s", k)
	}
	for _, k := range extra {
		t.Errorf("routeguard refuses, Argo CD does not: %s", k)
	}
	t.Logf("%d Applications; verdicts compared: %v; refusals: %d", len(tb.Projects)*len(tb.Destinations)*len(tb.Apps), counts, len(want))
	// The table must keep exercising each step, permitted and refused.
	for _, step := range []string{"app namespace", "source", "destination", "kind", "object namespace", "window"} {
		if counts[step+" permitted"] == 0 || counts[step+" refused"] == 0 {
			t.Errorf("the table no longer has both verdicts of %q: %v", step, counts)
		}
	}
}

// argoVerdicts runs every Application and object of the table through Argo
// CD's AppProject methods in the order the application controller applies
// them (refreshAppConditions: getAppProj's IsAppNamespacePermitted, then
// ValidatePermissions' IsSourcePermitted and IsDestinationPermitted; the
// sync's validateSyncPermissions per object; autoSync's sync windows).
func argoVerdicts(t *testing.T, tb *table, now time.Time) (map[string]bool, map[string]int) {
	want, counts := map[string]bool{}, map[string]int{}
	count := func(step string, ok bool) bool {
		if ok {
			counts[step+" permitted"]++
		} else {
			counts[step+" refused"]++
		}
		return ok
	}
	clusterOf := func(d v1alpha1.ApplicationDestination) *v1alpha1.Cluster {
		for _, c := range tb.Clusters {
			if (d.Server != "" && c.Server == d.Server) || (d.Server == "" && c.Name == d.Name) {
				return &v1alpha1.Cluster{Server: c.Server, Name: c.Name}
			}
		}
		t.Fatalf("destination %v names no cluster of the table", d)
		return nil
	}
	noClusters := func(string) ([]*v1alpha1.Cluster, error) { return nil, nil }
	for _, tp := range tb.Projects {
		proj := &v1alpha1.AppProject{ObjectMeta: metav1.ObjectMeta{Name: tp.Name, Namespace: "argocd"}, Spec: tp.Spec}
		for d, dest := range tb.Destinations {
			cluster := clusterOf(dest)
			for a, ta := range tb.Apps {
				app := &v1alpha1.Application{ObjectMeta: metav1.ObjectMeta{Name: appName(tp.Name, d, a), Namespace: ta.Namespace},
					Spec: v1alpha1.ApplicationSpec{Project: tp.Name, Destination: dest}}
				key := ta.Namespace + "/" + app.Name
				if !count("app namespace", proj.IsAppNamespacePermitted(app, "argocd")) {
					want[verdict(key, "RG0205", "Application", ta.Namespace, app.Name)] = true
					continue
				}
				ok := true
				for _, r := range ta.Repos {
					if !count("source", proj.IsSourcePermitted(v1alpha1.ApplicationSource{RepoURL: r})) {
						want[verdict(key, "RG0203", "Application", ta.Namespace, app.Name)] = true
						ok = false
					}
				}
				permitted, err := proj.IsDestinationPermitted(cluster, dest.Namespace, noClusters)
				if err != nil {
					t.Fatal(err)
				}
				if !count("destination", permitted) {
					want[verdict(key, "RG0204", "Application", ta.Namespace, app.Name)] = true
					ok = false
				}
				if !ok {
					continue
				}
				for _, o := range tb.Objects {
					gv, _ := schema.ParseGroupVersion(o.APIVersion)
					gk := schema.GroupKind{Group: gv.Group, Kind: o.Kind}
					ns := o.Namespace
					if ns == "" {
						ns = dest.Namespace // gitops-engine's sync context sets it
					}
					shown := ""
					if o.Namespaced {
						shown = ns
					}
					if !count("kind", proj.IsGroupKindNamePermitted(gk, o.Name, o.Namespaced)) {
						want[verdict(key, "RG0201", o.Kind, shown, o.Name)] = true
						continue
					}
					if o.Namespaced {
						permitted, err := proj.IsDestinationPermitted(cluster, ns, noClusters)
						if err != nil {
							t.Fatal(err)
						}
						if !count("object namespace", permitted) {
							want[verdict(key, "RG0202", o.Kind, ns, o.Name)] = true
						}
					}
				}
				if proj.Spec.SyncWindows.HasWindows() {
					canSync, err := proj.Spec.SyncWindows.Matches(app).CanSync(false, nil)
					if !count("window", canSync && err == nil) {
						want[verdict(key, "window", "Application", "", "")] = true
					}
				}
			}
		}
	}
	return want, counts
}
