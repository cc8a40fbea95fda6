package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/analysis/registry"
	"github.com/routeguard/routeguard/internal/config"
	"github.com/routeguard/routeguard/internal/gctune"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/plugins"
	"github.com/routeguard/routeguard/internal/report"
	"github.com/routeguard/routeguard/internal/substitute"
	"github.com/routeguard/routeguard/internal/transform"
)

func init() {
	register(command{name: "postrender", summary: "Helm post-renderer: substitute variables, apply traffic transforms, gate on the analysis (stdin -> stdout)", run: runPostrender})
}

const postrenderUsage = `routeguard postrender [flags] < rendered.yaml > final.yaml

Helm's post-renderer contract: manifests on stdin, manifests on stdout, a
non-zero exit (and nothing on stdout) on failure.
  Helm 3: helm install app ./chart --post-renderer routeguard --post-renderer-args postrender
  Helm 4: helm plugin install ./plugins/postrender; helm install app ./chart --post-renderer routeguard
Variables are substituted with Flux's postBuild semantics; the traffic
transforms of .routeguard.yaml (or --weights) run next; then the analysis.`

type postrenderFlags struct {
	vars      []string
	varsFiles []string
	strict    bool
	weights   string
	syncWaves bool
	config    string
	namespace string
	failOn    string
	analyze   bool
	maxMiB    int64
	logFile   string
}

