package pluginhost

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/routeguard/routeguard/test/cachekey"
)

// bins holds the plugin binaries TestMain builds.
var bins struct {
	dir      string
	test     string // testdata/testplugin
	testOld  string // the same, speaking protocol version 1 (an older SDK)
	teams    string // plugins/examples/team-hosts
	istioErr error
	istio    string // cmd/routeguard-istio, built on first use
	once     sync.Once
}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "routeguard-plugins-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	bins.dir = dir
	bins.test = filepath.Join(dir, "testplugin")
	bins.testOld = filepath.Join(dir, "testplugin-v1")
	bins.teams = filepath.Join(dir, "team-hosts")
	for _, b := range []struct{ out, pkg, ldflags string }{
		{bins.test, "./testdata/testplugin", ""},
		{bins.testOld, "./testdata/testplugin", "-X main.protocol=1"},
		{bins.teams, "../../plugins/examples/team-hosts", ""},
	} {
		if err := goBuild(b.out, b.pkg, b.ldflags); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.RemoveAll(dir)
			os.Exit(2)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// recordPluginSources puts the sources TestMain built the plugins from
// into the key of Go's test cache (package cachekey), which does not see
// what the go build child read: an edited test plugin runs the tests again.
// The tests call it, through shaCache and TeamHostsBinary.
func recordPluginSources() {
	cachekey.Tree("testdata/testplugin")
	cachekey.Tree("../../plugins")
}

func goBuild(out, pkg, ldflags string) error {
	args := []string{"build", "-o", out}
	if ldflags != "" {
		args = append(args, "-ldflags", ldflags)
	}
	cmd := exec.Command("go", append(args, pkg)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
	}
	return nil
}

// istioPlugin builds cmd/routeguard-istio once (it links Istio: slow).
func istioPlugin(t *testing.T) string {
	t.Helper()
	cachekey.Tree("../../cmd/routeguard-istio")
	bins.once.Do(func() {
		bins.istio = filepath.Join(bins.dir, "istio", IstioBinary)
		bins.istioErr = goBuild(bins.istio, "../../cmd/routeguard-istio", "")
	})
	if bins.istioErr != nil {
		t.Fatal(bins.istioErr)
	}
	return bins.istio
}
