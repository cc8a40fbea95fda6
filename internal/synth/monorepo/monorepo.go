// Package monorepo generates an Argo CD monorepo for the affected-only and
// sharded reviews' tests and benchmarks: an app-of-apps root Application
// over one Application manifest per app, a third of the apps Helm
// (one shared chart in Git, a values file per app outside it), a third
// Kustomize overlays over ten shared bases (so a base is shared by a tenth
// of the Kustomize apps) and a shared component, a third plain
// directories; every app routes through one shared Gateway (an HTTPRoute
// with a weighted split). Edits change one part at random, as pull
// requests do. Everything is a pure function of the options and the
// random source.
package monorepo

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// RepoURL is the repoURL of every Application.
const RepoURL = "https://git.example.com/platform/monorepo.git"

// Bases is the number of shared Kustomize bases.
const Bases = 10

// Repo is the generated tree, slash path -> content.
type Repo map[string]string

// App is one generated app's name and kind ("helm", "kustomize",
// "directory").
func kindOf(i int) string { return [...]string{"helm", "kustomize", "directory"}[i%3] }

// Name is the name of the i-th app.
func Name(i int) string { return fmt.Sprintf("app-%04d", i) }

// New generates n apps.
func New(n int) Repo {
	r := Repo{
		"README.md":                          "# monorepo\n",
		"argocd/root.yaml":                   application("root", "argocd/apps", "argocd", "", ""),
		"platform/gateway.yaml":              gateway("*.example.com"),
		"argocd/apps/platform.yaml":          application("platform", "platform", "edge", "", ""),
		"charts/web/Chart.yaml":              "apiVersion: v2\nname: web\nversion: 1.0.0\n",
		"charts/web/values.yaml":             "weight: 90\nhost: web.example.com\nport: 80\n",
		"charts/web/templates/route.yaml":    route("{{ .Release.Name }}", "{{ .Values.host }}", "{{ .Values.weight }}", "{{ .Values.port }}"),
		"charts/web/templates/services.yaml": services("{{ .Release.Name }}", "{{ .Values.port }}"),
		"components/team/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nlabels:\n  - pairs: {team: platform}\n    includeSelectors: false\n",
	}
	for b := range Bases {
		p := fmt.Sprintf("bases/base-%d/", b)
		r[p+"kustomization.yaml"] = "resources: [services.yaml]\n"
		r[p+"services.yaml"] = services("web", "80")
	}
	for i := range n {
		r.Add(i)
	}
	return r
}

// Add adds the i-th app.
func (r Repo) Add(i int) {
	name := Name(i)
	host := name + ".example.com"
	switch kindOf(i) {
	case "helm":
		r["argocd/apps/"+name+".yaml"] = application(name, "charts/web", name, "../../values/"+name+".yaml", "")
		r["values/"+name+".yaml"] = fmt.Sprintf("host: %s\nweight: 90\n", host)
	case "kustomize":
		watch := ""
		if i%6 == 1 { // half of them declare what they read
			watch = fmt.Sprintf(".;/bases/base-%d;/components/team", i%Bases)
		}
		r["argocd/apps/"+name+".yaml"] = application(name, "apps/"+name, name, "", watch)
		r["apps/"+name+"/kustomization.yaml"] = fmt.Sprintf("resources: [../../bases/base-%d, route.yaml]\ncomponents: [../../components/team]\n", i%Bases)
		r["apps/"+name+"/route.yaml"] = route("web", host, "90", "80")
	default:
		r["argocd/apps/"+name+".yaml"] = application(name, "apps/"+name, name, "", "")
		r["apps/"+name+"/route.yaml"] = route(name, host, "90", "80")
		r["apps/"+name+"/services.yaml"] = services(name, "80")
	}
}

// Remove removes the i-th app (its Application and its own files).
func (r Repo) Remove(i int) {
	name := Name(i)
	for p := range r {
		if p == "argocd/apps/"+name+".yaml" || p == "values/"+name+".yaml" || strings.HasPrefix(p, "apps/"+name+"/") {
			delete(r, p)
		}
	}
}

// Apps lists the indexes of the apps in r.
func (r Repo) Apps() []int {
	var out []int
	for p := range r {
		var i int
		if n, _ := fmt.Sscanf(p, "argocd/apps/app-%04d.yaml", &i); n == 1 {
			out = append(out, i)
		}
	}
	slices.Sort(out)
	return out
}

