package testbed

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Bed is the control plane one test binary shares: every component starts
// on the first test that needs it and stops at the end of the run (Main).
type Bed struct {
	Procs      *Procs
	RepoRoot   string // the routeguard checkout under test
	Routeguard string // its binary

	mu   sync.Mutex
	kube *Kube
	git  *GitServer
	repo *Repo
	sink *SlackSink
	gw   *StandInController
	argo *Argo
	flux *Flux
	errs map[string]error // a component that failed to start fails every test that needs it
}

var (
	bedMu sync.Mutex
	bed   *Bed
)

// Runner is what Main runs: *testing.M, or a test's stand-in for it.
type Runner interface{ Run() int }

// Main runs the tests and then stops every process the test bed started
// and removes its directory — after a failure too, and on SIGINT or SIGTERM
// (Ctrl-C), when it exits 130 or 143. ROUTEGUARD_E2E_KEEP=1 keeps the
// directory (logs of every process) and prints where it is.
func Main(m Runner) int {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		s := <-sig
		fmt.Fprintf(os.Stderr, "e2e: %v: stopping the test bed\n", s)
		teardown()
		if s == syscall.SIGINT {
			os.Exit(130)
		}
		os.Exit(143)
	}()
	code := m.Run()
	teardown()
	return code
}

func teardown() {
	bedMu.Lock()
	b := bed
	bedMu.Unlock()
	if b == nil {
		return
	}
	// Processes first, without b.mu: a test may hold it while it waits for
	// a component to start (Ctrl-C then), and the processes are what must
	// not outlive the run.
	keep := os.Getenv("ROUTEGUARD_E2E_KEEP") == "1"
	if err := b.Procs.Stop(15*time.Second, keep); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: teardown: %v\n", err)
	}
	if keep {
		fmt.Fprintf(os.Stderr, "e2e: test bed kept in %s\n", b.Procs.Root)
	}
	// The in-process servers end with this process anyway; close them when
	// no start is under way.
	if !b.mu.TryLock() {
		return
	}
	defer b.mu.Unlock()
	if b.gw != nil {
		b.gw.Close()
	}
	if b.flux != nil && b.flux.Gateways != nil {
		b.flux.Gateways.Close()
	}
	if b.argo != nil && b.argo.redis != nil {
		b.argo.redis.Close()
	}
	if b.git != nil {
		b.git.Close()
	}
	if b.sink != nil {
		b.sink.Close()
	}
}

// Get returns the shared test bed, making its directory on first use.
func Get(t testing.TB) *Bed {
	t.Helper()
	bedMu.Lock()
	defer bedMu.Unlock()
	if bed != nil {
		return bed
	}
	b, err := newBed(os.Getenv("ROUTEGUARD_E2E_DIR"))
	if err != nil {
		t.Fatalf("test bed: %v", err)
	}
	bed = b
	return b
}

// StartKubeOnly makes the shared test bed and starts etcd and kube-apiserver
// in it, without a test (the teardown test's child process).
func StartKubeOnly() (*Bed, error) {
	bedMu.Lock()
	defer bedMu.Unlock()
	if bed == nil {
		b, err := newBed(os.Getenv("ROUTEGUARD_E2E_DIR"))
		if err != nil {
			return nil, err
		}
		bed = b
	}
	bed.mu.Lock()
	defer bed.mu.Unlock()
	return bed, bed.ensure("kube-apiserver", func() bool { return bed.kube != nil }, func() error {
		k, err := StartKube(context.Background(), bed.Procs, "")
		bed.kube = k
		return err
	})
}

func newBed(parent string) (*Bed, error) {
	root, err := RepoRoot()
	if err != nil {
		return nil, err
	}
	rg, err := Routeguard()
	if err != nil {
		return nil, err
	}
	procs, err := NewProcs(parent)
	if err != nil {
		return nil, err
	}
	return &Bed{Procs: procs, RepoRoot: root, Routeguard: rg, errs: map[string]error{}}, nil
}

