package gitrev

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

func commitAll(t *testing.T, r *git.Repository, msg string) plumbing.Hash {
	t.Helper()
	wt, err := r.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		t.Fatal(err)
	}
	sig := &object.Signature{Name: "t", Email: "t@example.com", When: time.Unix(1700000000, 0).UTC()}
	h, err := wt.Commit(msg, &git.CommitOptions{Author: sig, Committer: sig, AllowEmptyCommits: true})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestExportAndDefaultBase(t *testing.T) {
	dir := t.TempDir()
	r, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "app", "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "app", "a.yaml"), []byte("a: 1\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "app", "sub", "b.yaml"), []byte("b: 2\n"), 0o644)
	os.Symlink("a.yaml", filepath.Join(dir, "app", "inside.yaml"))
	os.Symlink("../../etc/passwd", filepath.Join(dir, "app", "outside.yaml"))
	first := commitAll(t, r, "one")
	// A feature branch off master with one more commit: the default base
	// is the merge base, master's commit.
	wt, _ := r.Worktree()
	if err := wt.Checkout(&git.CheckoutOptions{Branch: plumbing.NewBranchReferenceName("feature"), Create: true}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "app", "a.yaml"), []byte("a: 3\n"), 0o644)
	commitAll(t, r, "two")

	repo, err := Open(filepath.Join(dir, "app", "sub"))
	if err != nil {
		t.Fatal(err)
	}
	base, err := repo.DefaultBase()
	if err != nil {
		t.Fatal(err)
	}
	if base.Hash != first.String() || base.Name != "merge-base(HEAD, master)" {
		t.Errorf("default base %+v, want master's commit %s", base, first)
	}
	dest := t.TempDir()
	n, err := repo.Export(base, dest, ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("wrote %d files, want 2", n)
	}
	if data, _ := os.ReadFile(filepath.Join(dest, "app", "a.yaml")); string(data) != "a: 1\n" {
		t.Errorf("a.yaml at base = %q", data)
	}
	if l, err := os.Readlink(filepath.Join(dest, "app", "inside.yaml")); err != nil || l != "a.yaml" {
		t.Errorf("inside link: %q %v", l, err)
	}
	if _, err := os.Lstat(filepath.Join(dest, "app", "outside.yaml")); !os.IsNotExist(err) {
		t.Errorf("a link leaving the tree was written: %v", err)
	}
	if _, err := repo.Export(base, dest, ExportOptions{}); err == nil {
		t.Error("exporting over existing files succeeded")
	}
	if _, err := repo.Export(base, t.TempDir(), ExportOptions{MaxBytes: 4}); err == nil {
		t.Error("a tree over MaxBytes was exported")
	}
	if _, err := repo.Resolve("no-such-branch"); err == nil {
		t.Error("resolved a branch that does not exist")
	}
}

func TestSafePath(t *testing.T) {
	for p, want := range map[string]bool{
		"a/b.yaml": true, "../x": false, "/etc/passwd": false, "a/../../x": false,
		"a/.git/config": false, ".GIT/hooks/x": false, "a\\b": false, "": false, "a//b": false,
	} {
		if got := safePath(p); got != want {
			t.Errorf("safePath(%q) = %v, want %v", p, got, want)
		}
	}
}

func TestUnderLink(t *testing.T) {
	links := map[string]bool{"link": true, "a/b": true}
	for rel, want := range map[string]bool{"real/x.yaml": false, "x.yaml": false, "link": false, "link/x.yaml": true, "a/b/c/d.yaml": true, "a/bc/x.yaml": false} {
		if got := underLink(links, rel); got != want {
			t.Errorf("underLink(%q) = %v, want %v", rel, got, want)
		}
	}
}

