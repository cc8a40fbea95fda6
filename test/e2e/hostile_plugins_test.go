package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/routeguard/routeguard/test/harness"
)

// A catalog plugin that hangs after forking a child in its process group
// and a detached one (a session of its own) goes with routeguard however
// routeguard ends: --timeout, SIGTERM. The test reads the three PIDs the
// plugin writes and checks that none is left running.
func TestHostilePluginsDieWithRouteguard(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "testplugin")
	build := exec.Command("go", "build", "-o", bin, "./internal/pluginhost/testdata/testplugin")
	build.Dir = harness.RepoRoot
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the test plugin: %v\n%s", err, out)
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	catalog := filepath.Join(t.TempDir(), "plugins.yaml")
	if err := os.WriteFile(catalog, []byte("plugins:\n  items:\n    - name: tp\n      path: "+bin+"\n      sha256: "+hex.EncodeToString(sum[:])+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	setup := func(t *testing.T) (repo, pidFile, tmp string) {
		pidFile = filepath.Join(t.TempDir(), "pids")
		repo, _ = hostileRepo(t, map[string]string{
			"app/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: default}\n",
			".routeguard.yaml": "plugins:\n  timeout: 10m\n  items:\n    - name: tp\n      config: {mode: forkhang, pidFile: " +
				strconv.Quote(pidFile) + "}\n",
		})
		return repo, pidFile, t.TempDir()
	}
	env := func(tmp string) []string { return []string{"ROUTEGUARD_PLUGINS=" + catalog, "TMPDIR=" + tmp} }

	t.Run("timeout", func(t *testing.T) {
		repo, pidFile, tmp := setup(t)
		r := harness.Run(t, harness.Options{Dir: repo, Env: env(tmp)}, "--timeout", "5s", "analyze", "app")
		pids := pluginPIDs(t, pidFile)
		checkClean(t, r, tmp, 2, []string{"stopped after 5s"})
		noneSurvive(t, pids)
	})
	t.Run("SIGTERM", func(t *testing.T) {
		repo, pidFile, tmp := setup(t)
		cmd := harness.Command(t, harness.Options{Dir: repo, Env: env(tmp)}, "analyze", "app")
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the plugin to start its children", func() bool {
			_, err := os.Stat(pidFile)
			return err == nil
		})
		pids := pluginPIDs(t, pidFile)
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		err := cmd.Wait()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		checkClean(t, harness.Result{Stdout: out.String(), Stderr: errb.String(), Code: code}, tmp, 2, []string{"routeguard: analyze stopped before finishing (SIGTERM)"})
		noneSurvive(t, pids)
	})
}

// pluginPIDs reads the plugin's PID file (the two children, then the
// plugin) and makes sure a failing test leaves nothing running.
func pluginPIDs(t *testing.T, pidFile string) []int {
	t.Helper()
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the plugin never got to start its children: %v", err)
	}
	var pids []int
	for _, f := range strings.Fields(string(data)) {
		pid, err := strconv.Atoi(f)
		if err != nil || pid <= 1 {
			t.Fatalf("pid file %q", data)
		}
		pids = append(pids, pid)
	}
	if len(pids) != 3 {
		t.Fatalf("pid file %q: want 3 pids", data)
	}
	t.Cleanup(func() {
		for _, pid := range pids {
			if running(pid) {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	return pids
}

// noneSurvive waits (up to a minute: a kill takes effect asynchronously)
// for each process to be gone or a zombie, and fails naming the survivors.
func noneSurvive(t *testing.T, pids []int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for _, pid := range pids {
		for running(pid) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if running(pid) {
			t.Fatalf("process %d (of %v: child, detached child, plugin) is still running after routeguard exited", pid, pids)
		}
	}
}

// running reports whether pid is a live process (not gone, not a zombie
// waiting to be reaped).
func running(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(stat), ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z'
}