// ensure runs one component's start once; its error is kept, so every test
// that needs the component fails with it.
func (b *Bed) ensure(name string, started func() bool, run func() error) error {
	if err := b.errs[name]; err != nil {
		return fmt.Errorf("%s did not start: %w", name, err)
	}
	if started() {
		return nil
	}
	begin := time.Now()
	if err := run(); err != nil {
		b.errs[name] = err
		return fmt.Errorf("%s did not start: %w", name, err)
	}
	fmt.Fprintf(os.Stderr, "e2e: %s started in %.1fs\n", name, time.Since(begin).Seconds())
	return nil
}

func (b *Bed) start(t testing.TB, name string, started func() bool, run func() error) {
	t.Helper()
	if err := b.ensure(name, started, run); err != nil {
		t.Fatal(err)
	}
}

// Kube starts (once) etcd, kube-apiserver and routeguard's bundled CRDs.
func (b *Bed) Kube(t testing.TB) *Kube {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	b.kubeLocked(t)
	return b.kube
}

func (b *Bed) kubeLocked(t testing.TB) {
	t.Helper()
	b.start(t, "kube-apiserver", func() bool { return b.kube != nil }, func() error {
		k, err := StartKube(context.Background(), b.Procs, "")
		if err != nil {
			return err
		}
		if err := InstallBundledCRDs(context.Background(), k, b.RepoRoot, "experimental"); err != nil {
			return err
		}
		b.kube = k
		return nil
	})
}

// Repo starts (once) the loopback Git server serving the example repository
// (examples/ of the checkout, at the same path) and the stand-in gateway
// controller (paused).
func (b *Bed) Repo(t testing.TB) *Repo {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	b.repoLocked(t)
	return b.repo
}

func (b *Bed) repoLocked(t testing.TB) {
	t.Helper()
	b.start(t, "git server", func() bool { return b.repo != nil }, func() error {
		g, err := StartGitServer(filepath.Join(b.Procs.Root, "git"))
		if err != nil {
			return err
		}
		b.git = g
		// The examples' repository URL points at the loopback server, as a
		// team that forks the example repository points it at theirs.
		url := g.URL + "/shop-gitops.git"
		r, err := g.NewRepo("shop-gitops", filepath.Join(b.Procs.Root, "work", "shop-gitops"), func(dir string) error {
			return CopyTree(filepath.Join(b.RepoRoot, "examples"), filepath.Join(dir, "examples"), ExampleURL, url)
		})
		if err != nil {
			return err
		}
		b.repo = r
		return nil
	})
}

// Sink starts (once) the Slack stand-in.
func (b *Bed) Sink(t testing.TB) *SlackSink {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	b.sinkLocked(t)
	return b.sink
}

func (b *Bed) sinkLocked(t testing.TB) {
	t.Helper()
	b.start(t, "slack sink", func() bool { return b.sink != nil }, func() error {
		s, err := StartSlackSink()
		b.sink = s
		return err
	})
}

// Gateways starts (once) the stand-in gateway controller, paused.
func (b *Bed) Gateways(t testing.TB) *StandInController {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	b.kubeLocked(t)
	if b.gw == nil {
		b.gw = StartStandInController(b.kube)
	}
	return b.gw
}

// FreshKube starts another etcd and kube-apiserver (names prefixed with
// name+"-"), with routeguard's bundled CRDs of channel, for a test that
// needs an API server no other test has written to. It stops with the bed.
func (b *Bed) FreshKube(t testing.TB, name, channel string) *Kube {
	t.Helper()
	k, err := StartKube(context.Background(), b.Procs, name+"-")
	if err != nil {
		t.Fatal(err)
	}
	if err := InstallBundledCRDs(context.Background(), k, b.RepoRoot, channel); err != nil {
		t.Fatal(err)
	}
	return k
}
