package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/routeguard/routeguard/internal/resultcache"
)

type cmpRun struct {
	stdout, stderr string
	code           int
}

// TestCMPGenerateCache: with the validation cache ($ROUTEGUARD_CACHE_DIR
// or --cache-dir), cold and warm, cmp generate prints byte for byte what it
// prints without it (manifests, the report of findings, exit code), and
// the warm run reads the results the cold one kept.
func TestCMPGenerateCache(t *testing.T) {
	root := cmpRepo(t)
	apps := []struct {
		app, ns, path string
		params        string
		code          int
	}{
		{"routing-gateways", "gateway-infra", "examples/apps/routing/gateways", "", 0},
		{"frontend-prod", "shop-prod", "examples/apps/frontend/overlays/prod", "", 0},
		{"backend-prod", "shop-prod", "examples/apps/backend", `[{"name":"values-files","array":["values-prod.yaml"]}]`, 0},
		{"reviews", "bookinfo", "examples/apps/reviews", "", 0},
		{"dangling", "checkout", "examples/broken/dangling-service", "", ExitFindings},
	}
	for _, how := range []string{"env", "flag"} {
		cache := filepath.Join(t.TempDir(), "validation")
		for _, a := range apps {
			t.Run(how+"/"+a.app, func(t *testing.T) {
				dir := filepath.Join(root, a.path)
				vars := argoEnv(a.app, a.ns, a.path)
				if a.params != "" {
					vars["ARGOCD_APP_PARAMETERS"] = a.params
				}
				run := func(vars map[string]string, args ...string) cmpRun {
					o, e, c := runCMPIn(context.Background(), dir, vars, append([]string{"cmp", "generate"}, args...)...)
					return cmpRun{o, e, c}
				}
				plain := run(vars)
				if plain.code != a.code {
					t.Fatalf("exit %d, want %d: %s", plain.code, a.code, plain.stderr)
				}
				cached, args := vars, []string{"--cache-dir", cache}
				if how == "env" {
					cached, args = copyVars(vars, "ROUTEGUARD_CACHE_DIR", cache), nil
				}
				before, _ := resultcache.Count(cache, resultcache.Options{})
				if cold := run(cached, args...); cold != plain {
					t.Errorf("cold cache:\n%+v\nwithout:\n%+v", cold, plain)
				}
				after, err := resultcache.Count(cache, resultcache.Options{})
				if err != nil || after <= before {
					t.Errorf("the cold run kept no result (%d before, %d after, %v)", before, after, err)
				}
				packs, _ := filepath.Glob(filepath.Join(cache, "pack-*"))
				if warm := run(cached, args...); warm != plain {
					t.Errorf("warm cache:\n%+v\nwithout:\n%+v", warm, plain)
				}
				// Every result was read back: the warm run wrote no pack.
				if again, _ := filepath.Glob(filepath.Join(cache, "pack-*")); len(again) != len(packs) {
					t.Errorf("the warm run validated again: %d packs, %d after the cold run", len(again), len(packs))
				}
				// --no-cache wins over the variable.
				if off := run(cached, append(args, "--no-cache")...); off != plain {
					t.Errorf("--no-cache:\n%+v\nwithout:\n%+v", off, plain)
				}
			})
		}
	}
}

