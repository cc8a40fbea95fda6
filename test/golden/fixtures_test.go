package golden

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/routeguard/routeguard/internal/synth"
)

// fixtures are the inputs built once per run under one temporary
// directory: the benchmark inputs and the git repositories of the diff
// commands.
type fixtures struct {
	dir string
	// hashes are the commits of the git repositories, by placeholder.
	hashes map[string]string
}

// Sizes of the benchmark inputs: large enough to go through every stage
// the benchmarks measure, small enough that the whole test stays well
// under 30 s on a loaded machine.
const (
	synthObjects  = 1000
	fluxTreeApps  = 20
	fluxTreeHelm  = 10
	benchDiffApps = 20
)

func buildFixtures() (*fixtures, error) {
	dir, err := os.MkdirTemp("", "routeguard-golden-")
	if err != nil {
		return nil, err
	}
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		return nil, err
	}
	f := &fixtures{dir: dir, hashes: map[string]string{}}
	for _, step := range []func() error{f.synth, f.fluxTree, f.examplesRepo, f.benchDiffRepo, f.clusterViewRepo, f.streams} {
		if err := step(); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	return f, nil
}

// synth is the repository of scripts/bench-analyze.sh (internal/synth).
func (f *fixtures) synth() error {
	opts := synth.Options{Dangling: 5, Workloads: true, Seed: 1}
	opts.Services = synth.ForObjects(synthObjects, opts)
	repo, err := synth.Generate(opts)
	if err != nil {
		return err
	}
	return repo.Write(filepath.Join(f.dir, "synth"))
}

// fluxTree is the repository of scripts/bench-flux-tree.sh, smaller.
func (f *fixtures) fluxTree() error {
	out := filepath.Join(f.dir, "flux-tree")
	cmd := exec.Command("bash", filepath.Join(repoRoot, "scripts", "gen-flux-tree.sh"), out,
		fmt.Sprint(fluxTreeApps), fmt.Sprint(fluxTreeHelm))
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("gen-flux-tree.sh: %v\n%s", err, b)
	}
	return os.Mkdir(filepath.Join(out, ".git"), 0o755)
}

// examplesRepo is a git repository holding examples/ at two commits
// (branches base and head) for diff, flux diff and argocd diff, plus an
// uncommitted change in the work tree.
func (f *fixtures) examplesRepo() error {
	dir := filepath.Join(f.dir, "examples-repo")
	if err := copyTree(filepath.Join(repoRoot, "examples"), filepath.Join(dir, "examples")); err != nil {
		return err
	}
	head := []edit{
		{"examples/apps/routing/gateways/httproute-frontend.yaml", "            value: /\n", "            value: /shop\n"},
		{"examples/flux/apps/reviews-gateway/httproute.yaml", "          weight: 100\n        - name: reviews-green\n          port: 9080\n          weight: 0\n",
			"          weight: 50\n        - name: reviews-green\n          port: 9080\n          weight: 50\n"},
		{"examples/apps/routing/gateways/httproute-new.yaml", "", `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: new
  namespace: shop-prod
spec:
  parentRefs:
    - name: shop
      namespace: gateway-infra
      sectionName: https
  hostnames:
    - new.shop.example.com
  rules:
    - backendRefs:
        - name: nosuch
          port: 80
`},
	}
	work := []edit{{"examples/apps/routing/gateways/httproute-frontend.yaml", "            value: /shop\n", "            value: /store\n"}}
	return f.gitRepo(dir, "EXAMPLES", head, work)
}

// benchDiffRepo is the repository of scripts/bench-diff.sh (plain YAML
// apps behind one Gateway; one app's weights change), smaller.
func (f *fixtures) benchDiffRepo() error {
	dir := filepath.Join(f.dir, "bench-diff")
	files := map[string]string{"platform/gateway.yaml": `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: public, namespace: edge}
spec:
  gatewayClassName: envoy
  listeners: [{name: https, protocol: HTTPS, port: 443, hostname: "*.example.com", allowedRoutes: {namespaces: {from: All}}, tls: {certificateRefs: [{name: wildcard}]}}]
`}
	for i := 1; i <= benchDiffApps; i++ {
		a := fmt.Sprintf("app%02d", i)
		files["apps/"+a+"/app.yaml"] = strings.NewReplacer("APP", a).Replace(`apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: APP, namespace: APP}
spec:
  parentRefs: [{name: public, namespace: edge}]
  hostnames: [APP.example.com]
  rules:
  - backendRefs:
    - {name: APP-blue, port: 80, weight: 90}
    - {name: APP-green, port: 80, weight: 10}
---
apiVersion: v1
kind: Service
metadata: {name: APP-blue, namespace: APP}
spec: {selector: {app: APP, slot: blue}, ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: APP-green, namespace: APP}
spec: {selector: {app: APP, slot: green}, ports: [{port: 80}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: APP, namespace: APP}
spec:
  replicas: 2
  selector: {matchLabels: {app: APP}}
  template:
    metadata: {labels: {app: APP}}
    spec: {containers: [{name: app, image: "nginx:1.27"}]}
`)
	}
	for name, content := range files {
		if err := writeFile(filepath.Join(dir, name), content); err != nil {
			return err
		}
	}
	head := []edit{{"apps/app01/app.yaml", "weight: 90}\n    - {name: app01-green, port: 80, weight: 10}", "weight: 50}\n    - {name: app01-green, port: 80, weight: 50}"}}
	return f.gitRepo(dir, "BENCH", head, nil)
}

