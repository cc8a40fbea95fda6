package render

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/routeguard/routeguard/internal/guard"
)

// Kustomize's helmCharts generator runs an external helm binary, passing it
// its own process environment. routeguard answers those calls itself, through
// the Helm SDK, without any process-wide state: every Kustomize render gets a
// private directory holding a "helm" symlink to the routeguard executable and
// a shim file naming the repository root that render is confined to.
// Kustomize executes the symlink; the child routeguard sees argv[0] ending in
// that directory's "helm", reads the shim file beside it and serves the call
// (ServeHelmShim). Any number of renders of different repositories can run
// concurrently in one process, and nothing in the environment a caller (or a
// repository) can set turns routeguard into the shim.
const (
	helmShimName = "helm"
	helmShimFile = "routeguard-helm-shim.json"
	// helmShimUsed is created beside the shim file when Kustomize called
	// it at all (for a version, a render, a pull): the reads of helmCharts
	// happen in the child process, or with os.Stat, out of the render's
	// trace.
	helmShimUsed = "used"
	// helmShimPulled is created when Kustomize asked it to pull a chart
	// (which it refuses).
	helmShimPulled = "pulled"
)

// helmShimConfig is what one render tells its helm shim.
type helmShimConfig struct {
	Root         string `json:"root"`
	AllowNetwork bool   `json:"allowNetwork"`
	MaxFileBytes int64  `json:"maxFileBytes"`
	// UnpredictableRandom is the parent's HelmOptions.UnpredictableRandom.
	UnpredictableRandom bool `json:"unpredictableRandom,omitempty"`
	// Guard carries the parent's limits (internal/guard), which the shim
	// enforces on itself: a chart that amplifies stops with routeguard's
	// message, and nothing outlives the parent's deadline.
	Guard *helmShimGuard `json:"guard,omitempty"`
}

type helmShimGuard struct {
	MaxMemory int64 `json:"maxMemory"` // 0: automatic
	Deadline  int64 `json:"deadline"`  // Unix nanoseconds; 0: none
}

// shimGuard is the running watchdog's limits, for the shim (nil: none).
func shimGuard() *helmShimGuard {
	maxMemory, deadline, ok := guard.Active()
	if !ok {
		return nil
	}
	g := &helmShimGuard{MaxMemory: maxMemory}
	if !deadline.IsZero() {
		g.Deadline = deadline.UnixNano()
	}
	return g
}

// startShimGuard enforces the parent's limits in the shim process: past
// one it prints routeguard's message and exits 1 (Kustomize then reports
// the failed helm call, message included).
func startShimGuard(g *helmShimGuard, stderr io.Writer) (stop func()) {
	if g == nil {
		return func() {}
	}
	l := guard.Limits{MaxMemory: g.MaxMemory}
	if g.Deadline != 0 {
		l.Timeout = max(time.Until(time.Unix(0, g.Deadline)), time.Millisecond)
	}
	return guard.Start(l, func(msg string) {
		fmt.Fprintf(stderr, "routeguard (helm template for Kustomize) %s\n", msg)
		os.Exit(1)
	})
}

// newHelmShim prepares the helm command of one Kustomize render: a private
// directory (removed by the returned cleanup) with the symlink and the shim
// file. self is the routeguard executable.
func newHelmShim(self string, cfg helmShimConfig) (command string, cleanup func(), err error) {
	dir, err := os.MkdirTemp("", "routeguard-helm-")
	if err != nil {
		return "", nil, fmt.Errorf("preparing Kustomize's helm command: %w", err)
	}
	cleanup = func() { os.RemoveAll(dir) }
	data, err := json.Marshal(cfg)
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, helmShimFile), data, 0o600)
	}
	if err == nil {
		err = os.Symlink(self, filepath.Join(dir, helmShimName))
	}
	if err != nil {
		cleanup()
		return "", nil, fmt.Errorf("preparing Kustomize's helm command: %w", err)
	}
	return filepath.Join(dir, helmShimName), cleanup, nil
}

// selfExecutable is the routeguard binary (or test binary) that answers
// Kustomize's helm calls.
func selfExecutable(opts Options) (string, error) {
	if opts.Self != "" {
		return opts.Self, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("locating routeguard's own executable (Kustomize helmCharts need it): %w", err)
	}
	return exe, nil
}

