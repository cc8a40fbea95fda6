package precision

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/routeguard/routeguard/test/harness"
)

// aloneBinary returns a copy of the binary in a directory of its own, so
// that routeguard-istio is neither beside it nor on PATH.
func aloneBinary(t *testing.T) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "routeguard")
	if err := os.Link(harness.Binary, dst); err == nil {
		return dst
	}
	in, err := os.Open(harness.Binary)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return dst
}

// A Flux tree of Istio and Flagger objects checked without routeguard-istio
// installed gets a warning: Istio's own analyzers did not run, and the run
// must not read as a full check (it was a note, easy to miss). Not
// parallel: it swaps harness.Binary (the other tests of the package are, and
// run after it).
func TestIstioTreeWithoutPluginWarns(t *testing.T) {
	dir := fixture(t, "flux-istio-flagger")
	old := harness.Binary
	harness.Binary = aloneBinary(t)
	defer func() { harness.Binary = old }()
	r := routeguard(t, dir, "flux", "build", "--all", "clusters/home")
	contains(t, "stderr", r.stderr, "routeguard: warning: the app renders Istio objects, but routeguard-istio is neither beside routeguard nor on PATH")
	lacks(t, "stderr", r.stderr, "routeguard: note: the app renders Istio objects")
}
