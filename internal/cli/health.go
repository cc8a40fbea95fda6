package cli

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
)

func init() {
	register(command{
		name:    "health",
		summary: "health checks for routes and gateways: bundle them for Argo CD / Flux, or check an object",
		run:     runHealth,
	})
}

const healthUsage = `Usage:
  routeguard health bundle --for argocd [--format kustomize|helm] [--namespace NS] [--argocd-version V] [--override-builtin]
  routeguard health bundle --for flux [--include-istio]
  routeguard health check FILE|-

bundle  prints the health checks for routes and gateways as an argocd-cm Kustomize
        patch (--format kustomize, the default), as argo-cd Helm chart values
        (--format helm), or as the healthCheckExprs block of a Flux Kustomization.
        For Argo CD it leaves out the kinds the Argo CD version (--argocd-version,
        default ` + health.TestedArgoCDVersion + `) has built-in checks for, and says so on
        stderr; --override-builtin bundles them too (argocd-cm keys replace built-ins).
check   evaluates each object of a YAML/JSON stream (e.g. kubectl get httproute -o yaml)
        with the Lua check (as Argo CD runs it) and its CEL twin (as Flux runs it).
        Exit code 1 when an object is Degraded or Failed.
`

func runHealth(ctx context.Context, env *Env, args []string) int {
	if len(args) == 0 {
		io.WriteString(env.Stderr, healthUsage)
		return ExitError
	}
	switch args[0] {
	case "bundle":
		return runHealthBundle(env, args[1:])
	case "check":
		return runHealthCheck(ctx, env, args[1:])
	case "-h", "--help", "help":
		io.WriteString(env.Stdout, healthUsage)
		return ExitOK
	}
	return failf(env, "health: unknown subcommand %q; want bundle or check", args[0])
}

func runHealthBundle(env *Env, args []string) int {
	fs := flagSet("health bundle", "routeguard health bundle --for argocd|flux [--format kustomize|helm] [--namespace NS] [--argocd-version V] [--override-builtin] [--include-istio]", env)
	target := fs.String("for", "", "reconciler to bundle for: argocd or flux")
	format := fs.String("format", "", "argocd: kustomize (argocd-cm patch, default) or helm (argo-cd chart values); flux: flux (default)")
	includeIstio := fs.Bool("include-istio", false, "flux: include the Istio kinds (only with PILOT_ENABLE_STATUS=true on istiod)")
	namespace := fs.String("namespace", "", "argocd kustomize: namespace to put in the patch, when the base argocd-cm names one (Argo CD's install.yaml does not)")
	argocdVersion := fs.String("argocd-version", health.TestedArgoCDVersion, "argocd: the Argo CD release the bundle is for; kinds it has built-in health checks for are left out")
	overrideBuiltin := fs.Bool("override-builtin", false, "argocd: also bundle the kinds the Argo CD release has built-in health checks for (argocd-cm keys replace them)")
	if code, done := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() > 0 {
		return failf(env, "health bundle: unexpected argument %q", fs.Arg(0))
	}
	checks, err := health.Builtin()
	if err != nil {
		return failf(env, "health bundle: %v", err)
	}
	var out []byte
	switch *target {
	case "argocd":
		sel, selErr := health.SelectForArgoCD(checks, *argocdVersion, *overrideBuiltin)
		if selErr != nil {
			return failf(env, "health bundle: --argocd-version: %v", selErr)
		}
		switch *format {
		case "", health.FormatKustomize:
			out, err = health.ArgoCDPatch(sel.Bundle, *namespace)
		case health.FormatHelm:
			out, err = health.ArgoCDHelmValues(sel.Bundle)
		default:
			return failf(env, "health bundle: --format %q is not one of kustomize, helm for --for argocd", *format)
		}
		if *includeIstio {
			return failf(env, "health bundle: --include-istio is for --for flux (the Argo CD checks always include Istio)")
		}
		if *namespace != "" && *format == health.FormatHelm {
			return failf(env, "health bundle: --namespace is for the kustomize format (the Helm chart knows its namespace)")
		}
		if err == nil {
			for _, n := range sel.Notices() {
				fmt.Fprintf(env.Stderr, "routeguard health bundle: %s\n", n)
			}
		}
	case "flux":
		if *namespace != "" {
			return failf(env, "health bundle: --namespace is for --for argocd (the healthCheckExprs block has no metadata)")
		}
		if fs.Changed("argocd-version") || *overrideBuiltin {
			return failf(env, "health bundle: --argocd-version and --override-builtin are for --for argocd (Flux has no built-in checks for these kinds)")
		}
		if *format != "" && *format != health.FormatFlux {
			return failf(env, "health bundle: --format %q is not valid for --for flux (it has one format)", *format)
		}
		out, err = health.FluxHealthCheckExprs(checks, *includeIstio)
	case "":
		return failf(env, "health bundle: --for is required: argocd or flux")
	default:
		return failf(env, "health bundle: --for %q is not argocd or flux", *target)
	}
	if err != nil {
		return failf(env, "health bundle: %v", err)
	}
	env.Stdout.Write(out)
	return ExitOK
}

