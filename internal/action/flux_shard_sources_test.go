package action

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSourcesInside: a mapped source directory inside the revision
// passes; one that a symbolic link takes out of it, or that is not
// there, is refused, naming it.
func TestSourcesInside(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "kubernetes", "apps"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "kubernetes", "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("apps", filepath.Join(root, "kubernetes", "in")); err != nil {
		t.Fatal(err)
	}
	src := func(p string) []string {
		return []string{"OCIRepository/flux-system/flux-system=" + filepath.Join(root, p)}
	}
	for _, p := range []string{".", "kubernetes", "kubernetes/in"} {
		if err := sourcesInside(src(p), root); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	for p, want := range map[string]string{"kubernetes/out": "kubernetes/out leads out of the repository through a symbolic link", "kubernetes/none": "kubernetes/none: no such directory"} {
		if err := sourcesInside(src(p), root); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", p, err, want)
		}
	}
}

// TestCheckShardSources: a shard file's sources must be Flux sources on
// clean slash paths inside the repository.
func TestCheckShardSources(t *testing.T) {
	for _, ok := range []string{"OCIRepository/flux-system/flux-system=kubernetes", "GitRepository/a/b=.", "Bucket/a/b=x/y"} {
		if err := checkShardSources([]string{ok}); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"OCIRepository/a/b=../x", "OCIRepository/a/b=/etc", "OCIRepository/a/b=x/../../y", "OCIRepository/a/b=x//y", `OCIRepository/a/b=x\y`, "Secret/a/b=x", "OCIRepository/a=x"} {
		if err := checkShardSources([]string{bad}); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}
