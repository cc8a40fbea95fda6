//go:build unix

package pluginhost

import (
	"os/exec"
	"syscall"
)

// ownGroup starts the plugin in a process group of its own, so that
// killing it also kills what it started (which would otherwise keep its
// stdout open and go-plugin waiting).
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// killGroup kills the plugin's process group.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil && cmd.Process.Pid > 0 {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
