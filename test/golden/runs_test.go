package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// allRuns lists every command line the golden files record: each command
// with its formats and its main flags on the bundled examples, the corpus
// and the benchmark inputs, and the usage and input errors each command
// checks itself.
func allRuns() []run {
	var runs []run
	runs = append(runs, helpRuns()...)
	runs = append(runs, appRuns()...)
	runs = append(runs, analyzeRuns()...)
	runs = append(runs, fluxRuns()...)
	runs = append(runs, argocdRuns()...)
	runs = append(runs, diffRuns()...)
	runs = append(runs, cmpRuns()...)
	runs = append(runs, postrenderRuns()...)
	runs = append(runs, healthRuns()...)
	runs = append(runs, notificationsRuns()...)
	return runs
}

func r(name string, args ...string) run { return run{name: name, args: args} }

// commands are every command path of the tree.
var commands = []string{
	"", "analyze", "argocd", "argocd analyze", "argocd build", "argocd diff", "cmp", "cmp discover",
	"cmp generate", "cmp parameters", "codes", "diff", "flux", "flux build", "flux diff", "health",
	"health bundle", "health check", "map", "notifications", "notifications bundle", "postrender",
	"render", "version",
}

func helpRuns() []run {
	var runs []run
	for _, c := range commands {
		name := "help/" + strings.ReplaceAll(c, " ", "-")
		if c == "" {
			name = "help/root"
		}
		runs = append(runs, r(name, append(strings.Fields(c), "--help")...))
	}
	return append(runs,
		r("usage/no-command"),
		r("usage/group-alone", "flux"),
		r("usage/unknown-command", "bogus"),
		r("usage/unknown-subcommand", "cmp", "bogus"),
		r("usage/unknown-flag", "analyze", "--bogus"),
		r("usage/too-many-args", "render", "a", "b"),
		r("usage/no-args-allowed", "cmp", "generate", "extra"),
		r("usage/negative-timeout", "version", "--timeout", "-1s"),
		r("usage/negative-memory", "version", "--max-memory", "-1"),
		r("version/command", "version"),
		r("version/flag", "--version"),
		r("codes/text", "codes"),
		r("codes/json", "codes", "-o", "json"),
		r("codes/bad-format", "codes", "-o", "bogus"),
	)
}

// apps are the app directories rendered, analyzed and mapped, with the
// flags their reconciler implies.
func apps() [][]string {
	list := [][]string{
		{"examples/apps/frontend/overlays/prod"},
		{"examples/apps/frontend/overlays/stage"},
		{"examples/apps/frontend/overlays/dev"},
		{"examples/apps/backend", "--namespace", "shop-prod", "-f", "values-prod.yaml"},
		{"examples/apps/reviews"},
		{"examples/apps/edge"},
		{"examples/apps/routing/gateways"},
		{"examples/apps/routing/istio"},
		{"examples/apps/routing/ingresses"},
		{"examples/teams/storefront"},
		{"examples/teams/payments"},
		{"examples/flux/apps/status-page"},
		{"examples/flux/apps/reviews-gateway"},
		{"test/analyze/testdata/old-ingress"},
		{"test/analyze/testdata/repeated-object"},
	}
	for _, dir := range glob("examples/broken/*/") {
		list = append(list, []string{dir})
	}
	for _, dir := range glob("test/corpus/*/") {
		app := []string{dir}
		if b, err := os.ReadFile(filepath.Join(repoRoot, dir, "ARGS")); err == nil {
			app = append(strings.Fields(string(b)), dir)
		}
		list = append(list, app)
	}
	return list
}

// glob lists the directories matching pattern under the checkout, relative.
func glob(pattern string) []string {
	matches, _ := filepath.Glob(filepath.Join(repoRoot, pattern))
	var out []string
	for _, m := range matches {
		if fi, err := os.Stat(m); err == nil && fi.IsDir() {
			rel, _ := filepath.Rel(repoRoot, m)
			out = append(out, filepath.ToSlash(rel))
		}
	}
	sort.Strings(out)
	return out
}

