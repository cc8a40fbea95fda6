package pluginhost

import (
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/routeguard/routeguard/internal/config"
	"github.com/routeguard/routeguard/internal/manifest"
)

// IstioBinary is the first-party plugin that runs Istio's analyzers.
const IstioBinary = "routeguard-istio"

// IstioAnalyzerName is the analyzer name its findings carry, the same as
// the in-process istio.Analyzers, so reports do not depend on the mode.
const IstioAnalyzerName = "istio.Analyzers"

// HasIstioObjects reports whether set holds objects of an Istio API group
// (networking.istio.io, security.istio.io, telemetry.istio.io, ...).
func HasIstioObjects(set *manifest.Set) bool {
	if set == nil {
		return false
	}
	for _, o := range set.Objects() {
		if g := o.Group(); g == "istio.io" || strings.HasSuffix(g, ".istio.io") {
			return true
		}
	}
	return false
}

// FindIstio returns the routeguard-istio binary: beside the routeguard
// executable (symlinks resolved), else on PATH. ok is false when neither
// has it.
func FindIstio(executable func() (string, error), getenv func(string) string) (string, bool) {
	if executable != nil {
		if exe, err := executable(); err == nil {
			if real, err := filepath.EvalSymlinks(exe); err == nil {
				exe = real
			}
			if p, err := exec.LookPath(filepath.Join(filepath.Dir(exe), IstioBinary)); err == nil {
				return p, true
			}
		}
	}
	if getenv != nil {
		for _, dir := range filepath.SplitList(getenv("PATH")) {
			if dir == "" {
				continue
			}
			if p, err := exec.LookPath(filepath.Join(dir, IstioBinary)); err == nil {
				return p, true
			}
		}
	}
	return "", false
}

// istioAnalyzer returns the Istio plugin's analyzer when the rendered set
// needs it, or a note saying why Istio's checks do not run.
func istioAnalyzer(s *Session, opts Options) (*Analyzer, string) {
	if !HasIstioObjects(opts.Set) {
		return nil, ""
	}
	path, ok := FindIstio(opts.Executable, opts.Getenv)
	if !ok {
		return nil, "the app renders Istio objects, but " + IstioBinary + " is neither beside routeguard nor on PATH, " +
			"so Istio's own analyzers did not run; install it (docs/plugins.md), or set plugins.istio: off to silence this"
	}
	p := opts.Config
	if p == nil {
		p = &config.Plugins{}
	}
	sp := Spec{Name: "istio", Analyzer: IstioAnalyzerName, Path: path, FirstParty: true,
		Timeout: p.TimeoutOf(nil), FailRun: p.FailsOnError(nil)}
	inputs := []manifest.GroupKind{{Group: "networking.istio.io", Kind: "*"}, {Group: "security.istio.io", Kind: "*"}}
	return &Analyzer{spec: sp, session: s, inputs: inputs}, ""
}
