package pluginhost

// allowedEnv are the only variables of routeguard's environment a plugin
// sees. Everything else stays behind: the Argo CD CMP puts the app's
// parameters, ARGOCD_ENV_* values and, with provideGitCreds, git
// credentials in routeguard's environment, and CI adds tokens.
var allowedEnv = []string{"PATH", "HOME", "TMPDIR"}

// pluginEnv builds a plugin's environment from the allowlist. go-plugin
// adds its handshake variables (magic cookie, protocol versions, ports).
func pluginEnv(getenv func(string) string) []string {
	env := []string{}
	for _, k := range allowedEnv {
		if v := getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}