func appRuns() []run {
	var runs []run
	for _, app := range apps() {
		dir := app[len(app)-1]
		slug := strings.ReplaceAll(dir, "/", "-")
		for _, cmd := range []string{"render", "analyze", "map"} {
			runs = append(runs, r(cmd+"/"+slug, append([]string{cmd}, app...)...))
		}
	}
	return runs
}

func analyzeRuns() []run {
	var runs []run
	for _, format := range []string{"json", "sarif", "junit", "gitlab"} {
		for _, app := range []string{"examples/broken/dangling-service", "examples/apps/routing/istio", "examples/broken/route-schema"} {
			runs = append(runs, r("analyze-format/"+format+"-"+filepath.Base(app), "analyze", "-o", format, app))
		}
	}
	for _, format := range []string{"json", "mermaid", "svg"} {
		runs = append(runs, r("map-format/"+format+"-gateways", "map", "-o", format, "examples/apps/routing/gateways"))
	}
	stdin := func(name, file string, args ...string) run {
		x := r(name, args...)
		x.stdin = file
		return x
	}
	return append(runs,
		r("render-format/json-reviews", "render", "-o", "json", "examples/apps/reviews"),
		r("render-format/bad", "render", "-o", "toml", "examples/apps/reviews"),
		r("render-flags/helm-set", "render", "examples/apps/backend", "--release", "shop", "-n", "shop-dev", "-f", "values-dev.yaml",
			"--set", "replicaCount=3", "--set-string", "image.tag=1.2.3", "--kube-version", "1.30.0", "--api-versions", "monitoring.coreos.com/v1"),
		r("render-flags/recurse-include", "render", "examples/broken", "--recurse", "--include", "*/app.yaml", "--exclude", "route-*/*"),
		r("render-flags/recurse-include-one", "render", "examples/apps", "--recurse", "--include", "routing/*/*.yaml", "--exclude", "routing/istio/*"),
		r("render-flags/max-file-size", "render", "--max-file-size", "0", "examples/apps/reviews"),
		r("render-flags/missing", "render", "examples/nosuch"),
		r("render/synth", "render", "$FIXTURES/synth"),
		r("analyze/synth", "analyze", "$FIXTURES/synth"),
		r("analyze/synth-json", "analyze", "-o", "json", "$FIXTURES/synth"),
		r("map/synth", "map", "$FIXTURES/synth"),
		r("analyze/several", "analyze", "examples/broken/dangling-service", "examples/broken/missing-listener", "examples/apps/reviews"),
		r("analyze/fail-on-warning", "analyze", "--fail-on", "warning", "test/analyze/testdata/repeated-object"),
		r("analyze/fail-on-never", "analyze", "--fail-on", "never", "examples/broken/dangling-service"),
		r("analyze/kube-version", "analyze", "--kube-version", "1.18.0", "test/analyze/testdata/old-ingress"),
		r("analyze/crd-dir", "analyze", "--crd-dir", "test/analyze/testdata/cluster-crds", "--gateway-api-channel", "standard", "examples/apps/routing/gateways"),
		r("analyze/config", "analyze", "--config", "examples/apps/routing/istio/.routeguard.yaml", "examples/apps/routing/gateways"),
		r("analyze/bad-config", "analyze", "--config", "examples/nosuch.yaml", "examples/apps/reviews"),
		r("analyze/bad-channel", "analyze", "--gateway-api-channel", "nightly", "examples/apps/reviews"),
		r("analyze/bad-plugins", "analyze", "--plugins", "examples/nosuch.yaml", "examples/apps/reviews"),
		r("analyze/bad-format", "analyze", "-o", "toml", "examples/apps/reviews"),
		r("analyze/stdin-and-path", "analyze", "-", "examples/apps/reviews"),
		r("analyze/missing", "analyze", "examples/nosuch"),
		stdin("analyze/stdin", "$FIXTURES/stdin/dangling.yaml", "analyze", "-"),
		stdin("analyze/stdin-istio-json", "$FIXTURES/stdin/istio.yaml", "analyze", "-o", "json", "-"),
	)
}

