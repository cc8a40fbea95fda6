package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/routeguard/routeguard/internal/action"
	"github.com/routeguard/routeguard/internal/health"
)

func newHealthCommand(env *Env) *cobra.Command {
	return group("health", "Health checks for routes and gateways: bundle them for Argo CD / Flux, or check an object",
		newHealthBundleCommand(env), newHealthCheckCommand(env))
}

func newHealthBundleCommand(env *Env) *cobra.Command {
	a := &action.HealthBundle{}
	cmd := &cobra.Command{
		Use:   "bundle --for argocd|flux",
		Short: "Print the health checks as an argocd-cm patch, argo-cd chart values, or Flux healthCheckExprs",
		Long: `Prints the health checks for ` + strings.Join(action.HealthKinds(), ", ") + `
as an argocd-cm Kustomize patch (--format kustomize, the default), as argo-cd
Helm chart values (--format helm), or as the healthCheckExprs block of a Flux
Kustomization (--for flux).

For Argo CD it leaves out the kinds the Argo CD release (--argocd-version,
default ` + health.TestedArgoCDVersion + `) has built-in checks for, and says so on
stderr; --override-builtin bundles them too (argocd-cm keys replace built-ins).`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			a.ArgoCDVersionSet = cmd.Flags().Changed("argocd-version")
			res, err := a.Run()
			if err != nil {
				return fail("%v", err)
			}
			for _, n := range res.Notices {
				fmt.Fprintf(env.Stderr, "routeguard health bundle: %s\n", n)
			}
			return writeStdout(env, res.Bundle)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&a.Target, "for", "", "reconciler to bundle for: argocd or flux")
	fs.StringVar(&a.Format, "format", "", "argocd: kustomize (argocd-cm patch, default) or helm (argo-cd chart values); flux: flux (default)")
	fs.BoolVar(&a.IncludeIstio, "include-istio", false, "flux: include the Istio kinds (only with PILOT_ENABLE_STATUS=true on istiod)")
	fs.StringVar(&a.Namespace, "namespace", "", "argocd kustomize: namespace to put in the patch, when the base argocd-cm names one (Argo CD's install.yaml does not)")
	fs.StringVar(&a.ArgoCDVersion, "argocd-version", health.TestedArgoCDVersion, "argocd: the Argo CD release the bundle is for; kinds it has built-in health checks for are left out")
	fs.BoolVar(&a.OverrideBuiltin, "override-builtin", false, "argocd: also bundle the kinds the Argo CD release has built-in health checks for (argocd-cm keys replace them)")
	return cmd
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
			res, err := action.HealthCheck{}.Run(cmd.Context(), env.action(), args[0])
			if err != nil {
				return fail("%v", err)
			}
			if err := writeStdout(env, res.Report); err != nil {
				return err
			}
			if res.Degraded {
				return exitWith(ExitFindings)
			}
			return nil
		},
	}
}
