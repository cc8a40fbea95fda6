package confine

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestObserve: what a trace compares between trees. A FIFO is seen as
// such without blocking; .git is left out of listings (exported revisions
// have none); the same bytes elsewhere are the same content.
func TestObserve(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	for _, d := range []string{a, b} {
		os.MkdirAll(filepath.Join(d, "app"), 0o755)
		os.WriteFile(filepath.Join(d, "app", "x.yaml"), []byte("x: 1\n"), 0o644)
	}
	os.Mkdir(filepath.Join(a, ".git"), 0o755) // a work tree
	if err := syscall.Mkfifo(filepath.Join(b, "app", "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(a, "app", "pipe"), nil, 0o644)
	rb, err := Open(b)
	if err != nil {
		t.Fatal(err)
	}
	defer rb.Close()
	if got := rb.observe(observation{opRead, "app/pipe"}); !strings.Contains(got, "not a file") {
		t.Errorf("a FIFO observed as %q", got)
	}
	tr := NewTrace()
	tr.add(opRead, "app/x.yaml")
	tr.add(opList, ".")
	if same, why := tr.SameIn(a, b); !same {
		t.Errorf("same file and root listing (but .git) seen as different: %s", why)
	}
	tr.add(opList, "app")
	if same, why := tr.SameIn(a, b); same || why != "listing of app" {
		t.Errorf("a FIFO in place of a file not seen in the listing: %v %q", same, why)
	}
	tr = NewTrace()
	tr.add(opRead, "app/pipe")
	if same, _ := tr.SameIn(a, b); same {
		t.Error("a FIFO and an empty file observed as the same")
	}
	tr.Opaque("child process")
	if same, why := tr.SameIn(a, a); same || why != "child process" {
		t.Errorf("an opaque trace: %v %q", same, why)
	}
}

// TestAddUnder: the observations of a trace relative to a directory are
// added under its path, and its opacity with them.
func TestAddUnder(t *testing.T) {
	root := t.TempDir()
	sub := NewTrace()
	sub.Record(ObservedContent, filepath.Join(root, "k"), filepath.Join(root, "k", "apps", "a.yaml"))
	sub.Record(ObservedStat, filepath.Join(root, "k"), filepath.Join(root, "k"))
	into := NewTrace()
	into.AddUnder(sub, "kubernetes")
	got := fmt.Sprint(into.Observations())
	if want := fmt.Sprint([]Observation{{ObservedStat, "kubernetes"}, {ObservedContent, "kubernetes/apps/a.yaml"}}); got != want || into.OpaqueReason() != "" {
		t.Errorf("got %s (opaque %q), want %s", got, into.OpaqueReason(), want)
	}
	sub.Opaque("a child process")
	into.AddUnder(sub, "kubernetes")
	if into.OpaqueReason() != "a child process" {
		t.Errorf("opacity not added: %q", into.OpaqueReason())
	}
}
