//go:build unix && newcomer

package newcomer

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// edit is one hand-edited file: created (old is "") or changed.
type edit struct {
	path  string
	apply func(old string) (string, error)
}

// create writes a new file.
func create(path, content string) edit {
	return edit{path, func(old string) (string, error) {
		if old != "" {
			return "", fmt.Errorf("exists already")
		}
		return content, nil
	}}
}

// insert puts text after the first occurrence of anchor (before it when
// before is set); an anchor that is gone means the recipe no longer fits.
func insert(path, anchor, text string, before bool) edit {
	return edit{path, func(old string) (string, error) {
		i := strings.Index(old, anchor)
		if i < 0 {
			return "", fmt.Errorf("anchor %q not found: the recipe of docs/contributing.md no longer fits the code", anchor)
		}
		if !before {
			i += len(anchor)
		}
		return old[:i] + text + old[i:], nil
	}}
}

// task is one section of docs/contributing.md.
type task struct {
	heading  string // the section's heading, up to its count
	hand     []edit // the files a newcomer edits or writes
	fixtures []edit // the test data the heading calls "and fixtures" (not counted)
	// want: file -> text that must be there after the generators ran.
	want map[string]string
}

const (
	code    = "RG2099"
	format  = "newcomer"
	group   = "example.routeguard.io"
	kind    = "NewcomerRoute"
	trigger = "on-routeguard-newcomer-task"
)

