package testbed

import (
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The test bed's own parts that need no control plane binary.

func TestProcsStopEndsGroupsAndRemovesRoot(t *testing.T) {
	procs, err := NewProcs(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal(err)
	}
	// A process that ignores SIGTERM and leaves a child behind in its group.
	p, err := procs.Start(StartOptions{Name: "stubborn", Path: sh, Args: []string{"-c", "trap '' TERM; sleep 300 & echo $! > child; wait"}})
	if err != nil {
		t.Fatal(err)
	}
	var child int
	deadline := time.Now().Add(30 * time.Second)
	for child == 0 && time.Now().Before(deadline) {
		if b, err := os.ReadFile(filepath.Join(p.Dir, "child")); err == nil && strings.TrimSpace(string(b)) != "" {
			child = atoi(t, strings.TrimSpace(string(b)))
		}
		time.Sleep(50 * time.Millisecond)
	}
	if child == 0 {
		t.Fatal("the child did not start")
	}
	pids, err := ReadPIDs(filepath.Join(procs.Root, "pids"))
	if err != nil || pids["stubborn"] != p.Cmd.Process.Pid {
		t.Fatalf("pids file = %v, %v; want stubborn %d", pids, err, p.Cmd.Process.Pid)
	}
	if err := procs.Stop(time.Second, false); err != nil {
		t.Fatal(err)
	}
	if Alive(p.Cmd.Process.Pid) {
		t.Errorf("the process that ignores SIGTERM still runs")
	}
	deadline = time.Now().Add(10 * time.Second)
	for Alive(child) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if Alive(child) {
		t.Errorf("its child %d still runs", child)
	}
	if _, err := os.Stat(procs.Root); !os.IsNotExist(err) {
		t.Errorf("root %s not removed: %v", procs.Root, err)
	}
	if _, err := procs.Start(StartOptions{Name: "late", Path: sh, Args: []string{"-c", "true"}}); err == nil {
		t.Errorf("Start after Stop succeeded")
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			t.Fatalf("not a pid: %q", s)
		}
		n = n*10 + int(c-'0')
	}
	return n
}

func TestGitServerServesCommits(t *testing.T) {
	dir := t.TempDir()
	g, err := StartGitServer(filepath.Join(dir, "srv"))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	r, err := g.NewRepo("demo", filepath.Join(dir, "work"), func(d string) error {
		return os.WriteFile(filepath.Join(d, "a.yaml"), []byte("url: "+ExampleURL+"\n"), 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.WriteFile("b/c.yaml", "kind: Second\n"); err != nil {
		t.Fatal(err)
	}
	head, err := r.Commit("second")
	if err != nil {
		t.Fatal(err)
	}
	clone := filepath.Join(dir, "clone")
	if _, err := gitRun("", "clone", "-q", r.URL, clone); err != nil {
		t.Fatal(err)
	}
	got, err := gitRun(clone, "rev-parse", "HEAD")
	if err != nil || strings.TrimSpace(got) != head {
		t.Fatalf("clone over %s at %q (%v), want %s", r.URL, got, err, head)
	}
	if b, err := os.ReadFile(filepath.Join(clone, "b", "c.yaml")); err != nil || string(b) != "kind: Second\n" {
		t.Errorf("b/c.yaml in the clone = %q, %v", b, err)
	}
}

func TestCopyTreeReplacesTheExampleURL(t *testing.T) {
	src, dst := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "app.yaml"), []byte("repoURL: "+ExampleURL+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := CopyTree(src, dst, ExampleURL, "http://127.0.0.1:1/shop-gitops.git"); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dst, "app.yaml"))
	if string(b) != "repoURL: http://127.0.0.1:1/shop-gitops.git\n" {
		t.Errorf("copied app.yaml = %q", b)
	}
}

func TestSlackSinkAnswersAndRecords(t *testing.T) {
	s, err := StartSlackSink()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	form := url.Values{"channel": {"shop-deploys"}, "text": {"hello"}, "attachments": {`[{"title":"Route degraded: web"}]`}}
	resp, err := http.PostForm(s.URL+"/api/chat.postMessage", form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %s", resp.Status)
	}
	got := s.Matching("Route degraded", "web")
	if len(got) != 1 || got[0].Channel != "shop-deploys" || got[0].Method != "chat.postMessage" || got[0].Text != "hello" {
		t.Errorf("recorded %+v", s.Messages())
	}
	if n := len(s.Matching("Sync failed")); n != 0 {
		t.Errorf("Matching(Sync failed) = %d messages, want 0", n)
	}
}