func fluxRuns() []run {
	prod, home := "examples/flux/clusters/prod", "examples/flux/clusters/home"
	tree := []string{"--repo-root", "$FIXTURES/flux-tree", "$FIXTURES/flux-tree/clusters/bench"}
	return []run{
		r("flux/build-prod", "flux", "build", "--all", prod),
		r("flux/build-prod-json", "flux", "build", "--all", "-o", "json", prod),
		r("flux/build-prod-report-text", "flux", "build", "--all", "--report", "text", prod),
		r("flux/build-prod-report-json", "flux", "build", "--all", "--report", "json", prod),
		r("flux/build-prod-report-sarif", "flux", "build", "--all", "--report", "sarif", prod),
		r("flux/build-prod-no-analysis", "flux", "build", "--all", "--analyze=false", prod),
		r("flux/build-prod-name", "flux", "build", "--name", "frontend", "--report", "text", prod),
		r("flux/build-prod-name-ns", "flux", "build", "--name", "reviews", "-n", "flux-system", prod),
		r("flux/build-prod-name-missing", "flux", "build", "--name", "nosuch", prod),
		r("flux/build-prod-file", "flux", "build", "--report", "text", prod+"/apps.yaml"),
		r("flux/build-home", "flux", "build", "--all", home),
		r("flux/build-home-no-analysis", "flux", "build", "--all", "--analyze=false", home),
		r("flux/build-home-vars", "flux", "build", "--all", "--report", "text", "--var", "SECRET_DOMAIN=home.example.com",
			"--vars-file", prod+"/cluster-vars.yaml", home),
		r("flux/build-home-source", "flux", "build", "--all", "--report", "text", "--source", "GitRepository/flux-system/gateway-api=examples/flux/home/crds", home),
		r("flux/build-home-not-strict", "flux", "build", "--all", "--report", "text", "--strict=false", home),
		r("flux/build-home-fail-on-never", "flux", "build", "--all", "--report", "text", "--fail-on", "never", home),
		r("flux/build-tree", append([]string{"flux", "build", "--all"}, tree...)...),
		r("flux/build-tree-report", append([]string{"flux", "build", "--all", "--report", "text"}, tree...)...),
		r("flux/build-tree-no-analysis", append([]string{"flux", "build", "--all", "--analyze=false"}, tree...)...),
		r("flux/error-dir-without-all", "flux", "build", prod),
		r("flux/error-all-and-name", "flux", "build", "--all", "--name", "x", prod),
		r("flux/error-report-no-analysis", "flux", "build", "--all", "--report", "text", "--analyze=false", prod),
		r("flux/error-bad-output", "flux", "build", "--all", "-o", "toml", prod),
		r("flux/error-bad-report", "flux", "build", "--all", "--report", "toml", prod),
		r("flux/error-missing", "flux", "build", "--all", "examples/flux/clusters/nosuch"),
		r("flux/error-bad-var", "flux", "build", "--all", "--var", "novalue", prod),
		r("flux/error-bad-source", "flux", "build", "--all", "--source", "nonsense", prod),
	}
}

