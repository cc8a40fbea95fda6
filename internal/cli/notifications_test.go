package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runNotificationsCmd(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	env := &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }}
	code = Execute(context.Background(), append([]string{"notifications"}, args...), env)
	return code, out.String(), errb.String()
}

// The command prints exactly the committed bundles (which compat/argocd runs
// through Argo CD's code), and fails cleanly on bad flags.
func TestNotificationsBundleCommand(t *testing.T) {
	dist := func(name string) string {
		b, err := os.ReadFile(filepath.Join("..", "..", "notifications", "dist", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string // exact, when set
		stderr string // substring, when set
	}{
		{name: "argocd default", args: []string{"bundle", "--for", "argocd"}, stdout: dist("argocd-notifications-cm.patch.yaml")},
		{name: "argocd kustomize-patch", args: []string{"bundle", "--for=argocd", "--format", "kustomize-patch"}, stdout: dist("argocd-notifications-cm.patch.yaml")},
		{name: "argocd helm-values", args: []string{"bundle", "--for", "argocd", "--format", "helm-values"}, stdout: dist("argocd-helm-values.yaml")},
		{name: "argocd helm alias", args: []string{"bundle", "--format", "helm", "--for", "argocd"}, stdout: dist("argocd-helm-values.yaml")},
		{name: "flux", args: []string{"bundle", "--for", "flux"}, stdout: dist("flux-notifications.yaml")},
		{name: "no --for", args: []string{"bundle"}, code: ExitError, stderr: "routeguard: notifications bundle: --for is required: argocd or flux\n"},
		{name: "unknown target", args: []string{"bundle", "--for", "jenkins"}, code: ExitError, stderr: `unknown target "jenkins": use argocd or flux`},
		{name: "format for the wrong target", args: []string{"bundle", "--for", "flux", "--format", "helm-values"}, code: ExitError, stderr: `format "helm-values" is not available for flux: use manifests`},
		{name: "stray argument", args: []string{"bundle", "--for", "argocd", "extra"}, code: ExitError, stderr: "takes no arguments"},
		{name: "unknown flag", args: []string{"bundle", "--for", "argocd", "--colour"}, code: ExitError, stderr: "unknown flag: --colour"},
		{name: "unknown subcommand", args: []string{"send"}, code: ExitError, stderr: `unknown command "send" for "routeguard notifications"`},
		{name: "no subcommand", args: nil, code: ExitError, stderr: "routeguard notifications [command]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runNotificationsCmd(tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tt.code, stderr)
			}
			if tt.code != ExitOK && stdout != "" {
				t.Errorf("failing command printed on stdout: %q", stdout)
			}
			if tt.stdout != "" && stdout != tt.stdout {
				t.Errorf("stdout differs from the committed bundle (%d vs %d bytes)", len(stdout), len(tt.stdout))
			}
			if !strings.Contains(stderr, tt.stderr) {
				t.Errorf("stderr = %q, want it to contain %q", stderr, tt.stderr)
			}
		})
	}
}
