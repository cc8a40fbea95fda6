package confine

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// hostile builds a repository next to an "outside" directory holding a
// secret, with every way out the attack catalogue knows.
func hostile(t *testing.T) (repo, secret string) {
	t.Helper()
	base := t.TempDir()
	repo, outside := filepath.Join(base, "repo"), filepath.Join(base, "outside")
	for _, d := range []string{repo + "/app", repo + "/charts/c/templates", repo + "/.git", outside + "/deep"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	secret = filepath.Join(outside, "secret.yaml")
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(secret, "MARKER-SECRET\n")
	write(filepath.Join(outside, "deep", "x.yaml"), "MARKER-SECRET\n")
	write(filepath.Join(repo, "app", "ok.yaml"), "ok\n")
	write(filepath.Join(repo, ".git", "config"), "token MARKER-SECRET\n")
	link := func(target, name string) {
		if err := os.Symlink(target, filepath.Join(repo, name)); err != nil {
			t.Fatal(err)
		}
	}
	link("../../outside/secret.yaml", "app/relative-out.yaml")
	link(secret, "app/absolute-out.yaml")
	link("../../../app", "charts/c/templates/in-repo-dir") // a directory inside, whose own links lead out
	link("/dev/zero", "app/zero.yaml")
	link("/proc/self/environ", "app/environ.yaml")
	link("../../outside/deep", "app/outdir")
	link("ok.yaml", "app/relative-in.yaml")
	link("../.git/config", "app/git-config.yaml")   // actions/checkout's token lives there
	link("../.git", "app/gitdir")                   // a directory symlink into .git
	link("../app/gitdir/config", "charts/git.yaml") // a chain: symlink to a path through a symlinked .git
	if err := syscall.Mkfifo(filepath.Join(repo, "app", "fifo.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	return repo, secret
}

func TestRootRefusesEveryWayOut(t *testing.T) {
	repo, secret := hostile(t)
	r, err := Open(repo)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, tc := range []struct {
		path string
		want error
	}{
		{"app/relative-out.yaml", ErrOutside},
		{"app/absolute-out.yaml", ErrOutside},
		{"charts/c/templates/in-repo-dir/relative-out.yaml", ErrOutside},
		{"app/zero.yaml", ErrOutside},
		{"app/environ.yaml", ErrOutside},
		{"app/outdir/x.yaml", ErrOutside},
		{"app/fifo.yaml", ErrNotRegular},
		{".git/config", ErrGitDir},
		{"app/../.git/config", ErrGitDir},
		{"app/git-config.yaml", ErrGitDir},
		{"app/gitdir/config", ErrGitDir},
		{"charts/git.yaml", ErrGitDir},
		{"../outside/secret.yaml", ErrOutside},
		{secret, ErrOutside},
	} {
		t.Run(tc.path, func(t *testing.T) {
			p := tc.path
			if !filepath.IsAbs(p) {
				p = filepath.Join(repo, p)
			}
			data, err := r.ReadFile(p, 1<<20)
			if err == nil || strings.Contains(string(data), "MARKER") {
				t.Fatalf("read %q (err %v)", data, err)
			}
			if tc.want == ErrOutside && !errors.Is(err, ErrOutside) && !strings.Contains(err.Error(), "outside") {
				t.Fatalf("error %v does not say the path leads outside", err)
			}
			if tc.want != ErrOutside && !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			if strings.Contains(err.Error(), "MARKER") {
				t.Fatalf("error leaks content: %v", err)
			}
		})
	}
	if data, err := r.ReadFile(filepath.Join(repo, "charts/c/templates/in-repo-dir/ok.yaml"), 1<<20); err != nil || string(data) != "ok\n" {
		t.Fatalf("a symlinked directory inside the repository must be readable: %q %v", data, err)
	}
	if data, err := r.ReadFile(filepath.Join(repo, "app/relative-in.yaml"), 1<<20); err != nil || string(data) != "ok\n" {
		t.Fatalf("a symlink inside the repository must be readable: %q %v", data, err)
	}
}

func TestRootSizeLimit(t *testing.T) {
	repo := t.TempDir()
	if err := os.WriteFile(filepath.Join(repo, "big.yaml"), make([]byte, 2048), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(repo)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.ReadFile(filepath.Join(repo, "big.yaml"), 1024); err == nil || !strings.Contains(err.Error(), "over the 1024 bytes limit") {
		t.Fatalf("error %v", err)
	}
	if data, err := r.ReadFile(filepath.Join(repo, "big.yaml"), 2048); err != nil || len(data) != 2048 {
		t.Fatalf("at the limit: %d bytes, %v", len(data), err)
	}
}

func TestWalkFollowsOnlyInside(t *testing.T) {
	repo, _ := hostile(t)
	r, err := Open(repo)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var seen []string
	err = r.Walk(filepath.Join(repo, "charts"), WalkOptions{Follow: true}, func(rel string, fi fs.FileInfo) error {
		seen = append(seen, rel)
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "outside") {
		t.Fatalf("walking into a symlinked directory whose links lead out must fail: %v (saw %v)", err, seen)
	}
	seen = nil
	err = r.Walk(repo, WalkOptions{}, func(rel string, fi fs.FileInfo) error {
		seen = append(seen, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range seen {
		if strings.HasPrefix(s, ".git") || strings.HasPrefix(s, "app/outdir/") {
			t.Fatalf("walk without Follow showed %s", s)
		}
	}
}

// A directory reached through a symlink into .git is neither listed nor
// walked: Helm's .Files.Glob and Kustomize see nothing of it.
func TestRootHidesGitThroughSymlinks(t *testing.T) {
	repo, _ := hostile(t)
	r, err := Open(repo)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if entries, err := r.ReadDir(filepath.Join(repo, "app/gitdir")); !errors.Is(err, ErrGitDir) {
		t.Fatalf("listing app/gitdir (a symlink to .git): %v, %v; want ErrGitDir", entries, err)
	}
	if err := os.Remove(filepath.Join(repo, "charts/c/templates/in-repo-dir")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../../.git", filepath.Join(repo, "charts/c/templates/in-repo-dir")); err != nil {
		t.Fatal(err)
	}
	var seen []string
	err = r.Walk(filepath.Join(repo, "charts"), WalkOptions{Follow: true}, func(rel string, fi fs.FileInfo) error {
		seen = append(seen, rel)
		return nil
	})
	if !errors.Is(err, ErrGitDir) {
		t.Fatalf("walking a chart whose directory is a symlink to .git: %v (saw %v); want ErrGitDir", err, seen)
	}
	for _, s := range seen {
		if strings.HasSuffix(s, "/config") {
			t.Fatalf("the walk reached %s", s)
		}
	}
}
