package cli

import (
	"github.com/spf13/cobra"

	"github.com/routeguard/routeguard/internal/action"
)

func newNotificationsCommand(env *Env) *cobra.Command {
	return group("notifications", "Slack notifications for failed syncs, routing errors and degraded routes: bundle them for Argo CD / Flux",
		newNotificationsBundleCommand(env))
}

func newNotificationsBundleCommand(env *Env) *cobra.Command {
	a := &action.NotificationsBundle{}
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
			out, err := a.Run()
			if err != nil {
				return fail("%v", err)
			}
			return writeStdout(env, out)
		},
	}
	cmd.Flags().StringVar(&a.Target, "for", "", "reconciler to bundle for: argocd or flux")
	cmd.Flags().StringVar(&a.Format, "format", "", "argocd: kustomize-patch (argocd-notifications-cm patch, default) or helm-values (argo-cd chart values); flux: manifests (default)")
	return cmd
}
