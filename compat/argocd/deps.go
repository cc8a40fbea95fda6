// Package argocd holds tests that run routeguard's artifacts through Argo CD's
// own code: argocd-cmp-server, the Lua health VM and the notification engine.
package argocd

import (
	_ "github.com/argoproj/argo-cd/v3/cmpserver/apiclient"
	_ "github.com/argoproj/argo-cd/v3/util/lua"
	_ "github.com/argoproj/argo-cd/v3/util/notification/settings"
	_ "github.com/argoproj/notifications-engine/pkg/services"
)
