package testbed

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Procs starts the test bed's processes, each in a directory of its own under
// Root, and stops every one of them by PID (its whole process group) on
// Stop. The PIDs are also written to Root/pids, so a test can check that
// none outlives Stop.
type Procs struct {
	Root string // removed by Stop

	mu      sync.Mutex
	procs   []*Proc
	stopped bool
}

// Proc is one started process.
type Proc struct {
	Name string
	Dir  string // its own directory (working directory, log)
	Log  string // stdout and stderr
	Cmd  *exec.Cmd

	done chan struct{}
	err  error
}

// NewProcs makes the root directory under parent (os.TempDir when empty).
// Directories of earlier runs whose owner is gone (killed before its
// teardown: a `go test -timeout` panic, SIGKILL) are removed first.
func NewProcs(parent string) (*Procs, error) {
	if parent == "" {
		parent = os.TempDir()
	}
	removeStaleRoots(parent)
	root, err := os.MkdirTemp(parent, "routeguard-e2e-")
	if err != nil {
		return nil, fmt.Errorf("test bed directory: %w", err)
	}
	if err := os.WriteFile(filepath.Join(root, "owner"), []byte(strconv.Itoa(os.Getpid())), 0o600); err != nil {
		return nil, err
	}
	return &Procs{Root: root}, nil
}

// StartOptions says how to start one process.
type StartOptions struct {
	Name string   // unique: the directory's name
	Path string   // the binary
	Args []string // arguments (Args[0] is not the program name)
	Env  []string // added to a minimal environment (PATH, HOME=its directory)
	// Argv0 is the name the process sees as os.Args[0] (Argo CD's multi-call
	// binary picks its component by it); default: Path.
	Argv0 string
}

// Start starts a process. It runs in its own process group (so Stop ends
// what it starts too) and dies with this process (Pdeathsig).
func (p *Procs) Start(o StartOptions) (*Proc, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return nil, errors.New("test bed is stopped")
	}
	dir := filepath.Join(p.Root, o.Name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	logPath := filepath.Join(dir, "log")
	log, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(o.Path, o.Args...)
	if o.Argv0 != "" {
		cmd.Args[0] = o.Argv0
	}
	cmd.Dir = dir
	cmd.Env = append([]string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + dir,
		"TMPDIR=" + dir,
		"LANG=C.UTF-8",
		// Nothing leaves 127.0.0.1: no proxy from the caller's environment.
		"NO_PROXY=*", "no_proxy=*",
	}, o.Env...)
	cmd.Stdout = log
	cmd.Stderr = log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, fmt.Errorf("start %s: %w", o.Name, err)
	}
	proc := &Proc{Name: o.Name, Dir: dir, Log: logPath, Cmd: cmd, done: make(chan struct{})}
	go func() {
		proc.err = cmd.Wait()
		log.Close()
		close(proc.done)
	}()
	p.procs = append(p.procs, proc)
	p.writePIDs()
	return proc, nil
}

// writePIDs records every PID started (Root/pids: "name pid" lines).
func (p *Procs) writePIDs() {
	var b strings.Builder
	for _, pr := range p.procs {
		fmt.Fprintf(&b, "%s %d\n", pr.Name, pr.Cmd.Process.Pid)
	}
	_ = os.WriteFile(filepath.Join(p.Root, "pids"), []byte(b.String()), 0o600)
}

// Exited reports whether the process has ended, and how.
func (pr *Proc) Exited() (bool, error) {
	select {
	case <-pr.done:
		return true, pr.err
	default:
		return false, nil
	}
}

// Tail returns the last n bytes of the process's log, for failure messages.
func (pr *Proc) Tail(n int64) string {
	f, err := os.Open(pr.Log)
	if err != nil {
		return ""
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > n {
		_, _ = f.Seek(st.Size()-n, io.SeekStart)
	}
	b, _ := io.ReadAll(f)
	return string(b)
}

// Stop stops every process: SIGTERM to each process group (newest first:
// controllers before the API server before etcd), then SIGKILL to those
// still running after grace. Then it removes Root, unless keep is set
// (ROUTEGUARD_E2E_KEEP, to read the logs). Safe to call more than once and
// from a signal handler's goroutine.
func (p *Procs) Stop(grace time.Duration, keep bool) error {
	p.mu.Lock()
	if p.stopped {
		p.mu.Unlock()
		return nil
	}
	p.stopped = true
	procs := append([]*Proc(nil), p.procs...)
	p.mu.Unlock()
	for i := len(procs) - 1; i >= 0; i-- {
		_ = syscall.Kill(-procs[i].Cmd.Process.Pid, syscall.SIGTERM)
	}
	deadline := time.After(grace)
	var errs []error
	for i := len(procs) - 1; i >= 0; i-- {
		pr := procs[i]
		select {
		case <-pr.done:
		case <-deadline:
			deadline = closedChan // the grace is spent: kill the rest at once
		}
		if err := pr.kill(); err != nil {
			errs = append(errs, err)
		}
	}
	if !keep {
		if err := os.RemoveAll(p.Root); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

var closedChan = func() chan time.Time { c := make(chan time.Time); close(c); return c }()

// kill ends what is left of the process's group and waits for the process.
func (pr *Proc) kill() error {
	pid := pr.Cmd.Process.Pid
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	select {
	case <-pr.done:
		return nil
	case <-time.After(10 * time.Second):
		return fmt.Errorf("%s (pid %d) did not stop after SIGKILL", pr.Name, pid)
	}
}

// Alive reports whether a process with this PID exists (and is not a zombie).
func Alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// pid (comm) state ...: comm may hold spaces; the state follows the last ')'.
	s := string(stat)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}

// ReadPIDs reads a Root/pids file.
func ReadPIDs(path string) (map[string]int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		name, pid, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		n, err := strconv.Atoi(pid)
		if err != nil {
			return nil, fmt.Errorf("%s: %q: %w", path, line, err)
		}
		out[name] = n
	}
	return out, nil
}

// removeStaleRoots removes routeguard-e2e-* directories whose owner process
// and every process they recorded are gone (Pdeathsig ended those with
// their owner). It signals nothing: a PID may belong to someone else now.
func removeStaleRoots(parent string) {
	dirs, _ := filepath.Glob(filepath.Join(parent, "routeguard-e2e-*"))
	sort.Strings(dirs)
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "owner"))
		if err != nil {
			continue
		}
		owner, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || Alive(owner) {
			continue
		}
		if pids, err := ReadPIDs(filepath.Join(d, "pids")); err == nil {
			live := false
			for _, pid := range pids {
				live = live || Alive(pid)
			}
			if live {
				continue
			}
		}
		_ = os.RemoveAll(d)
	}
}

// waitFor polls check until it returns true or ctx ends; the last error
// check returned is in the failure.
func waitFor(ctx context.Context, every time.Duration, what string, check func() (bool, error)) error {
	var last error
	for {
		ok, err := check()
		if ok {
			return nil
		}
		if err != nil {
			last = err
		}
		select {
		case <-ctx.Done():
			if last != nil {
				return fmt.Errorf("%s: %w (last: %v)", what, ctx.Err(), last)
			}
			return fmt.Errorf("%s: %w", what, ctx.Err())
		case <-time.After(every):
		}
	}
}