func tasks(root string) []task {
	fixture := func(name string) edit {
		return edit{"lua-health/" + group + "/" + kind + "/testdata/" + name, func(string) (string, error) {
			raw, err := os.ReadFile(filepath.Join(root, "lua-health/networking.istio.io/ServiceEntry/testdata", name))
			if err != nil {
				return "", err
			}
			s := strings.Replace(string(raw), "apiVersion: networking.istio.io/v1", "apiVersion: "+group+"/v1", 1)
			return strings.Replace(s, "kind: ServiceEntry", "kind: "+kind, 1), nil
		}}
	}
	return []task{{
		heading: "## Add a check with a new code",
		hand: []edit{
			insert("internal/analysis/codes.go", "\tCodeIngressALBAction     = \"RG2007\"\n", "\tCodeNewcomerTask = \""+code+"\"\n", false),
			insert("internal/analysis/codes.go", "\t{ID: CodeIngressALBAction,", `	{ID: CodeNewcomerTask, Severity: SeverityWarning, Title: "newcomer task",
		Description: "An Ingress carries the routeguard.example/newcomer annotation. Remove it.",
		Message:     Template{"annotation routeguard.example/newcomer is %q", text("value")}},
`, true),
			insert("internal/analysis/ingress/class.go", "c.ReportCode(ing, analysis.CodeIngressNoClass, defaultClassAnnotation)\n\t\t}\n", `		if v, ok := ing.Annotations()["routeguard.example/newcomer"]; ok {
			c.ReportCode(ing, analysis.CodeNewcomerTask, v)
		}
`, false),
			create("internal/analysis/ingress/testdata/newcomer_task.yaml", `# analyzer: ingress.Class
# case: the newcomer's annotation
# want: `+code+` Ingress shop/web
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: web
  namespace: shop
  annotations:
    routeguard.example/newcomer: "yes"
spec:
  ingressClassName: nginx
  defaultBackend:
    service: {name: web, port: {number: 80}}
`),
		},
		want: map[string]string{"docs/analysis.md": "| " + code + " | warning | newcomer task |"},
	}, {
		heading: "## Add a report format",
		hand: []edit{
			create("internal/report/"+format+".go", `package report

import (
	"fmt"
	"io"

	"github.com/routeguard/routeguard/internal/analysis"
)

var _ = format(Format{Name: "`+format+`", Syntax: SyntaxText, New: newNewcomer, Doc: "one line per finding: its code and the length of its message"})

type newcomer struct {
	w     io.Writer
	lines []string
}

func newNewcomer(w io.Writer, _ Options) Writer { return &newcomer{w: w} }

func (n *newcomer) Write(f analysis.Finding) error {
	n.lines = append(n.lines, fmt.Sprintf("%s %d\n", f.Code, len(f.Message)))
	return nil
}

func (n *newcomer) Flush() error {
	for _, l := range n.lines {
		if _, err := io.WriteString(n.w, l); err != nil {
			return err
		}
	}
	return nil
}
`),
			create("internal/report/"+format+"_test.go", `package report

import (
	"bytes"
	"testing"
)

func TestNewcomer(t *testing.T) {
	var buf bytes.Buffer
	w, err := New("`+format+`", &buf, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteAll(w, sample); err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(buf.Bytes(), []byte("\n")); n != len(sample) {
		t.Fatalf("%d lines for %d findings: %q", n, len(sample), buf.String())
	}
}
`),
		},
		want: map[string]string{
			"docs/analysis.md": "| `" + format + "` | text | one line per finding",
			"README.md":        "| `" + format + "` | text |",
			"docs/cli.md":      format,
		},
	}, {
		heading: "## Add a health-checked kind",
		hand: []edit{
			insert("internal/routing/kinds.go", "\t// Ingresses of the old extensions group.\n",
				"\t{GroupKind: manifest.GroupKind{Group: \""+group+"\", Kind: \""+kind+"\"}, Alerted: true, Health: &Health{Template: \"istio\"}},\n", true),
			create("lua-health/"+group+"/"+kind+"/health_test.yaml", `tests:
- healthStatus:
    status: Healthy
    message: reconciled by Istio
  inputPath: testdata/healthy_reconciled.yaml
- healthStatus:
    status: Progressing
    message: waiting for Istio to process generation 3 (status is for generation 2)
  inputPath: testdata/progressing_staleObservedGeneration.yaml
- healthStatus:
    status: Degraded
    message: Istio reports ERROR IST0101 ReferencedResourceNotFound (https://istio.io/latest/docs/reference/config/analysis/ist0101/)
  inputPath: testdata/degraded_validationError.yaml
`),
		},
		fixtures: []edit{fixture("healthy_reconciled.yaml"), fixture("progressing_staleObservedGeneration.yaml"), fixture("degraded_validationError.yaml")},
		want: map[string]string{
			"docs/health.md": "| `" + group + "` | " + kind + " | istio | none | yes | yes |",
			"lua-health/" + group + "/" + kind + "/health.lua":          "Istio",
			"lua-health/" + group + "/" + kind + "/health.cel.yaml":     "current",
			"notifications/dist/argocd-notifications-cm.patch.yaml":     kind,
			"notifications/dist/flux-notifications.yaml":                kind,
			"examples/flux/notifications/routeguard-notifications.yaml": kind,
		},
	}, {
		heading: "## Add a notification trigger",
		hand: []edit{
			create("notifications/argocd/triggers/"+trigger+".yaml", `# The newcomer's trigger: an application whose health is Missing.
- description: The application's resources are missing
  when: app.status?.health?.status == 'Missing'
  oncePer: app.status?.sync?.revision
  send: [routeguard-newcomer-task]
`),
			create("notifications/argocd/templates/routeguard-newcomer-task.yaml", `# Source of the template routeguard-newcomer-task.
description: 'The resources of an application are missing.'
headline: ":grey_question: Missing:"
color: "#AAAAAA"
body: |
  {{- $body := "Resources are missing." -}}
`),
		},
		want: map[string]string{
			"docs/notifications.md":                                 "| `" + trigger + "` | The application's resources are missing | `app.status?.sync?.revision` | `routeguard-newcomer-task` |",
			"notifications/dist/argocd-notifications-cm.patch.yaml": "trigger." + trigger,
			"notifications/dist/argocd-helm-values.yaml":            "template.routeguard-newcomer-task",
		},
	}}
}