// Edit makes one random change and says what it was.
func (r Repo) Edit(rng *rand.Rand, next *int) string {
	apps := r.Apps()
	pick := func() int { return apps[rng.IntN(len(apps))] }
	w := fmt.Sprint(10 + rng.IntN(80))
	switch op := rng.IntN(10); {
	case op == 0 || len(apps) < 3:
		r.Add(*next)
		*next++
		return "add " + Name(*next-1)
	case op == 1:
		i := pick()
		r.Remove(i)
		return "remove " + Name(i)
	case op == 2:
		b := rng.IntN(Bases)
		r[fmt.Sprintf("bases/base-%d/services.yaml", b)] = services("web", fmt.Sprint(80+rng.IntN(3)))
		return fmt.Sprintf("base-%d ports", b)
	case op == 3:
		r["charts/web/templates/route.yaml"] = route("{{ .Release.Name }}", "{{ .Values.host }}", "{{ .Values.weight }}", "{{ .Values.port }}") + "# " + w + "\n"
		return "chart template"
	case op == 4:
		r["platform/gateway.yaml"] = gateway([]string{"*.example.com", "*.example.org"}[rng.IntN(2)])
		return "gateway listener"
	case op == 5:
		r["README.md"] += "more\n"
		return "readme"
	case op == 6:
		r["components/team/kustomization.yaml"] = "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nlabels:\n  - pairs: {team: t" + w + "}\n    includeSelectors: false\n"
		return "component"
	case op == 7:
		i := pick()
		p := "argocd/apps/" + Name(i) + ".yaml"
		r[p] = strings.Replace(r[p], "namespace: "+Name(i)+"\n", "namespace: moved-"+w+"\n", 1)
		return "destination of " + Name(i)
	default:
		i := pick()
		name := Name(i)
		switch kindOf(i) {
		case "helm":
			r["values/"+name+".yaml"] = fmt.Sprintf("host: %s.example.com\nweight: %s\n", name, w)
		case "kustomize":
			r["apps/"+name+"/route.yaml"] = route("web", name+".example.com", w, "80")
		default:
			r["apps/"+name+"/route.yaml"] = route(name, name+".example.com", w, "80")
		}
		return "weights of " + name
	}
}

// Write writes r under dir, removing the files of dir's apps tree that r
// no longer has (dir may hold a .git directory, left alone).
func (r Repo) Write(dir string) error {
	for _, top := range []string{"argocd", "apps", "values", "bases", "charts", "components", "platform"} {
		if err := os.RemoveAll(filepath.Join(dir, top)); err != nil {
			return err
		}
	}
	for p, c := range r {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func application(name, path, ns, values, watch string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: %s\n  namespace: argocd\n", name)
	if watch != "" {
		fmt.Fprintf(&b, "  annotations:\n    argocd.argoproj.io/manifest-generate-paths: %q\n", watch)
	}
	fmt.Fprintf(&b, "spec:\n  project: default\n  source:\n    repoURL: %s\n    targetRevision: main\n    path: %s\n", RepoURL, path)
	if values != "" {
		fmt.Fprintf(&b, "    helm:\n      valueFiles: [%s]\n", values)
	}
	if path == "argocd/apps" {
		b.WriteString("    directory: {recurse: false}\n")
	}
	fmt.Fprintf(&b, "  destination:\n    server: https://kubernetes.default.svc\n    namespace: %s\n", ns)
	return b.String()
}

func gateway(host string) string {
	return `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: public, namespace: edge}
spec:
  gatewayClassName: envoy
  listeners:
    - {name: http, protocol: HTTP, port: 80, hostname: "` + host + `", allowedRoutes: {namespaces: {from: All}}}
`
}

func route(name, host, weight, port string) string {
	return `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: ` + name + `}
spec:
  parentRefs: [{name: public, namespace: edge}]
  hostnames: ["` + host + `"]
  rules:
    - backendRefs:
        - {name: ` + name + `-blue, port: ` + port + `, weight: ` + weight + `}
        - {name: ` + name + `-green, port: ` + port + `, weight: 10}
`
}

func services(name, port string) string {
	var b strings.Builder
	for _, slot := range []string{"blue", "green"} {
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: Service\nmetadata: {name: %s-%s}\nspec: {selector: {app: %s, slot: %s}, ports: [{port: %s}]}\n", name, slot, name, slot, port)
	}
	return b.String()
}
