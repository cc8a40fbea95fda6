package cli

import (
	"github.com/spf13/cobra"

	"github.com/routeguard/routeguard/notifications"
)

func newNotificationsCommand(env *Env) *cobra.Command {
	return group("notifications", "Slack notifications for failed syncs, routing errors and degraded routes: bundle them for Argo CD / Flux",
		newNotificationsBundleCommand(env))
}

// formatAliases accepts the shorter names `routeguard health bundle` uses.
var formatAliases = map[string]notifications.Format{
	"kustomize": notifications.FormatKustomizePatch,
	"helm":      notifications.FormatHelmValues,
}

func newNotificationsBundleCommand(env *Env) *cobra.Command {
	var target, format string
	cmd := &cobra.Command{
		Use:   "bundle --for argocd|flux [--format kustomize-patch|helm-values]",
		Short: "Print routeguard's notification settings for Argo CD or Flux",
		Long: `--for argocd: triggers (on-routeguard-sync-failed,
  on-routeguard-comparison-error, on-routeguard-route-degraded,
  on-routeguard-sync-succeeded: names of their own, so that the bundle leaves
  Argo CD's catalog triggers as they are), templates (Slack, email, Teams and
  a service-neutral message) and the slack-webhook service, as a
  strategic-merge patch of argocd-notifications-cm (--format kustomize-patch,
  the default) or as argo-cd Helm chart values (--format helm-values:
  notifications.triggers, notifications.templates, notifications.notifiers).
--for flux: notification-controller Provider (Slack) and Alerts for the
  Kustomizations and HelmReleases labelled routeguard.io/routing: "true".`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if target == "" {
				return fail("notifications bundle: --for is required: argocd or flux")
			}
			f := notifications.Format(format)
			if alias, ok := formatAliases[format]; ok {
				f = alias
			}
			out, err := notifications.Bundle(notifications.Target(target), f)
			if err != nil {
				return fail("notifications bundle: %v", err)
			}
			return writeStdout(env, out)
		},
	}
	cmd.Flags().StringVar(&target, "for", "", "reconciler to bundle for: argocd or flux")
	cmd.Flags().StringVar(&format, "format", "", "argocd: kustomize-patch (argocd-notifications-cm patch, default) or helm-values (argo-cd chart values); flux: manifests (default)")
	return cmd
}
