package gitrev

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"

	"github.com/routeguard/routeguard/internal/confine"
)

// onDemandRepo commits a tree with what an export treats specially:
// links inside and outside, to files and directories, chains of links, a
// link as a parent, a directory holding only a link Export leaves out.
func onDemandRepo(t *testing.T) (*Repo, Revision) {
	t.Helper()
	dir := t.TempDir()
	r, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"apps/web/kustomization.yaml":    "resources: [../../base, route.yaml]\n",
		"apps/web/route.yaml":            "kind: HTTPRoute\n",
		"apps/api/kustomization.yaml":    "resources: [route.yaml]\n",
		"apps/api/route.yaml":            "kind: HTTPRoute\n",
		"base/kustomization.yaml":        "resources: [svc.yaml]\n",
		"base/svc.yaml":                  "kind: Service\n",
		"base/nested/deep/x.yaml":        "x: 1\n",
		"charts/web/Chart.yaml":          "name: web\n",
		"charts/web/templates/route.yml": "kind: HTTPRoute\n",
		"README.md":                      "hello\n",
	}
	for p, c := range files {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644)
	}
	links := map[string]string{
		"apps/linked":       "web",                 // to a directory
		"apps/web/svc.yaml": "../../base/svc.yaml", // to a file elsewhere
		"apps/chain":        "linked",              // a chain
		"apps/loop":         "loop",                // to itself
		"apps/dangling":     "nowhere.yaml",
		"escape/out.yaml":   "../../etc/passwd", // left out: escape/ is not made
		"basedir":           "base",
		"apps/web/nested":   "../../base/nested", // a directory below the path, elsewhere
		"apps/web/up":       "..",                // to its parent: followed once
	}
	for p, l := range links {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755)
		os.Symlink(l, filepath.Join(dir, p))
	}
	h := commitAll(t, r, "one")
	repo, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return repo, Revision{Hash: h.String(), Name: "one"}
}

// traceOf is a trace of the observations (kind, path) on the tree at dir.
func traceOf(dir string, obs []confine.Observation) *confine.Trace {
	tr := confine.NewTrace()
	for _, o := range obs {
		tr.Record(o.Kind, dir, filepath.Join(dir, filepath.FromSlash(o.Path)))
	}
	return tr
}

// Every observation, once Missing's entries are written, comes out in the
// on-demand export as in the full one; before, some do not (so the check
// can fail).
func TestOnDemandObservationsAsInTheFullExport(t *testing.T) {
	repo, rev := onDemandRepo(t)
	full := t.TempDir()
	if _, err := repo.Export(rev, full, ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	paths := []string{".", "apps", "apps/web", "apps/web/route.yaml", "apps/web/svc.yaml", "apps/linked", "apps/linked/route.yaml",
		"apps/chain/kustomization.yaml", "apps/loop", "apps/dangling", "apps/missing.yaml", "apps/web/route.yaml/x",
		"base", "base/nested", "base/nested/deep/x.yaml", "escape", "escape/out.yaml", "basedir/svc.yaml", "charts/web/templates",
		"README.md/child", "nope/deeper"}
	kinds := []confine.ObservationKind{confine.ObservedContent, confine.ObservedStat, confine.ObservedLstat, confine.ObservedListing, confine.ObservedTarget}
	for _, p := range paths {
		for _, k := range kinds {
			obs := []confine.Observation{{Kind: k, Path: p}}
			dest := t.TempDir()
			d, err := repo.ExportOnDemand(rev, dest, ExportOptions{})
			if err != nil {
				t.Fatal(err)
			}
			missing, all := d.Missing(obs)
			if all {
				t.Fatalf("%v of %s: asks for the whole tree", k, p)
			}
			if err := d.Write(missing); err != nil {
				t.Fatal(err)
			}
			if again, _ := d.Missing(obs); len(again) > 0 {
				t.Errorf("%v of %s: still missing %v after Write", k, p, again)
			}
			if same, diff := traceOf(dest, obs).SameIn(dest, full); !same {
				t.Errorf("kind %d of %s: differs from the full export after writing %v: %s", k, p, missing, diff)
			}
		}
	}
	// Nothing written: observations of what exists differ.
	d, err := repo.ExportOnDemand(rev, t.TempDir(), ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	obs := []confine.Observation{{Kind: confine.ObservedContent, Path: "apps/web/svc.yaml"}}
	if same, _ := traceOf(d.Dir(), obs).SameIn(d.Dir(), full); same {
		t.Error("an empty on-demand export observed the same as the full one")
	}
	if _, all := d.Missing([]confine.Observation{{Kind: confine.ObservedGlob, Path: "apps/*"}}); !all {
		t.Error("a glob did not ask for the whole tree")
	}
}

// WriteAll writes what Export writes, and nothing is written twice.
func TestOnDemandWriteAllIsTheExport(t *testing.T) {
	repo, rev := onDemandRepo(t)
	full := t.TempDir()
	n, err := repo.Export(rev, full, ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dest := t.TempDir()
	d, err := repo.ExportOnDemand(rev, dest, ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.WriteUnder([]string{"apps/web", "README.md", "not/there"}); err != nil {
		t.Fatal(err)
	}
	got := listTree(t, dest)
	for _, want := range []string{"apps/web/route.yaml", "apps/web/svc.yaml -> ../../base/svc.yaml", "base/svc.yaml", "README.md", "base/nested/deep/x.yaml", "apps/api/route.yaml"} {
		if !slices.Contains(got, want) {
			t.Errorf("WriteUnder(apps/web, README.md) wrote %v, not %s", got, want)
		}
	}
	if slices.Contains(got, "charts/web/Chart.yaml") || slices.Contains(got, "base/kustomization.yaml") {
		t.Errorf("WriteUnder(apps/web) wrote what is not below it nor linked from it: %v", got)
	}
	if d.Complete() {
		t.Error("complete after a part")
	}
	if err := d.WriteAll(); err != nil {
		t.Fatal(err)
	}
	if !d.Complete() || d.Files() != n {
		t.Errorf("complete %v, %d files written, Export wrote %d", d.Complete(), d.Files(), n)
	}
	if a, b := listTree(t, dest), listTree(t, full); !slices.Equal(a, b) {
		t.Errorf("WriteAll wrote\n%v\nExport wrote\n%v", a, b)
	}
	// The size cap holds as Export's does.
	small, err := repo.ExportOnDemand(rev, t.TempDir(), ExportOptions{MaxBytes: 8})
	if err != nil {
		t.Fatal(err)
	}
	if err := small.WriteAll(); err == nil {
		t.Error("a tree over MaxBytes was written")
	}
}

// listTree lists the entries under dir: files with their content's
// length, links with their targets, directories.
func listTree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			rel += " -> " + l
		case fi.IsDir():
			rel += "/"
		default:
			data, _ := os.ReadFile(p)
			if string(data) == "" {
				rel += " (empty)"
			}
		}
		out = append(out, rel)
		return nil
	})
	slices.Sort(out)
	return out
}

// A tree of more entries than an export indexes is refused with a message
// naming the revision, before anything is written.
func TestOnDemandRefusesHugeTrees(t *testing.T) {
	repo, rev := onDemandRepo(t)
	defer func(n int) { maxTreeEntries = n }(maxTreeEntries)
	maxTreeEntries = 5
	_, err := repo.ExportOnDemand(rev, t.TempDir(), ExportOptions{})
	if err == nil || !strings.Contains(err.Error(), "revision one: the tree holds more than 5 files and directories") {
		t.Errorf("a tree over the cap: %v", err)
	}
}
