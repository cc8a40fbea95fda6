package cmpcompat

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	log "github.com/sirupsen/logrus"
)

// Plugin names as Applications give them (the socket's name without
// .sock; one argocd-cmp-server each, all in one socket directory).
const (
	pluginShipped    = "routeguard-v1"        // cmp/plugin.yaml as shipped (name routeguard, version v1)
	pluginRenderOnly = "routeguard-render"    // the same without analysis: the benchmark baseline
	pluginBuiltin    = "routeguard-builtin"   // a routeguard without routeguard-istio beside it: built-in analyzers only
	pluginDiscovery  = "routeguard-discovery" // the shipped spec with the opt-in discover block of cmp/discovery
	pluginCreds      = "routeguard-creds"     // shipped spec with provideGitCreds: true
	pluginEnvProbe   = "env-probe"            // reports whether git credentials and an empty ARGOCD_ENV_TEAM reached the plugin
)

var (
	mainRoot string // the main module (routeguard repository)
	repoRoot string // the repository copy streamed to the plugin: <repoRoot>/examples/...
	binDir   string // holds routeguard, put first on the servers' PATH
	sockDir  string
	// installedSockDir and optInSockDir each hold one socket,
	// routeguard-v1.sock, as a repo-server with only routeguard's sidecar
	// sees them: cmp/plugin.yaml as shipped, and cmp/discovery/plugin.yaml
	// (the opt-in rule). Argo CD's discovery asks every socket of the
	// directory, so the coexistence tests use these instead of sockDir.
	installedSockDir string
	optInSockDir     string
	servers          []*exec.Cmd
	serverLog        lockedBuffer
)

// lockedBuffer collects the servers' logs; each server's output is copied
// by its own goroutine.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestMain(m *testing.M) {
	code, err := setup()
	if err != nil {
		fmt.Fprintf(os.Stderr, "cmp compat setup: %v\n%s", err, serverLog.String())
		teardown()
		os.Exit(2)
	}
	code = m.Run()
	teardown()
	if code != 0 {
		fmt.Fprintf(os.Stderr, "argocd-cmp-server logs:\n%s", serverLog.String())
	}
	os.Exit(code)
}