// TestExportCraftedTree: a tree holding a symbolic link "escape" (to a
// directory inside the tree, so that it is written) and a directory of the
// same name must not get the directory's files written through the link.
func TestExportCraftedTree(t *testing.T) {
	dir := t.TempDir()
	r, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	st := r.Storer
	blob := func(content string) plumbing.Hash {
		o := st.NewEncodedObject()
		o.SetType(plumbing.BlobObject)
		w, _ := o.Writer()
		w.Write([]byte(content))
		w.Close()
		h, err := st.SetEncodedObject(o)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	tree := func(entries ...object.TreeEntry) plumbing.Hash {
		o := st.NewEncodedObject()
		if err := (&object.Tree{Entries: entries}).Encode(o); err != nil {
			t.Fatal(err)
		}
		h, err := st.SetEncodedObject(o)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	sub := tree(object.TreeEntry{Name: "planted.yaml", Mode: filemode.Regular, Hash: blob("x: 1\n")})
	target := tree(object.TreeEntry{Name: "keep.yaml", Mode: filemode.Regular, Hash: blob("k: 1\n")})
	root := tree(
		object.TreeEntry{Name: "escape", Mode: filemode.Symlink, Hash: blob("target")},
		object.TreeEntry{Name: "escape", Mode: filemode.Dir, Hash: sub},
		object.TreeEntry{Name: "target", Mode: filemode.Dir, Hash: target},
	)
	sig := object.Signature{Name: "t", Email: "t@example.com", When: time.Unix(1700000000, 0).UTC()}
	co := st.NewEncodedObject()
	if err := (&object.Commit{Author: sig, Committer: sig, Message: "crafted", TreeHash: root}).Encode(co); err != nil {
		t.Fatal(err)
	}
	ch, err := st.SetEncodedObject(co)
	if err != nil {
		t.Fatal(err)
	}
	repo, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	rev, err := repo.Resolve(ch.String())
	if err != nil {
		t.Fatal(err)
	}
	dest := t.TempDir()
	if _, err := repo.Export(rev, dest, ExportOptions{}); err == nil || !strings.Contains(err.Error(), "escape/planted.yaml: a parent directory is a symbolic link") {
		t.Errorf("a tree with a link and a directory of the same name: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(dest, "target", "planted.yaml")); !os.IsNotExist(err) {
		t.Errorf("a file was written through the link: %v", err)
	}
	if _, err := repo.ExportOnDemand(rev, t.TempDir(), ExportOptions{}); err == nil || !strings.Contains(err.Error(), "escape: the tree holds two entries of this name") {
		t.Errorf("on demand, a tree with a link and a directory of the same name: %v", err)
	}
}

// TestShallowClone: on a clone cut at depth 1 (GitLab's and actions/
// checkout's default), a base older than the cut says it is a shallow clone
// and what to fetch, and the default base is never HEAD itself compared
// with HEAD.
func TestShallowClone(t *testing.T) {
	src := t.TempDir()
	r, err := git.PlainInit(src, false)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(src, "a.yaml"), []byte("a: 1\n"), 0o644)
	first := commitAll(t, r, "one")
	wt, _ := r.Worktree()
	if err := wt.Checkout(&git.CheckoutOptions{Branch: plumbing.NewBranchReferenceName("feature"), Create: true}); err != nil {
		t.Fatal(err)
	}
	for i, v := range []string{"2", "3"} {
		os.WriteFile(filepath.Join(src, "a.yaml"), []byte("a: "+v+"\n"), 0o644)
		commitAll(t, r, fmt.Sprint("feature ", i))
	}
	// origin's HEAD is master, as a server's default branch.
	if err := wt.Checkout(&git.CheckoutOptions{Branch: plumbing.NewBranchReferenceName("master")}); err != nil {
		t.Fatal(err)
	}
	clone := filepath.Join(t.TempDir(), "clone")
	// git's own shallow clone over the file:// transport (loopback: no
	// network); routeguard reads it with go-git.
	cmd := exec.Command("git", "clone", "--quiet", "--depth", "1", "--no-single-branch", "file://"+src, clone)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git clone --depth 1: %v\n%s", err, out)
	}
	repo, err := Open(clone)
	if err != nil {
		t.Fatal(err)
	}
	if err := exec.Command("git", "-C", clone, "checkout", "--quiet", "feature").Run(); err != nil {
		t.Fatal(err)
	}
	if _, err := repo.Resolve("HEAD"); err != nil {
		t.Fatalf("HEAD of a shallow clone: %v", err)
	}
	_, err = repo.Resolve("HEAD^1")
	if err == nil || !strings.Contains(err.Error(), `revision "HEAD^1" is not in this clone`) || !strings.Contains(err.Error(), "it is a shallow clone") ||
		!strings.Contains(err.Error(), "fetch-depth") || !strings.Contains(err.Error(), "GIT_DEPTH") {
		t.Errorf("HEAD^1 on a shallow clone: %v", err)
	}
	base, err := repo.DefaultBase()
	if err == nil || !strings.Contains(err.Error(), "is not in this clone: it is a shallow clone") {
		t.Errorf("default base on a shallow clone: %+v, %v", base, err)
	}
	// A full clone of the same history has both.
	full := filepath.Join(t.TempDir(), "full")
	if out, err := exec.Command("git", "clone", "--quiet", "--no-single-branch", "-b", "feature", "file://"+src, full).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	if repo, err = Open(full); err != nil {
		t.Fatal(err)
	}
	if _, err := repo.Resolve("HEAD^1"); err != nil {
		t.Errorf("HEAD^1 of a full clone: %v", err)
	}
	if base, err := repo.DefaultBase(); err != nil || base.Hash != first.String() {
		t.Errorf("default base of a full clone: %+v, %v", base, err)
	}
}
