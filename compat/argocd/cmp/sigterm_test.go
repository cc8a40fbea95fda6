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
// sends at the request deadline, while generate is provably in the middle
// of rendering: a Helm values file is a FIFO (outside the chart, whose
// loader refuses irregular files) that the test opens for writing once
// routeguard has opened it for reading, and never writes. routeguard must
// exit 2 with nothing on stdout.
func TestSIGTERMStopsCleanly(t *testing.T) {
	root := t.TempDir()
	app := filepath.Join(root, "apps", "backend")
	if err := os.CopyFS(app, os.DirFS(filepath.Join(repoRoot, "examples/apps/backend"))); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(root, "values", "slow.yaml")
	os.MkdirAll(filepath.Dir(fifo), 0o755)
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	bin, err := filepath.EvalSymlinks(filepath.Join(binDir, "routeguard"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "cmp", "generate")
	cmd.Dir = app
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "ARGOCD_APP_NAME=backend", "ARGOCD_APP_NAMESPACE=shop",
		"ARGOCD_APP_SOURCE_PATH=apps/backend", `ARGOCD_APP_PARAMETERS=[{"name":"values-files","array":["../../values/slow.yaml"]}]`}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	// Opening a FIFO for writing without blocking fails (ENXIO) until a
	// reader has it open: poll until routeguard does, or exits.
	var w *os.File
	for w == nil {
		f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if err == nil {
			w = f
			break
		}
		select {
		case err := <-waited:
			t.Fatalf("routeguard exited (%v) before reading the values file: %s", err, stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	defer w.Close()
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