func argocdRuns() []run {
	runs := []run{
		r("argocd/build", "argocd", "build", "examples/argocd"),
		r("argocd/build-json", "argocd", "build", "-o", "json", "examples/argocd"),
		r("argocd/build-root-app", "argocd", "build", "examples/argocd/root-app.yaml"),
		r("argocd/analyze", "argocd", "analyze", "examples/argocd"),
		r("argocd/analyze-json", "argocd", "analyze", "-o", "json", "examples/argocd"),
		r("argocd/analyze-fail-on-warning", "argocd", "analyze", "--fail-on", "warning", "examples/argocd"),
		r("argocd/analyze-clusters", "argocd", "analyze", "--cluster", "prod=https://prod.example.com:6443,env=prod,annotation:team=shop",
			"--repo-url", "https://git.example.com/platform/shop-gitops.git", "examples/argocd"),
		r("argocd/analyze-corpus", "argocd", "analyze", "test/corpus/argocd-app-of-apps"),
		r("argocd/build-corpus", "argocd", "build", "test/corpus/argocd-app-of-apps"),
		r("argocd/analyze-whole-repo", "argocd", "analyze", "examples"),
		r("argocd/error-bad-output", "argocd", "build", "-o", "toml", "examples/argocd"),
		r("argocd/error-bad-cluster", "argocd", "build", "--cluster", "nameonly", "examples/argocd"),
		r("argocd/error-bad-max-file-size", "argocd", "analyze", "--max-file-size", "0", "examples/argocd"),
		r("argocd/error-missing", "argocd", "analyze", "examples/nosuch"),
		r("argocd/error-bad-format", "argocd", "analyze", "-o", "toml", "examples/argocd"),
		r("argocd/analyze-project-file", "argocd", "analyze", "--project-file", "examples/broken/argocd-project-source/project.yaml",
			"--now", "2026-01-02T15:04:05Z", "examples/argocd"),
		r("argocd/build-project-file", "argocd", "build", "--project-file", "examples/broken/argocd-project-destination/project.yaml", "examples/argocd"),
		r("argocd/error-bad-now", "argocd", "analyze", "--now", "tomorrow", "examples/argocd"),
		r("argocd/error-project-file", "argocd", "analyze", "--project-file", "examples/argocd/root-app.yaml", "examples/argocd"),
	}
	for _, dir := range glob("examples/broken/argocd-project-*/") {
		runs = append(runs,
			r("argocd-project/analyze-"+filepath.Base(dir), "argocd", "analyze", "--now", "2026-01-02T15:04:05Z", dir),
			r("argocd-project/build-"+filepath.Base(dir), "argocd", "build", dir))
	}
	return runs
}

func diffRuns() []run {
	in := func(dir string, x run) run { x.dir = dir; return x }
	ex, bench := "$FIXTURES/examples-repo", "$FIXTURES/bench-diff"
	revs := []string{"--base", "base", "--head", "head"}
	d := func(name string, args ...string) run { return in(ex, r(name, args...)) }
	benchPaths := []string{"diff", "--base", "base", "--head", "head", "platform"}
	for i := 1; i <= benchDiffApps; i++ {
		benchPaths = append(benchPaths, fmt.Sprintf("apps/app%02d", i))
	}
	return []run{
		d("diff/gateways", append(append([]string{"diff"}, revs...), "examples/apps/routing/gateways")...),
		d("diff/gateways-markdown", append(append([]string{"diff", "-o", "markdown"}, revs...), "examples/apps/routing/gateways")...),
		d("diff/gateways-json", append(append([]string{"diff", "-o", "json"}, revs...), "examples/apps/routing/gateways")...),
		d("diff/gateways-fail-on-new", append(append([]string{"diff", "--fail-on-new", "error"}, revs...), "examples/apps/routing/gateways")...),
		d("diff/gateways-fail-on-new-never", append(append([]string{"diff", "--fail-on-new", "never"}, revs...), "examples/apps/routing/gateways")...),
		d("diff/work-tree", "diff", "--base", "head", "examples/apps/routing/gateways"),
		d("diff/unchanged", append(append([]string{"diff"}, revs...), "examples/apps/reviews", "examples/apps/routing/istio")...),
		d("diff/several", append(append([]string{"diff"}, revs...), "examples/apps/routing/gateways", "examples/flux/apps/reviews-gateway", "examples/apps/reviews")...),
		d("diff/error-stdin", "diff", "--base", "base", "-"),
		d("diff/error-format", "diff", "-o", "toml", "--base", "base", "examples/apps/reviews"),
		d("diff/error-revision", "diff", "--base", "nosuch", "examples/apps/reviews"),
		d("flux-diff/prod", append(append([]string{"flux", "diff"}, revs...), "examples/flux/clusters/prod")...),
		d("flux-diff/prod-markdown", append(append([]string{"flux", "diff", "-o", "markdown"}, revs...), "examples/flux/clusters/prod")...),
		d("flux-diff/prod-json", append(append([]string{"flux", "diff", "-o", "json"}, revs...), "examples/flux/clusters/prod")...),
		d("flux-diff/home", append(append([]string{"flux", "diff"}, revs...), "examples/flux/clusters/home")...),
		d("argocd-diff/examples", append(append([]string{"argocd", "diff"}, revs...), "examples/argocd")...),
		d("argocd-diff/examples-json", append(append([]string{"argocd", "diff", "-o", "json"}, revs...), "examples/argocd")...),
		d("argocd-diff/examples-fail-on-new", append(append([]string{"argocd", "diff", "--fail-on-new", "warning"}, revs...), "examples/argocd")...),
		d("argocd-diff/examples-fail-on-shared", append(append([]string{"argocd", "diff", "--fail-on-new", "never", "--fail-on-shared-change", "--now", "2026-01-02T15:04:05Z"}, revs...), "examples/argocd")...),
		d("diff/codeowners-gitlab", append(append([]string{"diff", "--codeowners", "gitlab", "-o", "markdown"}, revs...), "examples/apps/routing/gateways")...),
		d("diff/error-codeowners", "diff", "--codeowners", "bitbucket", "--base", "base", "examples/apps/reviews"),
		in(bench, r("diff/bench", benchPaths...)),
		in(bench, r("diff/bench-markdown", append([]string{"diff", "-o", "markdown"}, benchPaths[1:]...)...)),
	}
}

