package cli

import "github.com/routeguard/routeguard/internal/action"

// verdictCode is the exit code of an analysis: 2 when a plugin failed
// (plugins.onError: fail; the report keeps every other analyzer's
// findings), 1 when a finding reached the failing severity, else 0.
func verdictCode(v action.Verdict) int {
	switch {
	case v.PluginFailed:
		return ExitError
	case v.Failed:
		return ExitFindings
	}
	return ExitOK
}

// writeStdout writes a command's complete output.
func writeStdout(env *Env, out []byte) error {
	if _, err := env.Stdout.Write(out); err != nil {
		return fail("writing output: %v", err)
	}
	return nil
}
