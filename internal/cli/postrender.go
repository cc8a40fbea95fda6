package cli

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/routeguard/routeguard/internal/config"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/pipeline"
	"github.com/routeguard/routeguard/internal/render"
	"github.com/routeguard/routeguard/internal/report"
	"github.com/routeguard/routeguard/internal/substitute"
	"github.com/routeguard/routeguard/internal/version"
)

type postrenderFlags struct {
	vars      []string
	varsFiles []string
	strict    bool
	weights   string
	syncWaves bool
	namespace string
	analyze   bool
	maxMiB    int64
	logFile   string
	analysis  analysisFlags
}

func newPostrenderCommand(env *Env) *cobra.Command {
	var f postrenderFlags
	cmd := &cobra.Command{
		Use:   "postrender [flags] < rendered.yaml > final.yaml",
		Short: "Helm post-renderer: substitute variables, apply traffic transforms, gate on the analysis (stdin -> stdout)",
		Long: `Helm's post-renderer contract: manifests on stdin, manifests on stdout, a
non-zero exit (and nothing on stdout) on failure.
  Helm 3: helm install app ./chart --post-renderer routeguard --post-renderer-args postrender
  Helm 4: helm plugin install ./plugins/postrender; helm install app ./chart --post-renderer routeguard
Variables are substituted with Flux's postBuild semantics; the traffic
transforms of .routeguard.yaml (or --weights) run next; then the analysis.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runPostrender(cmd, env, &f) },
	}
	fs := cmd.Flags()
	fs.StringArrayVar(&f.vars, "var", nil, "substitution variable name=value (repeatable; wins over --vars-file)")
	fs.StringArrayVar(&f.varsFiles, "vars-file", nil, "YAML file of name: value variables, e.g. a ConfigMap's data (repeatable, later wins)")
	fs.BoolVar(&f.strict, "strict", true, "fail on variables that are not set and have no default (--strict=false to turn off)")
	fs.StringVar(&f.weights, "weights", "", `traffic weights, e.g. "reviews: blue 90, green 10" (override transforms.weights of the config per service)`)
	fs.BoolVar(&f.syncWaves, "sync-waves", false, "add Argo CD sync waves (CRDs, Namespaces, Gateways, routes) where none is set")
	fs.StringVarP(&f.namespace, "namespace", "n", "", "namespace of objects that name none, for the analysis (default: $HELM_NAMESPACE, else \"default\")")
	fs.BoolVar(&f.analyze, "analyze", true, "run the analysis as a gate (--analyze=false only transforms)")
	fs.Int64Var(&f.maxMiB, "max-file-size", manifest.DefaultMaxFileBytes>>20, "largest input to read, in MiB")
	fs.StringVar(&f.logFile, "log-file", "", "also write errors and findings to this file (Helm 4 discards a post-renderer plugin's stderr)")
	f.analysis.register(cmd)
	fs.Lookup("config").Usage = "path of the .routeguard.yaml (default: the working directory's, else the git top level's)"
	return cmd
}

func runPostrender(cmd *cobra.Command, env *Env, f *postrenderFlags) (err error) {
	if f.logFile != "" {
		lf, cerr := os.Create(f.logFile)
		if cerr != nil {
			return fail("--log-file: %v", cerr)
		}
		defer lf.Close()
		e := *env
		e.Stderr = io.MultiWriter(env.Stderr, lf)
		env = &e
		// Errors are printed by Run on the real stderr; copy them here.
		defer func() {
			var ee *exitError
			if errors.As(err, &ee) && ee.err != nil {
				fmt.Fprintf(lf, "routeguard: %v\n", ee.err)
			}
		}()
	}
	vars, err := postrenderVars(f)
	if err != nil {
		return fail("%v", err)
	}
	var o pipeline.Overrides
	o.FailOn, o.SyncWaves = f.analysis.failOn, f.syncWaves
	if w, ok := vars[WeightsVariable]; ok && f.weights == "" {
		// The same variable that states weights in a Flux Kustomization.
		if o.Weights, err = config.ParseWeights(w); err != nil {
			return fail("variable %s: %v", WeightsVariable, err)
		}
	}
	if f.weights != "" {
		if o.Weights, err = config.ParseWeights(f.weights); err != nil {
			return fail("--weights: %v", err)
		}
	}
	if f.maxMiB <= 0 {
		return fail("--max-file-size must be positive, got %d", f.maxMiB)
	}
	data, err := readLimited(env.Stdin, "<stdin>", f.maxMiB<<20)
	if err != nil {
		return fail("%v", err)
	}
	objs, err := manifest.Decode("<stdin>", data)
	if err != nil {
		return fail("%v", err)
	}
	set := manifest.NewSet()
	if err := set.AddAll(objs); err != nil {
		return fail("%v", err)
	}
	// Helm runs post-renderers in the working directory: its
	// .routeguard.yaml, else the git top level's.
	wd := "."
	if env.Getwd != nil {
		if d, err := env.Getwd(); err == nil {
			wd = d
		}
	}
	root, err := render.FindRepoRoot(wd)
	if err != nil {
		return fail("%v", err)
	}
	ns := cmp.Or(f.namespace, env.Getenv("HELM_NAMESPACE"), "default")
	host, err := pluginHost(env, f.analysis.plugins)
	if err != nil {
		return fail("%v", err)
	}
	cluster, err := clusterOf(env, "", f.analysis.cluster)
	if err != nil {
		return fail("%v", err)
	}
	req := pipeline.Request{
		Cluster: cluster, Objects: set, AppDir: wd, RepoRoot: root, ConfigFile: f.analysis.config,
		Overrides:        o,
		Analyze:          f.analyze,
		DefaultNamespace: ns,
		Context:          &render.Options{MaxFileBytes: manifest.DefaultMaxFileBytes},
		Plugins:          host,
	}
	if len(vars) > 0 {
		req.Substitution = &pipeline.Substitution{Variables: vars, Strict: f.strict, Namespace: ns, Origin: "routeguard postrender --var/--vars-file"}
	}
	out, err := pipeline.Run(cmd.Context(), req)
	if err != nil {
		var se *substitute.Error
		if errors.As(err, &se) {
			se.Line = substitute.VariableLine(data, se.Object.Source.Line, se.Variable())
		}
		return fail("%v", err)
	}
	if f.analyze {
		// Findings go to stderr: stdout carries only manifests.
		pipeline.WriteNotices(env.Stderr, out.Notices)
		if len(out.Findings) > 0 {
			var b bytes.Buffer
			w, _ := report.New("text", &b, report.Options{Version: version.Get().Version})
			if err := report.WriteAll(w, out.Findings); err != nil {
				return fail("%v", err)
			}
			env.Stderr.Write(b.Bytes())
		}
		if out.PluginFailed {
			return exitWith(ExitError)
		}
		if out.Failed {
			fmt.Fprintf(env.Stderr, "routeguard: post-render refused: findings at or above %s (see above); fix them or set --fail-on\n", out.FailOn)
			return exitWith(ExitFindings)
		}
	}
	manifests, err := writeManifests("yaml", out.Set.Objects())
	if err != nil {
		return fail("%v", err)
	}
	return writeStdout(env, manifests)
}

// postrenderVars merges --vars-file files in order, then --var.
func postrenderVars(f *postrenderFlags) (map[string]string, error) {
	vars := map[string]string{}
	for _, p := range f.varsFiles {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("--vars-file %w", err)
		}
		var m map[string]any
		if err := yaml.Unmarshal(data, &m); err != nil {
			return nil, fmt.Errorf("--vars-file %s: want a YAML map of name: value: %w", p, err)
		}
		// A ConfigMap's file works as is: take its data.
		if d, ok := m["data"].(map[string]any); ok && m["kind"] == "ConfigMap" {
			m = d
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			switch v := m[k].(type) {
			case string:
				vars[k] = v
			case nil:
				vars[k] = ""
			case map[string]any, []any:
				return nil, fmt.Errorf("--vars-file %s: variable %s must be a string, number or bool", p, k)
			default:
				vars[k] = fmt.Sprint(v)
			}
		}
	}
	for _, kv := range f.vars {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--var %q: want name=value", kv)
		}
		vars[k] = v
	}
	return vars, nil
}