func cmpRuns() []run {
	cmpIn := func(name, dir string, env []string, args ...string) run {
		x := r(name, args...)
		x.dir, x.env = "$REPO/"+dir, append([]string{"ARGOCD_APP_SOURCE_PATH=" + dir}, env...)
		return x
	}
	app := func(name, ns string) []string {
		return []string{"ARGOCD_APP_NAME=" + name, "ARGOCD_APP_NAMESPACE=" + ns, "ARGOCD_APP_REVISION=0123456789abcdef",
			"ARGOCD_APP_SOURCE_REPO_URL=https://git.example.com/platform/shop-gitops.git", "ARGOCD_APP_SOURCE_TARGET_REVISION=main",
			"KUBE_VERSION=1.31.0", "KUBE_API_VERSIONS=v1,apps/v1,gateway.networking.k8s.io/v1"}
	}
	gen := []string{"cmp", "generate"}
	params := func(json string) string { return "ARGOCD_APP_PARAMETERS=" + json }
	view := cmpIn("cmp/generate-cluster-view", "examples/apps/frontend/overlays/prod", app("frontend-prod", "shop-prod"), gen...)
	view.dir = "$FIXTURES/cluster-view/examples/apps/frontend/overlays/prod"
	viewAlone := cmpIn("cmp/generate-cluster-view-unknown-app", "examples/apps/frontend/overlays/prod", app("nosuch", "shop-prod"), gen...)
	viewAlone.dir = view.dir
	viewProject := cmpIn("cmp/generate-cluster-view-project", "examples/apps/frontend/overlays/prod", append(app("frontend-prod", "shop-prod"),
		"ARGOCD_APP_PROJECT_NAME=shop", "ROUTEGUARD_PROJECT_FILE=$REPO/examples/broken/argocd-project-destination/project.yaml"), gen...)
	viewProject.dir = view.dir
	return []run{
		cmpIn("cmp/generate-frontend", "examples/apps/frontend/overlays/prod", app("frontend-prod", "shop-prod"), gen...),
		cmpIn("cmp/generate-gateways", "examples/apps/routing/gateways", app("routing-gateways", "gateway-infra"), gen...),
		cmpIn("cmp/generate-istio", "examples/apps/routing/istio", app("routing-istio", "shop-prod"), gen...),
		cmpIn("cmp/generate-broken", "examples/broken/missing-listener", app("broken", "shop"), gen...),
		cmpIn("cmp/generate-broken-fail-on-never", "examples/broken/missing-listener", append(app("broken", "shop"), "ARGOCD_ENV_FAIL_ON=never"), gen...),
		cmpIn("cmp/generate-backend-params", "examples/apps/backend", append(app("backend-prod", "shop-prod"),
			params(`[{"name":"values-files","array":["values-prod.yaml"]},{"name":"release-name","string":"shop"},{"name":"helm-parameters","map":{"replicaCount":"2"}}]`)), gen...),
		cmpIn("cmp/generate-report-configmap", "examples/broken/dangling-service", append(app("broken", "shop"),
			params(`[{"name":"report","string":"configmap"},{"name":"fail-on","string":"never"}]`)), gen...),
		cmpIn("cmp/generate-variables", "examples/flux/apps/status-page", append(app("status-page", "status"),
			params(`[{"name":"substitution-variables","map":{"environment":"prod","cluster_name":"prod-1","cluster_domain":"example.com"}}]`)), gen...),
		cmpIn("cmp/generate-variables-missing", "examples/flux/apps/status-page", app("status-page", "status"), gen...),
		cmpIn("cmp/generate-weights", "examples/flux/apps/reviews-gateway", append(app("reviews", "reviews"),
			params(`[{"name":"weights","map":{"reviews":"blue 60, green 40"}}]`)), gen...),
		cmpIn("cmp/generate-bad-params", "examples/apps/reviews", append(app("reviews", "reviews"), params(`[{"name":"fail-on","string":"sometimes"}]`)), gen...),
		cmpIn("cmp/generate-bad-json", "examples/apps/reviews", append(app("reviews", "reviews"), params(`{`)), gen...),
		view, viewAlone, viewProject,
		cmpIn("cmp/parameters-backend", "examples/apps/backend", app("backend-prod", "shop-prod"), "cmp", "parameters"),
		cmpIn("cmp/parameters-status-page", "examples/flux/apps/status-page", app("status-page", "status"), "cmp", "parameters"),
		cmpIn("cmp/parameters-reviews-gateway", "examples/flux/apps/reviews-gateway", app("reviews", "reviews"), "cmp", "parameters"),
		cmpIn("cmp/parameters-broken-render", "examples/apps/backend", append(app("backend-prod", "shop-prod"),
			params(`[{"name":"values-files","array":["nosuch.yaml"]}]`)), "cmp", "parameters"),
		cmpIn("cmp/discover-reviews", "examples/apps/reviews", nil, "cmp", "discover"),
		cmpIn("cmp/discover-frontend", "examples/apps/frontend/overlays/prod", nil, "cmp", "discover"),
		cmpIn("cmp/discover-examples", "examples", nil, "cmp", "discover"),
		cmpIn("cmp/discover-plugin-block", "examples/apps/reviews", []string{params(`[]`)}, "cmp", "discover"),
	}
}

