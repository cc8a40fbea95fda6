package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/routeguard/routeguard/e2e/testbed"
)

// Scenario 7: the test bed stops every process it started (by PID, each in
// its own process group) and removes its directory — when the tests fail,
// and on Ctrl-C (SIGINT) or SIGTERM. Each case runs this test binary as a
// child that starts etcd and kube-apiserver through the same testbed.Main
// the real run uses, then fails or is signalled.

const (
	teardownChildEnv  = "ROUTEGUARD_E2E_TEARDOWN_CHILD"  // fail | wait
	teardownReportEnv = "ROUTEGUARD_E2E_TEARDOWN_REPORT" // file the child writes its root into
)

// teardownChild is the child's stand-in for testing.M: it starts the
// control plane, says where, and then fails (Run returns 1) or waits to be
// signalled.
type teardownChild string

func (mode teardownChild) Run() int {
	b, err := testbed.StartKubeOnly()
	if err != nil {
		fmt.Fprintln(os.Stderr, "teardown child:", err)
		return 3
	}
	// The report outlives the root: its path, then the PIDs it recorded.
	pids, err := os.ReadFile(filepath.Join(b.Procs.Root, "pids"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "teardown child:", err)
		return 3
	}
	if err := os.WriteFile(os.Getenv(teardownReportEnv), append([]byte(b.Procs.Root+"\n"), pids...), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, "teardown child:", err)
		return 3
	}
	if mode == "fail" {
		fmt.Fprintln(os.Stderr, "teardown child: failing, as a test that fails")
		return 1
	}
	select {} // until signalled
}

func TestTeardown(t *testing.T) {
	cases := []struct {
		name     string
		mode     string
		signal   syscall.Signal // 0: none, the child fails by itself
		wantCode int
	}{
		{name: "tests fail", mode: "fail", wantCode: 1},
		{name: "Ctrl-C", mode: "wait", signal: syscall.SIGINT, wantCode: 130},
		{name: "SIGTERM", mode: "wait", signal: syscall.SIGTERM, wantCode: 143},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			parent := t.TempDir()
			report := filepath.Join(parent, "root")
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), teardownChildEnv+"="+tc.mode, teardownReportEnv+"="+report,
				"ROUTEGUARD_E2E_DIR="+parent, "ROUTEGUARD_E2E_KEEP=")
			var out strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			// The child writes its root once etcd and kube-apiserver are up.
			var root string
			var pids map[string]int
			deadline := time.After(5 * time.Minute)
		wait:
			for {
				select {
				case err := <-done:
					if tc.signal != 0 {
						t.Fatalf("child exited before it was signalled: %v\n%s", err, out.String())
					}
					done <- err
					break wait
				case <-deadline:
					_ = cmd.Process.Kill()
					t.Fatalf("child did not start the control plane:\n%s", out.String())
				case <-time.After(200 * time.Millisecond):
				}
				if r, p, ok := readReport(t, report); ok {
					root, pids = r, p
					break
				}
			}
			if tc.signal != 0 {
				if err := cmd.Process.Signal(tc.signal); err != nil {
					t.Fatal(err)
				}
			}
			err := <-done
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if root == "" {
				r, p, ok := readReport(t, report)
				if !ok {
					t.Fatalf("child wrote no report (exit %d):\n%s", code, out.String())
				}
				root, pids = r, p
			}
			if code != tc.wantCode {
				t.Errorf("child exit code %d, want %d\n%s", code, tc.wantCode, out.String())
			}
			if len(pids) != 2 || pids["etcd"] == 0 || pids["kube-apiserver"] == 0 {
				t.Fatalf("pids recorded = %v, want etcd and kube-apiserver", pids)
			}
			for name, pid := range pids {
				if testbed.Alive(pid) {
					t.Errorf("%s (pid %d) still runs after the child exited", name, pid)
					_ = syscall.Kill(pid, syscall.SIGKILL) // ours: started by the child
				}
			}
			if _, err := os.Stat(root); !os.IsNotExist(err) {
				t.Errorf("test bed directory %s still exists (stat: %v)", root, err)
			}
		})
	}
}

// readReport reads the child's report: its root, then "name pid" lines.
func readReport(t *testing.T, path string) (string, map[string]int, bool) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(b), "\n") {
		return "", nil, false // not written yet (os.WriteFile is not atomic: retry)
	}
	root, rest, _ := strings.Cut(string(b), "\n")
	pidsFile := filepath.Join(t.TempDir(), "pids")
	if err := os.WriteFile(pidsFile, []byte(rest), 0o600); err != nil {
		t.Fatal(err)
	}
	pids, err := testbed.ReadPIDs(pidsFile)
	if err != nil || len(pids) < 2 {
		return "", nil, false
	}
	return root, pids, true
}
