package pluginhost

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/config"
	"github.com/routeguard/routeguard/internal/manifest"
)

// Options say where plugins come from for one analysis run.
type Options struct {
	// Catalog is the operator's plugin catalog (nil: none): the binaries
	// that may run, pinned. CatalogFile is its path.
	Catalog     *config.Plugins
	CatalogFile string
	// Config is the repository's plugins section (nil: none), which
	// selects and configures catalog plugins; ConfigFile names it.
	Config     *config.Plugins
	ConfigFile string
	// Set is the rendered set: the Istio plugin runs only when it holds
	// Istio objects.
	Set *manifest.Set
	// Executable is the running routeguard binary; routeguard-istio is
	// looked for beside it, then on PATH.
	Executable func() (string, error)
	// Getenv reads routeguard's environment (PATH, HOME, TMPDIR are passed
	// on to plugins; nothing else is).
	Getenv func(string) string
}

// Failure is one plugin that failed: it crashed, hung past its deadline,
// spoke another protocol, reported undeclared codes, or was refused.
type Failure struct {
	Plugin  string // the analyzer name, e.g. "plugin.team-hosts"
	Err     error
	FailRun bool // the configuration makes this failure fail the run
}

func (f Failure) Error() string { return fmt.Sprintf("plugin %s: %v", f.Plugin, f.Err) }

// Session holds the plugins of one run and what went wrong with them.
type Session struct {
	analyzers []analysis.Analyzer
	getenv    func(string) string
	notes     []string
	warnings  []string

	mu       sync.Mutex
	failures []Failure
}

// Load resolves the plugins of opts. An error means the configuration is
// wrong (a path outside, a missing SHA256SUMS); a plugin that later fails
// to run is a Failure instead.
func Load(opts Options) (*Session, error) {
	s := &Session{getenv: opts.Getenv}
	if s.getenv == nil {
		s.getenv = func(string) string { return "" }
	}
	specs, err := Specs(opts.Catalog, opts.CatalogFile, opts.Config, opts.ConfigFile)
	if err != nil {
		return nil, err
	}
	for _, sp := range specs {
		s.analyzers = append(s.analyzers, &Analyzer{spec: sp, session: s, inputs: []manifest.GroupKind{{Kind: "*"}}})
	}
	if (opts.Config == nil || opts.Config.Istio != "off") && (opts.Catalog == nil || opts.Catalog.Istio != "off") {
		if a, warning := istioAnalyzer(s, opts); a != nil {
			s.analyzers = append(s.analyzers, a)
		} else if warning != "" {
			s.warnings = append(s.warnings, warning)
		}
	}
	return s, nil
}

// Analyzers returns the plugin analyzers, to append to the built-in ones.
func (s *Session) Analyzers() []analysis.Analyzer { return slices.Clone(s.analyzers) }

// Notes are things a user should know that are not failures.
func (s *Session) Notes() []string { return slices.Clone(s.notes) }

// Warnings say that checks the input needs did not run (Istio objects
// rendered but routeguard-istio not installed): the run is not what it
// looks like, though nothing failed.
func (s *Session) Warnings() []string { return slices.Clone(s.warnings) }

func (s *Session) fail(sp *Spec, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures = append(s.failures, Failure{Plugin: sp.Analyzer, Err: err, FailRun: sp.FailRun})
}

// Failures returns the plugins that failed, sorted by name.
func (s *Session) Failures() []Failure {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := slices.Clone(s.failures)
	slices.SortFunc(out, func(a, b Failure) int { return strings.Compare(a.Plugin, b.Plugin) })
	return out
}

// Err joins the failures that fail the run (nil when none does).
func (s *Session) Err() error {
	var errs []error
	for _, f := range s.Failures() {
		if f.FailRun {
			errs = append(errs, f)
		}
	}
	return errors.Join(errs...)
}

// Report writes every failure and note to w, one per line, marking those
// that do not fail the run, and returns whether one does.
func (s *Session) Report(w io.Writer) (failRun bool) {
	for _, n := range s.notes {
		fmt.Fprintf(w, "routeguard: note: %s\n", n)
	}
	for _, n := range s.warnings {
		fmt.Fprintf(w, "routeguard: warning: %s\n", n)
	}
	for _, f := range s.Failures() {
		if f.FailRun {
			failRun = true
			fmt.Fprintf(w, "routeguard: error: %v\n", f)
		} else {
			fmt.Fprintf(w, "routeguard: warning: %v (plugins.onError: warn; going on without it)\n", f)
		}
	}
	return failRun
}
