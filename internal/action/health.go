package action

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/routeguard/routeguard/internal/health"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/printable"
)

// HealthBundle prints routeguard's health checks for a reconciler
// (routeguard health bundle).
type HealthBundle struct {
	// Target is argocd or flux; Format kustomize or helm (argocd), flux.
	Target, Format string
	// Namespace goes into the argocd-cm patch.
	Namespace string
	// ArgoCDVersion is the release the bundle is for (ArgoCDVersionSet:
	// given on the command line); kinds it has built-in checks for are
	// left out unless OverrideBuiltin.
	ArgoCDVersion    string
	ArgoCDVersionSet bool
	OverrideBuiltin  bool
	// IncludeIstio adds the Istio kinds to Flux's bundle.
	IncludeIstio bool
}

// HealthBundleResult is the bundle and what it left out.
type HealthBundleResult struct {
	Bundle  []byte
	Notices []string
}

// Run builds the bundle.
func (o *HealthBundle) Run() (*HealthBundleResult, error) {
	checks, err := health.Builtin()
	if err != nil {
		return nil, fmt.Errorf("health bundle: %v", err)
	}
	res := &HealthBundleResult{}
	switch o.Target {
	case "argocd":
		sel, err := health.SelectForArgoCD(checks, o.ArgoCDVersion, o.OverrideBuiltin)
		if err != nil {
			return nil, fmt.Errorf("health bundle: --argocd-version: %v", err)
		}
		switch o.Format {
		case "", health.FormatKustomize:
			res.Bundle, err = health.ArgoCDPatch(sel.Bundle, o.Namespace)
		case health.FormatHelm:
			res.Bundle, err = health.ArgoCDHelmValues(sel.Bundle)
		default:
			return nil, fmt.Errorf("health bundle: --format %q is not one of kustomize, helm for --for argocd", o.Format)
		}
		if o.IncludeIstio {
			return nil, fmt.Errorf("health bundle: --include-istio is for --for flux (the Argo CD checks always include Istio)")
		}
		if o.Namespace != "" && o.Format == health.FormatHelm {
			return nil, fmt.Errorf("health bundle: --namespace is for the kustomize format (the Helm chart knows its namespace)")
		}
		if err != nil {
			return nil, fmt.Errorf("health bundle: %v", err)
		}
		res.Notices = sel.Notices()
	case "flux":
		if o.Namespace != "" {
			return nil, fmt.Errorf("health bundle: --namespace is for --for argocd (the healthCheckExprs block has no metadata)")
		}
		if o.ArgoCDVersionSet || o.OverrideBuiltin {
			return nil, fmt.Errorf("health bundle: --argocd-version and --override-builtin are for --for argocd (Flux has no built-in checks for these kinds)")
		}
		if o.Format != "" && o.Format != health.FormatFlux {
			return nil, fmt.Errorf("health bundle: --format %q is not valid for --for flux (it has one format)", o.Format)
		}
		if res.Bundle, err = health.FluxHealthCheckExprs(checks, o.IncludeIstio); err != nil {
			return nil, fmt.Errorf("health bundle: %v", err)
		}
	case "":
		return nil, fmt.Errorf("health bundle: --for is required: argocd or flux")
	default:
		return nil, fmt.Errorf("health bundle: --for %q is not argocd or flux", o.Target)
	}
	return res, nil
}

// HealthKinds names the kinds routeguard ships health checks for.
func HealthKinds() []string { return health.BuiltinKinds() }

// HealthCheck evaluates objects with the Lua check (as Argo CD runs it)
// and its CEL twin (as Flux runs it) (routeguard health check).
type HealthCheck struct{}

// HealthCheckResult holds the verdicts.
type HealthCheckResult struct {
	// Report lists each object and its two verdicts.
	Report []byte
	// Degraded: an object is Degraded (Lua) or Failed (CEL).
	Degraded bool
}

// Run checks the objects of file ("-": standard input).
func (HealthCheck) Run(ctx context.Context, env Env, file string) (*HealthCheckResult, error) {
	name, data, err := readInput(env, file)
	if err != nil {
		return nil, fmt.Errorf("health check: %v", err)
	}
	objs, err := manifest.Decode(name, data)
	if err != nil {
		return nil, fmt.Errorf("health check: %v", err)
	}
	if len(objs) == 0 {
		return nil, fmt.Errorf("health check: %s holds no objects", name)
	}
	checks, err := health.Builtin()
	if err != nil {
		return nil, fmt.Errorf("health check: %v", err)
	}
	var b bytes.Buffer
	res := &HealthCheckResult{}
	for _, o := range objs {
		fmt.Fprintf(&b, "%s (%s)\n", textCell(o.String()), textCell(o.Source.String()))
		c, ok := health.Find(checks, o.Group(), o.Kind)
		if !ok {
			fmt.Fprintf(&b, "  no routeguard health check for %s in group %q\n", textCell(o.Kind), o.Group())
			continue
		}
		if err := health.CheckBounds(o.Body); err != nil {
			return nil, fmt.Errorf("health check: %s: %v", o.Source, err)
		}
		v, err := health.EvalLua(ctx, c.Lua, o.Body)
		if err != nil {
			return nil, fmt.Errorf("health check: %s: Lua check failed: %v", o.Source, err)
		}
		fmt.Fprintf(&b, "  argocd (Lua): %s: %s\n", textCell(v.Status), textCell(v.Message))
		ev, err := health.NewEvaluator(c)
		if err != nil {
			return nil, fmt.Errorf("health check: %v", err)
		}
		r := ev.Evaluate(ctx, o.Body)
		if r.Err != nil {
			cause := r.Err
			if inner := errors.Unwrap(cause); inner != nil {
				cause = inner // drop the expression text, which is long
			}
			fmt.Fprintf(&b, "  flux (CEL):   %s: cannot evaluate: %s; kustomize-controller keeps waiting until its timeout\n", r.Status, textCell(cause.Error()))
		} else {
			fmt.Fprintf(&b, "  flux (CEL):   %s\n", r.Status)
		}
		if v.Status == "Degraded" || r.Status == "Failed" {
			res.Degraded = true
		}
	}
	res.Report = []byte(printable.Lines(b.String()))
	return res, nil
}

// textCell is repository text on one line of a text output: escaped and
// shortened (printable).
func textCell(s string) string { return printable.Line(printable.Cut(s, 2000)) }

// readInput reads file, or standard input for "-", up to the manifest size
// limit.
func readInput(env Env, file string) (string, []byte, error) {
	var r io.Reader
	name := file
	if file == "-" {
		r, name = env.Stdin, "<stdin>"
	} else {
		f, err := os.Open(file)
		if err != nil {
			return "", nil, fmt.Errorf("%w (give a YAML/JSON file, or - to read standard input)", err)
		}
		defer f.Close()
		r, name = f, filepath.ToSlash(file)
	}
	data, err := readLimited(r, name, manifest.DefaultMaxFileBytes)
	return name, data, err
}
