//go:build linux

package pluginhost

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
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
//
// It runs when every plugin stops, on the way of every generation: when
// routeguard has no child at all (the plugin reaped, nothing detached)
// there is nothing to look for, and /proc is not read.
func reapOrphans(marker string) {
	self := os.Getpid()
	for range 50 {
		if !hasChildren() {
			return
		}
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

// hasChildren reports whether routeguard has a child process, running or
// not yet reaped (of any kind: __WALL), without reaping it (WNOWAIT). A
// process re-parented to routeguard is its child (the kernel gives it
// SIGCHLD as its exit signal then). Only ECHILD says there is none; any
// other answer counts as a child, so that the scan runs.
func hasChildren() bool {
	var info unix.Siginfo
	err := unix.Waitid(unix.P_ALL, 0, &info, unix.WEXITED|unix.WSTOPPED|unix.WCONTINUED|unix.WNOHANG|unix.WNOWAIT|unix.WALL, nil)
	return err != unix.ECHILD
}

// childrenOf lists the processes whose parent is pid.
func childrenOf(pid int) []int {
	// /proc/<pid>/task/<tid>/children is exact but needs
	// CONFIG_PROC_CHILDREN; scanning /proc works everywhere. Each stat is
	// read into one buffer: the scan reads one file per process on the
	// host.
	dir, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	names, _ := dir.Readdirnames(-1)
	dir.Close()
	var out []int
	var buf [512]byte
	for _, name := range names {
		child, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		if ppid, ok := readPPID(name, buf[:]); ok && ppid == pid {
			out = append(out, child)
		}
	}
	return out
}

// readPPID reads the parent's pid from /proc/<pid>/stat: "pid (comm)
// state ppid ...". comm (a few dozen bytes at most) may hold spaces and
// parentheses: the field comes after the last ')', within the first 512
// bytes.
func readPPID(pid string, buf []byte) (int, bool) {
	fd, err := unix.Open("/proc/"+pid+"/stat", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0, false
	}
	n, err := unix.Read(fd, buf)
	unix.Close(fd)
	if err != nil || n <= 0 {
		return 0, false
	}
	stat := buf[:n]
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, false
	}
	f := bytes.Fields(stat[i+1:])
	if len(f) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(string(f[1]))
	return ppid, err == nil
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
