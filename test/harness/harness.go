// Package harness runs the routeguard binary as a user does, for the
// black-box test packages under test/: it is built once per package (or
// taken from $ROUTEGUARD_BIN, as `make test` sets it) and invoked with a
// clean environment.
package harness

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/routeguard/routeguard/test/cachekey"
)

var (
	// Binary is the routeguard binary under test.
	Binary string
	// RepoRoot is the routeguard checkout (where the examples are).
	RepoRoot string
)

// Tests is what Main runs: a *testing.M, or a wrapper that prepares more
// around m.Run once Binary is known.
type Tests interface{ Run() int }

// Main builds routeguard (unless $ROUTEGUARD_BIN names it), runs the tests
// and exits. Call it from TestMain.
func Main(m Tests) {
	_, file, _, _ := runtime.Caller(0)
	RepoRoot = filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
	code, err := run(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(code)
}

func run(m Tests) (int, error) {
	if b := os.Getenv("ROUTEGUARD_BIN"); b != "" {
		Binary = b
		return m.Run(), nil
	}
	dir, err := os.MkdirTemp("", "routeguard-test-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	Binary = filepath.Join(dir, "routeguard")
	cmd := exec.Command("go", "build", "-o", Binary, "./cmd/routeguard")
	cmd.Dir = RepoRoot
	if out, err := cmd.CombinedOutput(); err != nil {
		return 0, fmt.Errorf("building routeguard: %v\n%s", err, out)
	}
	return m.Run(), nil
}

// RecordInputs puts the binary and the checkout it reads into the key of
// Go's test cache (package cachekey): a rebuilt binary or an edited example
// runs the tests again. Command calls it; call it before running the binary
// some other way.
func RecordInputs() {
	if b := os.Getenv("ROUTEGUARD_BIN"); b != "" {
		cachekey.Binary(b) // a test may swap Binary for a copy
	}
	cachekey.Binary(Binary)
	cachekey.Tree(RepoRoot)
}

// Result is what one run printed and its exit code.
type Result struct {
	Stdout, Stderr string
	Code           int
}

// Options of one run.
type Options struct {
	Dir   string    // working directory (default: RepoRoot)
	Env   []string  // KEY=VALUE added to PATH and a temporary HOME
	Stdin io.Reader // standard input (default: none)
	// AddressSpaceMiB, when set, caps the process's virtual memory
	// (ulimit -v), as a container's memory limit would: an allocation past
	// it fails, and the Go runtime crashes with "out of memory" instead of
	// taking the machine's memory.
	AddressSpaceMiB int
}

// Command returns the command Run would run, not started.
func Command(t testing.TB, o Options, args ...string) *exec.Cmd {
	t.Helper()
	RecordInputs()
	cmd := exec.Command(Binary, args...)
	if o.AddressSpaceMiB > 0 {
		cmd = exec.Command("/bin/sh", append([]string{"-c", fmt.Sprintf(`ulimit -v %d && exec "$0" "$@"`, o.AddressSpaceMiB<<10), Binary}, args...)...)
	}
	cmd.Dir = o.Dir
	if cmd.Dir == "" {
		cmd.Dir = RepoRoot
	}
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, o.Env...)
	cmd.Stdin = o.Stdin
	return cmd
}

// Run runs the binary with args.
func Run(t testing.TB, o Options, args ...string) Result {
	t.Helper()
	cmd := Command(t, o, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running routeguard: %v", err)
	}
	return Result{out.String(), errb.String(), code}
}
