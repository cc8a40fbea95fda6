package cmpcompat

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSIGTERMStopsCleanly sends routeguard the signal argocd-cmp-server
// sends at the request deadline, while generate is in the middle of
// rendering: the chart has a template whose nested ranges run for a
// billion iterations (minutes), so routeguard is still rendering when the
// signal comes. routeguard must exit 2 at once with nothing on stdout.
// (A FIFO as a values file used to hold it; routeguard now refuses
// anything but regular files, docs/security.md.)
func TestSIGTERMStopsCleanly(t *testing.T) {
	root := t.TempDir()
	app := filepath.Join(root, "apps", "backend")
	if err := os.CopyFS(app, os.DirFS(filepath.Join(repoRoot, "examples/apps/backend"))); err != nil {
		t.Fatal(err)
	}
	slow := "{{- range until 1000 }}{{- range until 1000 }}{{- range until 1000 }}{{- end }}{{- end }}{{- end }}\n"
	if err := os.WriteFile(filepath.Join(app, "templates", "slow.yaml"), []byte(slow), 0o644); err != nil {
		t.Fatal(err)
	}
	bin, err := filepath.EvalSymlinks(filepath.Join(binDir, "routeguard"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "cmp", "generate")
	cmd.Dir = app
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "ARGOCD_APP_NAME=backend", "ARGOCD_APP_NAMESPACE=shop",
		"ARGOCD_APP_SOURCE_PATH=apps/backend"}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case err := <-waited:
		t.Fatalf("routeguard exited (%v) before the signal, while the template should still run: %s", err, stderr.String())
	case <-time.After(time.Second):
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err = <-waited
	code := -1
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err == nil {
		code = 0
	}
	if code != 2 || stdout.Len() != 0 || !strings.Contains(stderr.String(), "routeguard: cmp generate stopped before finishing") {
		t.Errorf("after SIGTERM: exit %d, %d bytes on stdout, stderr %q; want exit 2, nothing on stdout and the reason", code, stdout.Len(), stderr.String())
	}
}
