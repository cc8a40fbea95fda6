//go:build linux

package pluginhost

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

var protectOnce sync.Once

// protectHost runs once, before the first plugin starts:
//
//   - routeguard becomes non-dumpable, so that a plugin (or anything else
//     running as the same user) cannot read routeguard's environment
//     (/proc/<pid>/environ, where Argo CD puts parameters and git
//     credentials) or memory. Root keeps that power (CAP_SYS_PTRACE): the
//     sidecar runs as user 999.
//   - routeguard becomes a child subreaper, so that a plugin's descendants
//     that detach (fork, setsid) are re-parented to routeguard instead of
//     init, where reapOrphans finds and kills them.
func protectHost() {
	protectOnce.Do(func() {
		_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
		_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	})
}

// reapOrphans kills and reaps every process re-parented to routeguard that
// carries a plugin session marker in its environment (sessionEnv, set for
// every plugin routeguard starts and inherited by what it starts), and
// repeats until none is left (killing one re-parents its children).
// Processes routeguard started itself (plugins being waited for, Kustomize's
// helm calls, git) carry no marker and are left alone.
func reapOrphans(marker string) {
	self := os.Getpid()
	for range 50 {
		found := false
		for _, pid := range childrenOf(self) {
			if !hasMarker(pid, marker) {
				continue
			}
			found = true
			_ = syscall.Kill(pid, syscall.SIGKILL)
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(pid, &ws, 0, nil)
		}
		if !found {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// childrenOf lists the processes whose parent is pid.
func childrenOf(pid int) []int {
	// /proc/<pid>/task/<tid>/children is exact but needs
	// CONFIG_PROC_CHILDREN; scanning /proc works everywhere.
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...; comm may hold spaces and parentheses.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(stat[i+1:]))
		if len(f) > 1 {
			if ppid, err := strconv.Atoi(f[1]); err == nil && ppid == pid {
				out = append(out, child)
			}
		}
	}
	return out
}

func hasMarker(pid int, marker string) bool {
	env, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "environ"))
	if err != nil {
		return false
	}
	for _, kv := range bytes.Split(env, []byte{0}) {
		if string(kv) == marker {
			return true
		}
	}
	return false
}
