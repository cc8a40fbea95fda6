// Command argocd-bench prints figures for BENCHMARKS.md ("Argo CD
// repositories"): it generates a repository of N Applications (one
// ApplicationSet git directory generator over apps/*, a third each Helm,
// Kustomize and plain manifests) and, in one run, measures
//
//   - routeguard argocd analyze: whole-cluster render and analysis;
//   - routeguard argocd build: the render alone;
//   - Argo CD v3.5.7's repo-server code (repository.GenerateManifests, with
//     the helm and kustomize binaries it execs) rendering the same
//     Applications, 2 at a time;
//
// each as its own process: wall time, peak RSS (wait4's ru_maxrss: the
// largest of the process and its descendants; a helm or kustomize process
// started with vfork counts its parent's pages, so it is not told apart)
// and the objects rendered.
//
//	go run ./cmd/argocd-bench -routeguard ../../bin/routeguard -tools DIR [-apps 300]
//
// DIR holds the helm and kustomize binaries Argo CD execs.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	log "github.com/sirupsen/logrus"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	repoapiclient "github.com/argoproj/argo-cd/v3/reposerver/apiclient"
	"github.com/argoproj/argo-cd/v3/reposerver/repository"
	"github.com/argoproj/argo-cd/v3/util/git"
)

func main() {
	routeguard := flag.String("routeguard", "", "the routeguard binary")
	tools := flag.String("tools", "", "directory with the helm and kustomize binaries Argo CD execs")
	apps := flag.Int("apps", 300, "Applications to generate")
	argocdRepo := flag.String("argocd-render", "", "(child) render the repository at this path with Argo CD's code")
	workers := flag.Int("workers", 2, "(child) GenerateManifests calls at once")
	flag.Parse()
	if *argocdRepo != "" {
		if err := argocdRender(*argocdRepo, *workers); err != nil {
			fmt.Fprintln(os.Stderr, "argocd-bench:", err)
			os.Exit(1)
		}
		return
	}
	if err := drive(*routeguard, *tools, *apps, *workers); err != nil {
		fmt.Fprintln(os.Stderr, "argocd-bench:", err)
		os.Exit(1)
	}
}

type figure struct {
	name    string
	wall    time.Duration
	maxRSS  int64 // KiB, the largest of the process and its descendants (wait4)
	objects string
}

func drive(routeguard, tools string, n, workers int) error {
	if routeguard == "" || tools == "" {
		return fmt.Errorf("-routeguard and -tools are required")
	}
	tmp, err := os.MkdirTemp("", "argocd-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	repo := filepath.Join(tmp, "repo")
	if err := writeRepo(repo, n); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	path := tools + string(os.PathListSeparator) + os.Getenv("PATH")
	var figs []figure
	for _, c := range []struct {
		name string
		cmd  []string
		objs func(string) string
	}{
		{"routeguard argocd analyze (render + analysis)", []string{routeguard, "argocd", "analyze", repo, "--repo-root", repo, "-o", "json"}, countFindings},
		{"routeguard argocd build (render)", []string{routeguard, "argocd", "build", repo, "--repo-root", repo, "-o", "json"}, countBuilt},
		{fmt.Sprintf("Argo CD repo-server GenerateManifests (render, %d at a time)", workers), []string{self, "-argocd-render", repo, "-workers", fmt.Sprint(workers)}, strings.TrimSpace},
	} {
		cmd := exec.Command(c.cmd[0], c.cmd[1:]...)
		cmd.Env = []string{"PATH=" + path, "HOME=" + tmp}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		start := time.Now()
		out, err := cmd.Output()
		wall := time.Since(start)
		if err != nil && !(strings.HasPrefix(c.name, "routeguard argocd analyze") && cmd.ProcessState.ExitCode() == 1) {
			return fmt.Errorf("%s: %v\n%s", c.name, err, stderr.String())
		}
		ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		figs = append(figs, figure{c.name, wall, ru.Maxrss, c.objs(string(out))})
		if s := lastLine(stderr.String()); strings.HasPrefix(s, "routeguard:") {
			fmt.Fprintf(os.Stderr, "%s: %s\n", c.name, s)
		}
	}
	fmt.Printf("%d Applications (1 ApplicationSet, git directory generator; %d Helm, %d Kustomize, %d plain + the platform app), GOMAXPROCS/cores %d\n\n",
		n+1, (n+2)/3, (n+1)/3, n/3, numCPU())
	fmt.Println("| run | wall | peak RSS | output |")
	fmt.Println("|---|---|---|---|")
	for _, f := range figs {
		fmt.Printf("| %s | %.2f s | %d MB | %s |\n", f.name, f.wall.Seconds(), f.maxRSS/1024, f.objects)
	}
	return nil
}

func numCPU() int { return runtime.NumCPU() }

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

func countBuilt(out string) string {
	var apps []struct {
		Objects []json.RawMessage `json:"objects"`
	}
	if err := json.Unmarshal([]byte(out), &apps); err != nil {
		return "unreadable: " + err.Error()
	}
	objs := 0
	for _, a := range apps {
		objs += len(a.Objects)
	}
	return fmt.Sprintf("%d Applications, %d objects", len(apps), objs)
}

func countFindings(out string) string {
	var v struct {
		Findings []json.RawMessage `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		return fmt.Sprintf("%d bytes of report", len(out))
	}
	return fmt.Sprintf("%d findings", len(v.Findings))
}

// argocdRender renders every Application the ApplicationSet generates
// (one per apps/* directory, as its template says) with the repo-server's
// GenerateManifests, workers at a time, and prints what it rendered.
func argocdRender(repo string, workers int) error {
	log.SetOutput(io.Discard) // a trace line per helm/kustomize exec
	dirs, err := filepath.Glob(filepath.Join(repo, "apps", "*"))
	if err != nil {
		return err
	}
	var objects atomic.Int64
	var firstErr error
	var mu sync.Mutex
	jobs := make(chan string)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for d := range jobs {
				name := filepath.Base(d)
				q := &repoapiclient.ManifestRequest{
					Repo: &v1alpha1.Repository{Repo: benchRepoURL}, Revision: "main", AppName: name, Namespace: name,
					ApplicationSource: &v1alpha1.ApplicationSource{RepoURL: benchRepoURL, Path: "apps/" + name, TargetRevision: "main"},
					KubeVersion:       "1.31.0",
				}
				resp, err := repository.GenerateManifests(context.Background(), d, repo, "main", q, false, git.NoopCredsStore{}, resource.MustParse("0"), nil)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = fmt.Errorf("%s: %w", name, err)
				}
				mu.Unlock()
				if err == nil {
					objects.Add(int64(len(resp.Manifests)))
				}
			}
		}()
	}
	for _, d := range dirs {
		jobs <- d
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	fmt.Printf("%d Applications, %d objects\n", len(dirs), objects.Load())
	return nil
}
