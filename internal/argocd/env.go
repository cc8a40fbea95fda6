package argocd

import (
	"os"
	"strings"
)

// buildEnv is the environment Argo CD's repo-server gives manifest
// generation (newEnv): ${VAR} substitution in Helm parameters, Kustomize
// images and labels, jsonnet variables, and a plugin's environment.
type buildEnv map[string]string

func newBuildEnv(app *Application, src Source, revision string) buildEnv {
	short := func(n int) string {
		if len(revision) > n {
			return revision[:n]
		}
		return revision
	}
	return buildEnv{
		"ARGOCD_APP_NAME":                   app.Name,
		"ARGOCD_APP_NAMESPACE":              app.Spec.Destination.Namespace,
		"ARGOCD_APP_PROJECT_NAME":           app.Spec.Project,
		"ARGOCD_APP_REVISION":               revision,
		"ARGOCD_APP_REVISION_SHORT":         short(7),
		"ARGOCD_APP_REVISION_SHORT_8":       short(8),
		"ARGOCD_APP_SOURCE_REPO_URL":        src.RepoURL,
		"ARGOCD_APP_SOURCE_PATH":            src.Path,
		"ARGOCD_APP_SOURCE_TARGET_REVISION": src.TargetRevision,
	}
}

// Envsubst is Argo CD's Env.Envsubst: os.Expand over these variables
// only ($$ is a literal $; unknown variables expand to "").
func (e buildEnv) Envsubst(s string) string {
	if !strings.Contains(s, "$") {
		return s
	}
	return os.Expand(s, func(k string) string {
		if k == "$" {
			return "$"
		}
		return e[k]
	})
}