func postrenderRuns() []run {
	pr := func(name, stdin string, args ...string) run {
		x := r(name, append([]string{"postrender"}, args...)...)
		x.stdin = "$FIXTURES/stdin/" + stdin + ".yaml"
		return x
	}
	return []run{
		pr("postrender/gateways", "gateways"),
		pr("postrender/gateways-sync-waves", "gateways", "--sync-waves", "--analyze=false"),
		pr("postrender/dangling", "dangling"),
		pr("postrender/dangling-fail-on-never", "dangling", "--fail-on", "never", "-n", "shop"),
		pr("postrender/istio", "istio"),
		pr("postrender/reviews-weights", "reviews", "--weights", "reviews: blue 70, green 30"),
		pr("postrender/reviews-weights-var", "reviews", "--var", "routeguard_weights=reviews: blue 10, green 90"),
		pr("postrender/status-page-vars", "status-page", "--var", "environment=prod", "--var", "cluster_name=prod-1", "--var", "cluster_domain=example.com"),
		pr("postrender/status-page-vars-file", "status-page", "--vars-file", "examples/flux/clusters/prod/cluster-vars.yaml", "--var", "environment=prod"),
		pr("postrender/status-page-strict", "status-page"),
		pr("postrender/status-page-not-strict", "status-page", "--strict=false", "--var", "environment=prod"),
		pr("postrender/error-weights", "reviews", "--weights", "reviews"),
		pr("postrender/error-var", "reviews", "--var", "novalue"),
		pr("postrender/error-max-file-size", "reviews", "--max-file-size", "0"),
		pr("postrender/error-vars-file", "reviews", "--vars-file", "examples/nosuch.yaml"),
	}
}

