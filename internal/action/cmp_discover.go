package action

import (
	"fmt"

	"github.com/routeguard/routeguard/internal/argocdcmp"
)

// CMPDiscover is the discover rule of routeguard's Config Management
// Plugin (discover.find.command): it names what makes the working
// directory a routeguard app.
type CMPDiscover struct{}

// Run returns the match ("" for none).
func (CMPDiscover) Run(env Env) (string, error) {
	cwd, err := env.Getwd()
	if err != nil {
		return "", fmt.Errorf("working directory: %w", err)
	}
	if env.Getenv("ARGOCD_APP_PARAMETERS") != "" {
		// Argo CD sets it only for Applications with a spec.source.plugin block.
		return "spec.source.plugin", nil
	}
	match, err := argocdcmp.Discover(cwd)
	if err != nil {
		return "", fmt.Errorf("discover: %w", err)
	}
	return match, nil
}
