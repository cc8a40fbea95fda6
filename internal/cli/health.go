package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/routeguard/routeguard/internal/health"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/printable"
)

func newHealthCommand(env *Env) *cobra.Command {
	return group("health", "Health checks for routes and gateways: bundle them for Argo CD / Flux, or check an object",
		newHealthBundleCommand(env), newHealthCheckCommand(env))
}

func newHealthBundleCommand(env *Env) *cobra.Command {
	var o healthBundleOptions
	cmd := &cobra.Command{
		Use:   "bundle --for argocd|flux",
		Short: "Print the health checks as an argocd-cm patch, argo-cd chart values, or Flux healthCheckExprs",
		Long: `Prints the health checks for ` + strings.Join(healthKinds(), ", ") + `
as an argocd-cm Kustomize patch (--format kustomize, the default), as argo-cd
Helm chart values (--format helm), or as the healthCheckExprs block of a Flux
Kustomization (--for flux).

For Argo CD it leaves out the kinds the Argo CD release (--argocd-version,
default ` + health.TestedArgoCDVersion + `) has built-in checks for, and says so on
stderr; --override-builtin bundles them too (argocd-cm keys replace built-ins).`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.argocdVersionSet = cmd.Flags().Changed("argocd-version")
			out, notices, err := healthBundle(o)
			if err != nil {
				return err
			}
			for _, n := range notices {
				fmt.Fprintf(env.Stderr, "routeguard health bundle: %s\n", n)
			}
			return writeStdout(env, out)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.target, "for", "", "reconciler to bundle for: argocd or flux")
	fs.StringVar(&o.format, "format", "", "argocd: kustomize (argocd-cm patch, default) or helm (argo-cd chart values); flux: flux (default)")
	fs.BoolVar(&o.includeIstio, "include-istio", false, "flux: include the Istio kinds (only with PILOT_ENABLE_STATUS=true on istiod)")
	fs.StringVar(&o.namespace, "namespace", "", "argocd kustomize: namespace to put in the patch, when the base argocd-cm names one (Argo CD's install.yaml does not)")
	fs.StringVar(&o.argocdVersion, "argocd-version", health.TestedArgoCDVersion, "argocd: the Argo CD release the bundle is for; kinds it has built-in health checks for are left out")
	fs.BoolVar(&o.overrideBuiltin, "override-builtin", false, "argocd: also bundle the kinds the Argo CD release has built-in health checks for (argocd-cm keys replace them)")
	return cmd
}

type healthBundleOptions struct {
	target, format, namespace, argocdVersion string
	includeIstio, overrideBuiltin            bool
	argocdVersionSet                         bool
}

// healthKinds names the kinds routeguard ships health checks for.
func healthKinds() []string {
	checks, err := health.Builtin()
	if err != nil {
		return nil
	}
	var out []string
	for _, c := range checks {
		out = append(out, c.Kind)
	}
	return out
}

// healthBundle returns the bundle and the notices for stderr.
func healthBundle(o healthBundleOptions) ([]byte, []string, error) {
	checks, err := health.Builtin()
	if err != nil {
		return nil, nil, fail("health bundle: %v", err)
	}
	var out []byte
	var notices []string
	switch o.target {
	case "argocd":
		sel, err := health.SelectForArgoCD(checks, o.argocdVersion, o.overrideBuiltin)
		if err != nil {
			return nil, nil, fail("health bundle: --argocd-version: %v", err)
		}
		switch o.format {
		case "", health.FormatKustomize:
			out, err = health.ArgoCDPatch(sel.Bundle, o.namespace)
		case health.FormatHelm:
			out, err = health.ArgoCDHelmValues(sel.Bundle)
		default:
			return nil, nil, fail("health bundle: --format %q is not one of kustomize, helm for --for argocd", o.format)
		}
		if o.includeIstio {
			return nil, nil, fail("health bundle: --include-istio is for --for flux (the Argo CD checks always include Istio)")
		}
		if o.namespace != "" && o.format == health.FormatHelm {
			return nil, nil, fail("health bundle: --namespace is for the kustomize format (the Helm chart knows its namespace)")
		}
		if err != nil {
			return nil, nil, fail("health bundle: %v", err)
		}
		notices = sel.Notices()
	case "flux":
		if o.namespace != "" {
			return nil, nil, fail("health bundle: --namespace is for --for argocd (the healthCheckExprs block has no metadata)")
		}
		if o.argocdVersionSet || o.overrideBuiltin {
			return nil, nil, fail("health bundle: --argocd-version and --override-builtin are for --for argocd (Flux has no built-in checks for these kinds)")
		}
		if o.format != "" && o.format != health.FormatFlux {
			return nil, nil, fail("health bundle: --format %q is not valid for --for flux (it has one format)", o.format)
		}
		if out, err = health.FluxHealthCheckExprs(checks, o.includeIstio); err != nil {
			return nil, nil, fail("health bundle: %v", err)
		}
	case "":
		return nil, nil, fail("health bundle: --for is required: argocd or flux")
	default:
		return nil, nil, fail("health bundle: --for %q is not argocd or flux", o.target)
	}
	return out, notices, nil
}

func newHealthCheckCommand(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "check FILE|-",
		Short: "Evaluate objects (e.g. kubectl get httproute -o yaml) with the Lua and CEL checks",
		Long: `Evaluates each object of a YAML/JSON stream with the Lua check (as Argo CD runs
it) and its CEL twin (as Flux runs it), and prints the verdicts on stdout.
Exit code 1 when an object is Degraded or Failed (the verdicts are printed too).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runHealthCheck(cmd, env, args[0])
		},
	}
}

func runHealthCheck(cmd *cobra.Command, env *Env, arg string) error {
	ctx := cmd.Context()
	name, data, err := healthReadInput(env, arg)
	if err != nil {
		return fail("health check: %v", err)
	}
	objs, err := manifest.Decode(name, data)
	if err != nil {
		return fail("health check: %v", err)
	}
	if len(objs) == 0 {
		return fail("health check: %s holds no objects", name)
	}
	checks, err := health.Builtin()
	if err != nil {
		return fail("health check: %v", err)
	}
	var b bytes.Buffer
	code := ExitOK
	for _, o := range objs {
		fmt.Fprintf(&b, "%s (%s)\n", textCell(o.String()), textCell(o.Source.String()))
		c, ok := health.Find(checks, o.Group(), o.Kind)
		if !ok {
			fmt.Fprintf(&b, "  no routeguard health check for %s in group %q\n", textCell(o.Kind), o.Group())
			continue
		}
		if err := health.CheckBounds(o.Body); err != nil {
			return fail("health check: %s: %v", o.Source, err)
		}
		v, err := health.EvalLua(ctx, c.Lua, o.Body)
		if err != nil {
			return fail("health check: %s: Lua check failed: %v", o.Source, err)
		}
		fmt.Fprintf(&b, "  argocd (Lua): %s: %s\n", textCell(v.Status), textCell(v.Message))
		ev, err := health.NewEvaluator(c)
		if err != nil {
			return fail("health check: %v", err)
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
			code = ExitFindings
		}
	}
	if err := writeStdout(env, []byte(printable.Lines(b.String()))); err != nil {
		return err
	}
	return exitWith(code)
}

// textCell is repository text on one line of a text output: escaped and
// shortened (printable).
func textCell(s string) string { return printable.Line(printable.Cut(s, 2000)) }

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
	data, err := readLimited(r, name, manifest.DefaultMaxFileBytes)
	return name, data, err
}