func setup() (int, error) {
	log.SetOutput(io.Discard) // Argo CD's client code logs every step
	wd, err := os.Getwd()
	if err != nil {
		return 0, err
	}
	mainRoot = filepath.Clean(filepath.Join(wd, "..", "..", ".."))
	tmp, err := os.MkdirTemp("", "routeguard-cmp-compat-")
	if err != nil {
		return 0, err
	}
	binDir = filepath.Join(tmp, "bin")
	sockDir = filepath.Join(tmp, "plugins")
	installedSockDir = filepath.Join(tmp, "plugins-installed")
	optInSockDir = filepath.Join(tmp, "plugins-opt-in")
	repoRoot = filepath.Join(tmp, "repo")
	for _, d := range []string{binDir, sockDir, installedSockDir, optInSockDir, repoRoot} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return 0, err
		}
	}
	cmpServer := filepath.Join(binDir, "argocd-cmp-server")
	if err := run(filepath.Join(wd, ".."), "go", "build", "-o", cmpServer, "./cmd/argocd-cmp-server"); err != nil {
		return 0, fmt.Errorf("building Argo CD's argocd-cmp-server: %w", err)
	}
	rg := os.Getenv("ROUTEGUARD_BIN")
	if rg == "" {
		rg = filepath.Join(tmp, "routeguard-built")
		if err := run(mainRoot, "go", "build", "-o", rg, "./cmd/routeguard"); err != nil {
			return 0, fmt.Errorf("building routeguard (set ROUTEGUARD_BIN to skip): %w", err)
		}
	}
	if err := os.Symlink(rg, filepath.Join(binDir, "routeguard")); err != nil {
		return 0, err
	}
	// The repo-server execs kustomize for Kustomize sources (its image
	// ships the binary): the kustomize routeguard embeds, built from the
	// main module, first on this process's PATH.
	if err := run(mainRoot, "go", "build", "-o", filepath.Join(binDir, "kustomize"), "sigs.k8s.io/kustomize/kustomize/v5"); err != nil {
		return 0, fmt.Errorf("building kustomize: %w", err)
	}
	os.Setenv("PATH", binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	// A copy alone in its directory finds no routeguard-istio beside it.
	builtinBin := filepath.Join(tmp, "builtin", "routeguard")
	if err := copyFile(rg, builtinBin); err != nil {
		return 0, err
	}
	// The repository as Argo CD would unpack it: examples/ at its path.
	if err := os.CopyFS(filepath.Join(repoRoot, "examples"), os.DirFS(filepath.Join(mainRoot, "examples"))); err != nil {
		return 0, err
	}
	// Apps that are not routeguard's (a Helm chart, a Kustomize app) beside
	// ones that opt in, for the coexistence tests (testdata/coexist).
	if err := os.CopyFS(filepath.Join(repoRoot, "coexist"), os.DirFS(filepath.Join(wd, "testdata", "coexist"))); err != nil {
		return 0, err
	}
	os.Setenv("ARGOCD_PLUGINSOCKFILEPATH", sockDir) // read by Argo CD's discovery on the client side
	configs := map[string]string{pluginShipped: filepath.Join(mainRoot, "cmp")}
	for name, spec := range map[string]string{
		// The benchmark variants discover like the shipped plugin, so that
		// they differ from it only in what generate does.
		pluginRenderOnly: "generate:\n    command: [routeguard, render, .]\n",
		pluginBuiltin:    "generate:\n    command: [" + builtinBin + ", cmp, generate]\n",
		pluginDiscovery:  "generate:\n    command: [routeguard, cmp, generate]\n" + discoverBlock,
		pluginCreds:      "generate:\n    command: [routeguard, cmp, generate]\n  parameters:\n    dynamic:\n      command: [routeguard, cmp, parameters]\n  provideGitCreds: true\n",
		pluginEnvProbe:   "generate:\n    command: [sh, -c]\n    args: ['printf \"apiVersion: v1\\nkind: ConfigMap\\nmetadata: {name: probe}\\ndata: {creds: \\\"%s\\\", emptyEnv: \\\"%s\\\"}\\n\" $(env | grep -c ^ARGOCD_GIT_AUTH_HEADER=) $(env | grep -cx ARGOCD_ENV_TEAM=)']\n  provideGitCreds: true\n",
	} {
		dir := filepath.Join(tmp, "config-"+name)
		os.MkdirAll(dir, 0o755)
		body := "apiVersion: argoproj.io/v1alpha1\nkind: ConfigManagementPlugin\nmetadata:\n  name: " + name + "\nspec:\n  " + spec
		if err := os.WriteFile(filepath.Join(dir, "plugin.yaml"), []byte(body), 0o644); err != nil {
			return 0, err
		}
		configs[name] = dir
	}
	for name, dir := range configs {
		if err := startServer(cmpServer, name, dir, sockDir, filepath.Join(tmp, "work-"+name)); err != nil {
			return 0, err
		}
	}
	for dir, config := range map[string]string{installedSockDir: filepath.Join(mainRoot, "cmp"), optInSockDir: filepath.Join(mainRoot, "cmp", "discovery")} {
		if err := startServer(cmpServer, pluginShipped, config, dir, filepath.Join(tmp, "work-"+filepath.Base(dir))); err != nil {
			return 0, err
		}
	}
	return 0, nil
}

const discoverBlock = "  discover:\n    find:\n      command: [routeguard, cmp, discover]\n"

func copyFile(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o755)
}

func run(dir string, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%v: %s", err, out)
	}
	return nil
}

// startServer runs argocd-cmp-server as Argo CD's sidecar does, with the
// plugin config in configDir, and waits for its socket name.sock in socks.
func startServer(bin, name, configDir, socks, workDir string) error {
	cmd := exec.Command(bin, "--config-dir-path", configDir, "--loglevel", "warn")
	cmd.Env = append(os.Environ(),
		"PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"),
		"ARGOCD_PLUGINSOCKFILEPATH="+socks,
		"ARGOCD_CMP_WORKDIR="+workDir,
	)
	cmd.Stdout = &serverLog
	cmd.Stderr = &serverLog
	// Die with the test binary, even when a test timeout kills it before
	// teardown runs.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return err
	}
	servers = append(servers, cmd)
	sock := filepath.Join(socks, name+".sock")
	for i := 0; i < 600; i++ {
		if fi, err := os.Stat(sock); err == nil && fi.Mode()&os.ModeSocket != 0 {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("argocd-cmp-server for %s did not create %s", name, sock)
}

// teardown stops the servers. argocd-cmp-server removes its socket on
// SIGTERM but keeps serving until killed, so they are killed outright.
func teardown() {
	for _, s := range servers {
		s.Process.Kill()
		s.Wait()
	}
	if repoRoot != "" {
		os.RemoveAll(filepath.Dir(repoRoot))
	}
}

// requestContext is the repo-server's request deadline (60 s by default).
func requestContext(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}
