package cli

import (
	"context"
	"io"

	"github.com/routeguard/routeguard/notifications"
)

func init() {
	register(command{
		name:    "notifications",
		summary: "Slack notifications for failed syncs, routing errors and degraded routes: bundle them for Argo CD / Flux",
		run:     runNotifications,
	})
}

const notificationsUsage = `Usage:
  routeguard notifications bundle --for argocd [--format kustomize-patch|helm-values]
  routeguard notifications bundle --for flux

bundle  prints routeguard's notification settings:
        --for argocd: triggers (on-sync-failed, on-comparison-error, on-route-degraded,
          on-sync-succeeded), Slack templates and the slack-webhook service, as a
          strategic-merge patch of argocd-notifications-cm (--format kustomize-patch,
          the default) or as argo-cd Helm chart values (--format helm-values:
          notifications.triggers, notifications.templates, notifications.notifiers).
        --for flux: notification-controller Provider (Slack) and Alerts for the
          Kustomizations and HelmReleases labelled routeguard.io/routing: "true".
`

func runNotifications(_ context.Context, env *Env, args []string) int {
	if len(args) == 0 {
		io.WriteString(env.Stderr, notificationsUsage)
		return ExitError
	}
	switch args[0] {
	case "bundle":
		return runNotificationsBundle(env, args[1:])
	case "-h", "--help", "help":
		io.WriteString(env.Stdout, notificationsUsage)
		return ExitOK
	}
	return failf(env, "notifications: unknown subcommand %q; want bundle", args[0])
}

// formatAliases accepts the shorter names `routeguard health bundle` uses.
var formatAliases = map[string]notifications.Format{
	"kustomize": notifications.FormatKustomizePatch,
	"helm":      notifications.FormatHelmValues,
}

func runNotificationsBundle(env *Env, args []string) int {
	fs := flagSet("notifications bundle", "routeguard notifications bundle --for argocd|flux [--format kustomize-patch|helm-values]", env)
	target := fs.String("for", "", "reconciler to bundle for: argocd or flux")
	format := fs.String("format", "", "argocd: kustomize-patch (argocd-notifications-cm patch, default) or helm-values (argo-cd chart values); flux: manifests (default)")
	if code, done := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() > 0 {
		return failf(env, "notifications bundle takes no arguments, got %q", fs.Args())
	}
	if *target == "" {
		return failf(env, "notifications bundle: --for is required: argocd or flux")
	}
	f := notifications.Format(*format)
	if alias, ok := formatAliases[*format]; ok {
		f = alias
	}
	out, err := notifications.Bundle(notifications.Target(*target), f)
	if err != nil {
		return failf(env, "notifications bundle: %v", err)
	}
	if _, err := env.Stdout.Write(out); err != nil {
		return failf(env, "write bundle: %v", err)
	}
	return ExitOK
}
