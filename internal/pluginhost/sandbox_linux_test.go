//go:build linux

package pluginhost

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// TestChildrenOfOwnProcess: a child is seen (hasChildren, and by its
// pid in /proc, even when its name holds spaces and parentheses), and no
// longer once it is reaped; with no child at all, hasChildren says so and
// reapOrphans has nothing to read.
func TestChildrenOfOwnProcess(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Fatal(err)
	}
	// comm is the executable's name: one that looks like more fields.
	odd := filepath.Join(t.TempDir(), "a) 1 2 (b")
	if err := os.Symlink(sleep, odd); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(odd, "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	self := os.Getpid()
	if !hasChildren() {
		t.Error("hasChildren is false while a child runs")
	}
	if ppid, ok := readPPID(strconv.Itoa(pid), make([]byte, 512)); !ok || ppid != self {
		t.Errorf("readPPID of the child = %d, %v; want %d", ppid, ok, self)
	}
	if kids := childrenOf(self); !slices.Contains(kids, pid) {
		t.Errorf("childrenOf(self) = %v, without the child %d", kids, pid)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if kids := childrenOf(self); slices.Contains(kids, pid) {
		t.Errorf("childrenOf(self) = %v still holds the reaped child %d", kids, pid)
	}
	if hasChildren() {
		t.Error("hasChildren is true with every child reaped")
	}
}
