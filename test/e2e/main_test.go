// Package e2e runs the routeguard binary as a user does: built once, then
// invoked on the bundled examples and on bad input.
package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

var (
	binary   string // path of the routeguard binary under test
	repoRoot string // the routeguard checkout
)

func TestMain(m *testing.M) {
	_, file, _, _ := runtime.Caller(0)
	repoRoot = filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
	code, err := run(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(code)
}

func run(m *testing.M) (int, error) {
	if b := os.Getenv("ROUTEGUARD_BIN"); b != "" {
		binary = b
		return m.Run(), nil
	}
	dir, err := os.MkdirTemp("", "routeguard-e2e-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	binary = filepath.Join(dir, "routeguard")
	cmd := exec.Command("go", "build", "-o", binary, "./cmd/routeguard")
	cmd.Dir = repoRoot
	if out, err := cmd.CombinedOutput(); err != nil {
		return 0, fmt.Errorf("building routeguard: %v\n%s", err, out)
	}
	return m.Run(), nil
}

type result struct {
	stdout, stderr string
	code           int
}

// routeguard runs the binary in the repository root with a clean
// environment plus env.
func routeguard(t *testing.T, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = repoRoot
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running routeguard: %v", err)
	}
	return result{out.String(), errb.String(), code}
}