func runHealthCheck(ctx context.Context, env *Env, args []string) int {
	fs := flagSet("health check", "routeguard health check FILE|-", env)
	if code, done := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() != 1 {
		return failf(env, "health check: want one FILE, or - for standard input")
	}
	name, data, err := healthReadInput(env, fs.Arg(0))
	if err != nil {
		return failf(env, "health check: %v", err)
	}
	objs, err := manifest.Decode(name, data)
	if err != nil {
		return failf(env, "health check: %v", err)
	}
	if len(objs) == 0 {
		return failf(env, "health check: %s holds no objects", name)
	}
	checks, err := health.Builtin()
	if err != nil {
		return failf(env, "health check: %v", err)
	}
	var b bytes.Buffer
	code := ExitOK
	for _, o := range objs {
		fmt.Fprintf(&b, "%s (%s)\n", o, o.Source)
		c, ok := health.Find(checks, o.Group(), o.Kind)
		if !ok {
			fmt.Fprintf(&b, "  no routeguard health check for %s in group %q\n", o.Kind, o.Group())
			continue
		}
		v, err := health.EvalLua(ctx, c.Lua, o.Body)
		if err != nil {
			return failf(env, "health check: %s: Lua check failed: %v", o.Source, err)
		}
		fmt.Fprintf(&b, "  argocd (Lua): %s: %s\n", v.Status, v.Message)
		ev, err := health.NewEvaluator(c)
		if err != nil {
			return failf(env, "health check: %v", err)
		}
		r := ev.Evaluate(ctx, o.Body)
		if r.Err != nil {
			cause := r.Err
			if inner := errors.Unwrap(cause); inner != nil {
				cause = inner // drop the expression text, which is long
			}
			fmt.Fprintf(&b, "  flux (CEL):   %s: cannot evaluate: %v; kustomize-controller keeps waiting until its timeout\n", r.Status, cause)
		} else {
			fmt.Fprintf(&b, "  flux (CEL):   %s\n", r.Status)
		}
		if v.Status == "Degraded" || r.Status == "Failed" {
			code = ExitFindings
		}
	}
	env.Stdout.Write(b.Bytes())
	return code
}

// healthReadInput reads FILE, or standard input for "-", up to the manifest size limit.
func healthReadInput(env *Env, arg string) (string, []byte, error) {
	var r io.Reader
	name := arg
	if arg == "-" {
		r, name = env.Stdin, "<stdin>"
	} else {
		f, err := os.Open(arg)
		if err != nil {
			return "", nil, fmt.Errorf("%w (give a YAML/JSON file, or - to read standard input)", err)
		}
		defer f.Close()
		r, name = f, filepath.ToSlash(arg)
	}
	data, err := io.ReadAll(io.LimitReader(r, manifest.DefaultMaxFileBytes+1))
	if err != nil {
		return "", nil, fmt.Errorf("read %s: %w", name, err)
	}
	if len(data) > manifest.DefaultMaxFileBytes {
		return "", nil, fmt.Errorf("%s is larger than %d MiB", name, manifest.DefaultMaxFileBytes>>20)
	}
	return name, data, nil
}
