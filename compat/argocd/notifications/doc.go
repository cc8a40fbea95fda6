// Package notifications tests routeguard's Argo CD notification bundle
// (notifications/dist in the main repository) with the code Argo CD's
// notifications controller runs: Argo CD's settings (template variables app,
// context, secrets and the time, strings and repo helpers), notifications-engine's
// triggers, templates, Slack and webhook services, and Argo CD's controller.
package notifications