// ServeHelmShim serves a helm call when argv[0] is a helm shim prepared by a
// render, and reports whether it was one. Every routeguard main (and test
// binary that renders) calls it first.
func ServeHelmShim(ctx context.Context, argv []string, getenv func(string) string, stdout, stderr io.Writer) (code int, ok bool) {
	if len(argv) == 0 || filepath.Base(argv[0]) != helmShimName || !filepath.IsAbs(argv[0]) {
		return 0, false
	}
	data, err := os.ReadFile(filepath.Join(filepath.Dir(argv[0]), helmShimFile))
	if err != nil {
		return 0, false
	}
	var cfg helmShimConfig
	if err := json.Unmarshal(data, &cfg); err != nil || cfg.Root == "" {
		fmt.Fprintf(stderr, "routeguard helm shim: unreadable %s\n", helmShimFile)
		return 2, true
	}
	// "version" too: Kustomize asks it before it looks, with os.Stat and
	// so untraced, for the chart in the chart home (a render whose chart
	// is not there yet, exported on demand, must not vouch for itself).
	if len(argv) > 1 {
		_ = os.WriteFile(filepath.Join(filepath.Dir(argv[0]), helmShimUsed), nil, 0o600)
	}
	if len(argv) > 1 && argv[1] == "pull" {
		_ = os.WriteFile(filepath.Join(filepath.Dir(argv[0]), helmShimPulled), nil, 0o600)
	}
	return helmShim(ctx, cfg, argv[1:], getenv, stdout, stderr), true
}

// helmShimWasAskedToPull reports whether Kustomize asked the shim whose
// command is given to pull a chart (refused: not in the repository).
func helmShimWasAskedToPull(command string) bool {
	_, err := os.Lstat(filepath.Join(filepath.Dir(command), helmShimPulled))
	return err == nil
}

// helmShimWasUsed reports whether the shim whose command is given served a
// chart.
func helmShimWasUsed(command string) bool {
	_, err := os.Lstat(filepath.Join(filepath.Dir(command), helmShimUsed))
	return err == nil
}

// helmShim answers the helm command lines Kustomize's helmCharts generator
// runs: "version --short", "template NAME CHART [flags]" and "pull" (refused
// without the network). It returns the exit code.
func helmShim(ctx context.Context, cfg helmShimConfig, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "routeguard helm shim: no command")
		return 2
	}
	switch args[0] {
	case "version":
		// Kustomize requires a Helm 3 or 4 version string.
		fmt.Fprintln(stdout, "v4.3.1+routeguard")
		return 0
	case "pull":
		// Kustomize would pull into the chart home, inside the repository:
		// routeguard writes nothing there, network or not.
		fmt.Fprintf(stderr, "remote Helm chart %s is not in the repository: "+notDownloaded+"\n",
			strings.Join(args[1:], " "))
		return 1
	case "template":
		defer startShimGuard(cfg.Guard, stderr)()
		if err := helmShimTemplate(ctx, cfg, args[1:], getenv, stdout); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		return 0
	}
	fmt.Fprintf(stderr, "routeguard helm shim: unsupported helm command %q\n", args[0])
	return 2
}

func helmShimTemplate(ctx context.Context, cfg helmShimConfig, args []string, getenv func(string) string, stdout io.Writer) error {
	fs := pflag.NewFlagSet("template", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	h := HelmOptions{UnpredictableRandom: cfg.UnpredictableRandom}
	var debug, devel, generateName bool
	var nameTemplate string
	fs.StringVar(&h.Namespace, "namespace", "", "")
	fs.StringArrayVarP(&h.ValuesFiles, "values", "f", nil, "")
	fs.StringArrayVar(&h.APIVersions, "api-versions", nil, "")
	fs.StringVar(&h.KubeVersion, "kube-version", "", "")
	fs.BoolVar(&h.IncludeCRDs, "include-crds", false, "")
	fs.BoolVar(&h.SkipTests, "skip-tests", false, "")
	fs.BoolVar(&h.DisableHooks, "no-hooks", false, "")
	fs.BoolVar(&debug, "debug", false, "")
	fs.BoolVar(&devel, "devel", false, "")
	fs.BoolVar(&generateName, "generate-name", false, "")
	fs.StringVar(&nameTemplate, "name-template", "", "")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("helm template: %w", err)
	}
	pos := fs.Args()
	var chartDir string
	switch len(pos) {
	case 1:
		h.Release, chartDir = "release-name", pos[0]
	case 2:
		h.Release, chartDir = pos[0], pos[1]
	default:
		return fmt.Errorf("helm template: want NAME CHART, got %q", pos)
	}
	// Kustomize writes the merged values into its own temporary directory
	// (the parent of HELM_CONFIG_HOME, "kustomize-helm-*" right under the
	// temporary directory routeguard's parent process uses); those files may
	// be read too, nothing else outside the repository.
	var extra []string
	if home := getenv("HELM_CONFIG_HOME"); home != "" {
		dir := filepath.Dir(filepath.Clean(home))
		if filepath.Dir(dir) == filepath.Clean(os.TempDir()) && strings.HasPrefix(filepath.Base(dir), "kustomize-helm-") {
			extra = append(extra, dir)
		}
	}
	r, err := newRoot(cfg.Root, extra...)
	if err != nil {
		return err
	}
	defer r.close()
	r.maxFile = cfg.MaxFileBytes
	docs, err := HelmTemplate(ctx, r, chartDir, h)
	if err != nil {
		return err
	}
	for _, d := range docs {
		content := d.Content
		if d.Template != "" && !strings.HasPrefix(content, "# Source:") {
			content = "# Source: " + d.Template + "\n" + content
		}
		fmt.Fprintf(stdout, "---\n%s\n", strings.TrimRight(content, "\n"))
	}
	return nil
}
