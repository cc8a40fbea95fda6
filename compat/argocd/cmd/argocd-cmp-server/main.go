// Command argocd-cmp-server is Argo CD's own Config Management Plugin server,
// built from github.com/argoproj/argo-cd/v3 so that routeguard's plugin can be
// exercised by the exact code that runs in an argocd-repo-server sidecar.
package main

import (
	"os"

	"github.com/argoproj/argo-cd/v3/cmd/argocd-cmp-server/commands"
)

func main() {
	if err := commands.NewCommand().Execute(); err != nil {
		os.Exit(1)
	}
}
