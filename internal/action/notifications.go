package action

import (
	"errors"
	"fmt"

	"github.com/routeguard/routeguard/notifications"
)

// NotificationsBundle prints routeguard's notification settings for a
// reconciler (routeguard notifications bundle).
type NotificationsBundle struct {
	// Target is argocd or flux; Format one of notifications' formats (or
	// the short names kustomize and helm).
	Target, Format string
}

// formatAliases accepts the shorter names `routeguard health bundle` uses.
var formatAliases = map[string]notifications.Format{
	"kustomize": notifications.FormatKustomizePatch,
	"helm":      notifications.FormatHelmValues,
}

// Run returns the bundle.
func (o *NotificationsBundle) Run() ([]byte, error) {
	if o.Target == "" {
		return nil, errors.New("notifications bundle: --for is required: argocd or flux")
	}
	f := notifications.Format(o.Format)
	if alias, ok := formatAliases[o.Format]; ok {
		f = alias
	}
	out, err := notifications.Bundle(notifications.Target(o.Target), f)
	if err != nil {
		return nil, fmt.Errorf("notifications bundle: %v", err)
	}
	return out, nil
}