// counts reads the number of files each section of docs/contributing.md
// names in its heading ("## Add a report format (2 files)").
func counts(t *testing.T, page string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, m := range regexp.MustCompile(`(?m)^(## Add [^(\n]*?) \((\d+) files?\b[^)\n]*\)$`).FindAllStringSubmatch(page, -1) {
		n, _ := strconv.Atoi(m[2])
		out[m[1]] = n
	}
	return out
}

func TestNewcomerTasks(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(root, "docs", "contributing.md"))
	if err != nil {
		t.Fatal(err)
	}
	n := counts(t, string(page))
	ts := tasks(root)
	for _, tk := range ts {
		files := map[string]bool{}
		for _, e := range tk.hand {
			files[e.path] = true
		}
		want, ok := n[tk.heading]
		if !ok {
			t.Fatalf("docs/contributing.md has no section %q with a count of files (%v)", tk.heading, n)
		}
		if len(files) != want {
			t.Errorf("%s: docs/contributing.md says %d hand-edited files, the task takes %d: %v", tk.heading, want, len(files), keys(files))
		}
	}
	if len(n) != len(ts) {
		t.Errorf("docs/contributing.md counts files for %d tasks, this test does %d: %v", len(n), len(ts), n)
	}
	if t.Failed() {
		t.FailNow()
	}

	dir := copyTree(t, root)
	for _, tk := range ts {
		for _, e := range append(append([]edit(nil), tk.hand...), tk.fixtures...) {
			p := filepath.Join(dir, filepath.FromSlash(e.path))
			old, err := os.ReadFile(p)
			if err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			next, err := e.apply(string(old))
			if err != nil {
				t.Fatalf("%s: %s: %v", tk.heading, e.path, err)
			}
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(next), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}

	// What the sections say to run, then the tests they name.
	run(t, dir, "go", "generate", "./lua-health", "./internal/docgen")
	run(t, dir, "go", "test", "./notifications", "-run", "TestCommittedBundlesAreCurrent", "-update")
	run(t, dir, "go", "test", "./internal/docgen", "./internal/analysis", "./internal/analysis/registry",
		"./internal/analysis/ingress", "./internal/report", "./internal/routing", "./internal/health",
		"./lua-health/...", "./notifications")

	for _, tk := range ts {
		for file, text := range tk.want {
			got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(file)))
			if err != nil {
				t.Errorf("%s: %v", tk.heading, err)
			} else if !strings.Contains(string(got), text) {
				t.Errorf("%s: after the generators %s does not contain %q", tk.heading, file, text)
			}
		}
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// run runs a go command in dir, offline (the module cache holds what the
// tree needs), and fails with its output.
func run(t *testing.T, dir string, name string, args ...string) {
	t.Helper()
	start := time.Now()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=")
	out, err := cmd.CombinedOutput()
	t.Logf("%s %s: %s", name, strings.Join(args, " "), time.Since(start).Round(time.Second))
	if err != nil {
		t.Fatalf("%s %s in the copy with the newcomer's files: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// copyTree copies the checkout (without .git and build output) to a
// directory named after it, the same on every run: the go command's build
// cache keys packages by their directory, so a fixed place lets it reuse
// what did not change. A lock keeps two runs from sharing it at once.
func copyTree(t *testing.T, root string) string {
	t.Helper()
	sum := sha256.Sum256([]byte(root))
	dir := filepath.Join(os.TempDir(), "routeguard-newcomer-"+hex.EncodeToString(sum[:6]))
	lock, err := os.OpenFile(dir+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		os.RemoveAll(dir)
		lock.Close()
	})
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	skip := map[string]bool{".git": true, "bin": true, "dist": true, ".bench": true, ".tools": true, "internal/warm": true}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if skip[filepath.ToSlash(rel)] {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		target := filepath.Join(dir, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			l, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(l, target)
		case d.Type().IsRegular() && !strings.HasSuffix(p, ".test"):
			return copyFile(p, target)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	info, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, info.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