func copyVars(vars map[string]string, kv ...string) map[string]string {
	out := map[string]string{}
	for k, v := range vars {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

// TestCMPGenerateCacheOnlyWhereNamed: without a directory named, cmp
// generate keeps nothing (not even under $HOME, which in the sidecar is on
// the read-only root file system), and a directory inside the unpacked
// repository is refused with a notice (a pack the repository holds could
// replay results it forged); the manifests are the same.
func TestCMPGenerateCacheOnlyWhereNamed(t *testing.T) {
	root := cmpRepo(t)
	path := "examples/apps/routing/gateways"
	dir := filepath.Join(root, path)
	home := t.TempDir()
	vars := copyVars(argoEnv("gw", "gateway-infra", path), "HOME", home, "XDG_CACHE_HOME", filepath.Join(home, "xdg"))
	want, stderr, code := runCMPIn(context.Background(), dir, vars, "cmp", "generate")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if entries, _ := os.ReadDir(home); len(entries) != 0 {
		t.Errorf("cmp generate wrote into $HOME without a cache directory named: %v", entries)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(filepath.Join(root, "examples"), link); err != nil {
		t.Fatal(err)
	}
	for _, inside := range []string{
		filepath.Join(root, ".cache"),         // the repository's root
		filepath.Join(dir, "cache"),           // the app's directory
		"cache",                               // relative: the app's directory
		filepath.Join(link, "x", "cache"),     // through a link into it
		filepath.Join(root, "examples", ".."), // the root itself
	} {
		got, stderr, code := runCMPIn(context.Background(), dir, copyVars(vars, "ROUTEGUARD_CACHE_DIR", inside), "cmp", "generate")
		if got != want || code != 0 || !strings.Contains(stderr, "validation results are not cached") || !strings.Contains(stderr, "inside the repository") {
			t.Errorf("ROUTEGUARD_CACHE_DIR=%s: exit %d, manifests changed %t, stderr %q", inside, code, got != want, stderr)
		}
	}
	var made []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && (d.Name() == "cache" || d.Name() == ".cache" || strings.HasPrefix(d.Name(), "pack-")) {
			made = append(made, p)
		}
		return nil
	})
	if len(made) > 0 {
		t.Errorf("written inside the repository: %v", made)
	}
}

// TestCMPGenerateCacheConcurrent: generations of several apps at once
// (argocd-cmp-server runs one process per request) share one directory;
// each prints what it prints alone, none notes a damaged cache, and the
// results of all are kept.
func TestCMPGenerateCacheConcurrent(t *testing.T) {
	root := cmpRepo(t)
	cache := filepath.Join(t.TempDir(), "validation")
	apps := [][3]string{
		{"routing-gateways", "gateway-infra", "examples/apps/routing/gateways"},
		{"frontend-prod", "shop-prod", "examples/apps/frontend/overlays/prod"},
		{"reviews", "bookinfo", "examples/apps/reviews"},
	}
	want := map[string]cmpRun{}
	for _, a := range apps {
		o, e, c := runCMPIn(context.Background(), filepath.Join(root, a[2]), argoEnv(a[0], a[1], a[2]), "cmp", "generate")
		want[a[0]] = cmpRun{o, e, c}
	}
	for round := range 2 { // cold, then warm
		var wg sync.WaitGroup
		for range 3 {
			for _, a := range apps {
				wg.Add(1)
				go func() {
					defer wg.Done()
					o, e, c := runCMPIn(context.Background(), filepath.Join(root, a[2]), copyVars(argoEnv(a[0], a[1], a[2]), "ROUTEGUARD_CACHE_DIR", cache), "cmp", "generate")
					if got := (cmpRun{o, e, c}); got != want[a[0]] {
						t.Errorf("round %d, %s: %+v, alone %+v", round, a[0], got, want[a[0]])
					}
				}()
			}
		}
		wg.Wait()
	}
	if n, err := resultcache.Count(cache, resultcache.Options{}); err != nil || n == 0 {
		t.Errorf("%d results kept (%v)", n, err)
	}
}

// TestCMPGenerateProfile: --profile DIR and $ROUTEGUARD_PROFILE write both
// profiles of a generation and leave its output as it is.
func TestCMPGenerateProfile(t *testing.T) {
	root := cmpRepo(t)
	path := "examples/apps/routing/gateways"
	dir := filepath.Join(root, path)
	vars := argoEnv("gw", "gateway-infra", path)
	want, _, _ := runCMPIn(context.Background(), dir, vars, "cmp", "generate")
	flagDir, envDir := filepath.Join(t.TempDir(), "flag"), filepath.Join(t.TempDir(), "env")
	for _, r := range []struct {
		dir  string
		vars map[string]string
		args []string
	}{
		{flagDir, vars, []string{"--profile", flagDir}},
		{envDir, copyVars(vars, "ROUTEGUARD_PROFILE", envDir), nil},
	} {
		got, stderr, code := runCMPIn(context.Background(), dir, r.vars, append([]string{"cmp", "generate"}, r.args...)...)
		if got != want || code != 0 || stderr != "" {
			t.Errorf("%s: exit %d, output changed %t, stderr %q", r.dir, code, got != want, stderr)
		}
		for _, f := range []string{"cpu.pprof", "heap.pprof"} {
			if st, err := os.Stat(filepath.Join(r.dir, f)); err != nil || st.Size() == 0 {
				t.Errorf("%s: %v", f, err)
			}
		}
	}
}