// edit replaces old by new in a file of a fixture repository (old "":
// the file is new).
type edit struct{ file, old, new string }

func (e edit) apply(dir string) error {
	p := filepath.Join(dir, filepath.FromSlash(e.file))
	if e.old == "" {
		return writeFile(p, e.new)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	if !strings.Contains(string(b), e.old) {
		return fmt.Errorf("%s: %q not found: update the golden fixture's edit", e.file, e.old)
	}
	return os.WriteFile(p, []byte(strings.Replace(string(b), e.old, e.new, 1)), 0o644)
}

// gitRepo commits dir as it is on branch base, applies head and commits it
// on branch head (checked out), then applies work without committing. The
// commits' hashes become placeholders $<name>_BASE and $<name>_HEAD.
func (f *fixtures) gitRepo(dir, name string, head, work []edit) error {
	r, err := git.PlainInit(dir, false)
	if err != nil {
		return err
	}
	wt, err := r.Worktree()
	if err != nil {
		return err
	}
	sig := &object.Signature{Name: "golden", Email: "golden@example.com", When: time.Unix(1700000000, 0).UTC()}
	commit := func(msg, branch string) error {
		if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
			return err
		}
		h, err := wt.Commit(msg, &git.CommitOptions{Author: sig, Committer: sig})
		if err != nil {
			return err
		}
		f.hashes["$"+name+"_"+strings.ToUpper(branch)] = h.String()
		return r.Storer.SetReference(plumbing.NewHashReference(plumbing.NewBranchReferenceName(branch), h))
	}
	if err := commit("base", "base"); err != nil {
		return err
	}
	for _, e := range head {
		if err := e.apply(dir); err != nil {
			return err
		}
	}
	if err := commit("head", "head"); err != nil {
		return err
	}
	for _, e := range work {
		if err := e.apply(dir); err != nil {
			return err
		}
	}
	return nil
}

func copyTree(from, to string) error {
	return filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
}

func writeFile(p, content string) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(content), 0o644)
}

// clusterViewRepo is examples/ with a root .routeguard.yaml that declares
// argocdClusterView (cmp generate builds the other Applications).
func (f *fixtures) clusterViewRepo() error {
	dir := filepath.Join(f.dir, "cluster-view")
	if err := copyTree(filepath.Join(repoRoot, "examples"), filepath.Join(dir, "examples")); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, ".routeguard.yaml"), "argocdClusterView:\n  roots: [examples/argocd]\n"); err != nil {
		return err
	}
	return os.Mkdir(filepath.Join(dir, ".git"), 0o755)
}

// streams are manifest streams for the commands that read standard input
// (postrender, analyze -, health check -): the YAML files of a directory
// joined with ---.
func (f *fixtures) streams() error {
	for name, from := range map[string]string{
		"gateways":    "examples/apps/routing/gateways",
		"status-page": "examples/flux/apps/status-page",
		"reviews":     "examples/flux/apps/reviews-gateway",
		"dangling":    "examples/broken/dangling-service",
		"istio":       "examples/apps/routing/istio",
	} {
		files, err := filepath.Glob(filepath.Join(repoRoot, from, "*.yaml"))
		if err != nil {
			return err
		}
		var b strings.Builder
		for _, p := range files {
			if filepath.Base(p) == "kustomization.yaml" {
				continue
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			b.WriteString("---\n")
			b.Write(data)
		}
		if err := writeFile(filepath.Join(f.dir, "stdin", name+".yaml"), b.String()); err != nil {
			return err
		}
	}
	return nil
}