func runPostrender(ctx context.Context, env *Env, args []string) int {
	fs := flagSet("postrender", postrenderUsage, env)
	var f postrenderFlags
	fs.StringArrayVar(&f.vars, "var", nil, "substitution variable name=value (repeatable; wins over --vars-file)")
	fs.StringArrayVar(&f.varsFiles, "vars-file", nil, "YAML file of name: value variables, e.g. a ConfigMap's data (repeatable, later wins)")
	fs.BoolVar(&f.strict, "strict", true, "fail on variables that are not set and have no default (--strict=false to turn off)")
	fs.StringVar(&f.weights, "weights", "", `traffic weights, e.g. "reviews: blue 90, green 10" (overrides transforms.weights of the config)`)
	fs.BoolVar(&f.syncWaves, "sync-waves", false, "add Argo CD sync waves (CRDs, Namespaces, Gateways, routes) where none is set")
	fs.StringVar(&f.config, "config", "", "path of the .routeguard.yaml (default: the working directory's, else the git top level's)")
	fs.StringVarP(&f.namespace, "namespace", "n", "", "namespace of objects that name none, for the analysis (default: $HELM_NAMESPACE, else \"default\")")
	fs.StringVar(&f.failOn, "fail-on", "", "lowest severity that fails: error, warning or never (default: failOn of the config, else error)")
	fs.BoolVar(&f.analyze, "analyze", true, "run the analysis as a gate (--analyze=false only transforms)")
	fs.Int64Var(&f.maxMiB, "max-file-size", manifest.DefaultMaxFileBytes>>20, "largest input to read, in MiB")
	fs.StringVar(&f.logFile, "log-file", "", "also write errors and findings to this file (Helm 4 discards a post-renderer plugin's stderr)")
	if code, done := parseFlags(fs, args); done {
		return code
	}
	if f.logFile != "" {
		lf, err := os.Create(f.logFile)
		if err != nil {
			return failf(env, "--log-file: %v", err)
		}
		defer lf.Close()
		e := *env
		e.Stderr = io.MultiWriter(env.Stderr, lf)
		env = &e
	}
	if fs.NArg() > 0 {
		return failf(env, "postrender reads manifests on stdin and takes no arguments, got %q", fs.Args())
	}
	if f.failOn != "" {
		if _, err := config.Parse("--fail-on", []byte("failOn: "+f.failOn)); err != nil {
			return failf(env, "--fail-on must be error, warning or never, got %q", f.failOn)
		}
	}
	vars, err := postrenderVars(&f)
	if err != nil {
		return failf(env, "%v", err)
	}
	cfg, repoRoot, err := postrenderConfig(env, f.config)
	if err != nil {
		return failf(env, "%v", err)
	}
	tf := &config.Transforms{}
	if cfg.Transforms != nil {
		*tf = *cfg.Transforms
	}
	if w, ok := vars[WeightsVariable]; ok && f.weights == "" {
		// The same variable that states weights in a Flux Kustomization.
		if tf.Weights, err = config.ParseWeights(w); err != nil {
			return failf(env, "variable %s: %v", WeightsVariable, err)
		}
	}
	if f.weights != "" {
		if tf.Weights, err = config.ParseWeights(f.weights); err != nil {
			return failf(env, "--weights: %v", err)
		}
	}
	tf.SyncWaves = tf.SyncWaves || f.syncWaves
	if f.maxMiB <= 0 {
		return failf(env, "--max-file-size must be positive, got %d", f.maxMiB)
	}
	data, err := io.ReadAll(io.LimitReader(env.Stdin, f.maxMiB<<20+1))
	if err != nil {
		return failf(env, "reading stdin: %v", err)
	}
	if int64(len(data)) > f.maxMiB<<20 {
		return failf(env, "<stdin>: larger than %d MiB; raise --max-file-size if this is intended", f.maxMiB)
	}
	objs, err := manifest.Decode("<stdin>", data)
	if err != nil {
		return failf(env, "%v", err)
	}
	set := manifest.NewSet()
	if err := set.AddAll(objs); err != nil {
		return failf(env, "%v", err)
	}
	ns := firstNonEmpty(f.namespace, env.Getenv("HELM_NAMESPACE"), "default")
	if len(vars) > 0 {
		set, err = substitute.Apply(ctx, set, substitute.Kustomization(ns, vars), nil,
			substitute.Options{Strict: f.strict, Origin: "routeguard postrender --var/--vars-file"})
		if err != nil {
			var se *substitute.Error
			if errors.As(err, &se) {
				se.Line = substitute.VariableLine(data, se.Object.Source.Line, se.Variable())
			}
			return failf(env, "%v", err)
		}
	}
	if err := transform.Apply(set, tf); err != nil {
		return failf(env, "%v", err)
	}
	if f.analyze {
		code, err := postrenderGate(ctx, env, &f, cfg, repoRoot, set, ns)
		if err != nil {
			return failf(env, "%v", err)
		}
		if code != ExitOK {
			return code
		}
	}
	var buf bytes.Buffer
	if err := manifest.WriteYAML(&buf, set.Objects()); err != nil {
		return failf(env, "%v", err)
	}
	if _, err := env.Stdout.Write(buf.Bytes()); err != nil {
		return failf(env, "writing output: %v", err)
	}
	return ExitOK
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
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
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

// postrenderConfig loads --config, else the .routeguard.yaml of the working
// directory (Helm runs post-renderers there) or of its git top level.
func postrenderConfig(env *Env, explicit string) (*config.Config, string, error) {
	wd := "."
	if env.Getwd != nil {
		if d, err := env.Getwd(); err == nil {
			wd = d
		}
	}
	root, err := repoRootOf(wd)
	if err != nil {
		return nil, "", err
	}
	cfg, err := loadConfig(explicit, wd, root)
	return cfg, root, err
}

// postrenderGate runs the analysis; findings go to stderr (stdout carries
// only manifests). It returns ExitFindings when a finding reaches failOn.
func postrenderGate(ctx context.Context, env *Env, f *postrenderFlags, cfg *config.Config, repoRoot string, set *manifest.Set, ns string) (int, error) {
	settings, err := settingsOf(cfg)
	if err != nil {
		return 0, err
	}
	session, err := plugins.Load(plugins.Options{Config: cfg.Plugins, ConfigFile: cfg.File, RepoRoot: repoRoot,
		Set: set, Executable: env.Executable, Getenv: env.Getenv})
	if err != nil {
		return 0, err
	}
	settled := gctune.Settled() // the objects are decoded; the analysis mostly makes garbage
	res, err := analysis.Run(ctx, analysis.RunOptions{Set: set, Config: settings,
		Analyzers: append(registry.All(), session.Analyzers()...), DefaultNamespace: ns})
	settled()
	if err != nil {
		return 0, err
	}
	pluginFailed := session.Report(env.Stderr)
	if len(res.Findings) > 0 {
		var b bytes.Buffer
		w, _ := report.New("text", &b, report.Options{Version: Version})
		if err := report.WriteAll(w, res.Findings); err != nil {
			return 0, err
		}
		io.Copy(env.Stderr, &b)
	}
	if pluginFailed {
		return ExitError, nil
	}
	failOn := firstNonEmpty(f.failOn, cfg.FailOn, "error")
	if failOn != "never" {
		min, _ := analysis.ParseSeverity(failOn)
		if res.Max() > 0 && res.Max() >= min {
			fmt.Fprintf(env.Stderr, "routeguard: post-render refused: findings at or above %s (see above); fix them or set --fail-on\n", failOn)
			return ExitFindings, nil
		}
	}
	return ExitOK, nil
}