func healthRuns() []run {
	runs := []run{
		r("health/bundle-argocd", "health", "bundle", "--for", "argocd"),
		r("health/bundle-argocd-namespace", "health", "bundle", "--for", "argocd", "--namespace", "argocd"),
		r("health/bundle-argocd-helm", "health", "bundle", "--for", "argocd", "--format", "helm"),
		r("health/bundle-argocd-override", "health", "bundle", "--for", "argocd", "--override-builtin"),
		r("health/bundle-argocd-3.0", "health", "bundle", "--for", "argocd", "--argocd-version", "v3.0.0"),
		r("health/bundle-argocd-2.14", "health", "bundle", "--for", "argocd", "--argocd-version", "v2.14.0"),
		r("health/bundle-flux", "health", "bundle", "--for", "flux"),
		r("health/bundle-flux-istio", "health", "bundle", "--for", "flux", "--include-istio"),
		r("health/error-no-for", "health", "bundle"),
		r("health/error-bad-for", "health", "bundle", "--for", "spinnaker"),
		r("health/error-flux-namespace", "health", "bundle", "--for", "flux", "--namespace", "x"),
		r("health/error-flux-version", "health", "bundle", "--for", "flux", "--argocd-version", "v3.0.0"),
		r("health/error-argocd-format", "health", "bundle", "--for", "argocd", "--format", "flux"),
		r("health/error-argocd-istio", "health", "bundle", "--for", "argocd", "--include-istio"),
		r("health/error-argocd-version", "health", "bundle", "--for", "argocd", "--argocd-version", "latest"),
		r("health/check-missing", "health", "check", "examples/nosuch.yaml"),
		r("health/check-no-objects", "health", "check", "examples/broken/README.md"),
		r("health/check-examples", "health", "check", "examples/apps/routing/gateways/gateway.yaml"),
	}
	stdin := r("health/check-stdin", "health", "check", "-")
	stdin.stdin = "$FIXTURES/stdin/gateways.yaml"
	runs = append(runs, stdin)
	for _, kind := range glob("lua-health/*/*") {
		files, _ := filepath.Glob(filepath.Join(repoRoot, kind, "testdata", "*.yaml"))
		if len(files) == 0 {
			continue // not a kind's directory
		}
		sort.Strings(files)
		// The first and the last fixture of each kind: two statuses.
		for _, f := range []string{files[0], files[len(files)-1]} {
			rel, _ := filepath.Rel(repoRoot, f)
			name := "health/check-" + filepath.Base(kind) + "-" + strings.TrimSuffix(filepath.Base(f), ".yaml")
			if strings.HasPrefix(kind, "lua-health/networking.istio.io") {
				name = "health/check-istio-" + filepath.Base(kind) + "-" + strings.TrimSuffix(filepath.Base(f), ".yaml")
			}
			runs = append(runs, r(name, "health", "check", filepath.ToSlash(rel)))
		}
	}
	return runs
}

func notificationsRuns() []run {
	return []run{
		r("notifications/argocd", "notifications", "bundle", "--for", "argocd"),
		r("notifications/argocd-kustomize", "notifications", "bundle", "--for", "argocd", "--format", "kustomize"),
		r("notifications/argocd-helm", "notifications", "bundle", "--for", "argocd", "--format", "helm"),
		r("notifications/argocd-helm-values", "notifications", "bundle", "--for", "argocd", "--format", "helm-values"),
		r("notifications/flux", "notifications", "bundle", "--for", "flux"),
		r("notifications/error-no-for", "notifications", "bundle"),
		r("notifications/error-bad-for", "notifications", "bundle", "--for", "spinnaker"),
		r("notifications/error-bad-format", "notifications", "bundle", "--for", "flux", "--format", "helm"),
	}
}
