package testbed

import (
	"fmt"
	"net"
	"net/http"
	"net/http/cgi"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// GitServer serves the bare repositories under Dir over HTTP on loopback
// with Git's own `git http-backend` (smart HTTP, read only), run through Go's
// net/http/cgi. source-controller and the repo-server clone from it.
type GitServer struct {
	Dir string // bare repositories: <name>.git
	URL string // http://127.0.0.1:port

	srv *http.Server
}

// StartGitServer serves dir.
func StartGitServer(dir string) (*GitServer, error) {
	git, err := exec.LookPath("git")
	if err != nil {
		return nil, fmt.Errorf("the test bed needs git (git http-backend): %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	h := &cgi.Handler{
		Path: git,
		Args: []string{"http-backend"},
		Env: []string{
			"GIT_PROJECT_ROOT=" + dir,
			"GIT_HTTP_EXPORT_ALL=1",
			"GIT_CONFIG_NOSYSTEM=1",
			"HOME=" + dir,
		},
	}
	g := &GitServer{Dir: dir, URL: "http://" + l.Addr().String(), srv: &http.Server{Handler: h}}
	go func() { _ = g.srv.Serve(l) }()
	return g, nil
}

// Close stops serving.
func (g *GitServer) Close() error { return g.srv.Close() }

// Repo is a working copy whose commits are pushed to a bare repository the
// server serves.
type Repo struct {
	Work string // the working copy
	Bare string
	URL  string // as a client clones it
}

// NewRepo makes <name>.git from the files copyIn puts into the new working
// copy, committed as the first revision of branch main.
func (g *GitServer) NewRepo(name, work string, copyIn func(dir string) error) (*Repo, error) {
	r := &Repo{Work: work, Bare: filepath.Join(g.Dir, name+".git"), URL: g.URL + "/" + name + ".git"}
	if err := os.MkdirAll(work, 0o700); err != nil {
		return nil, err
	}
	if _, err := gitRun("", "init", "-q", "--bare", "-b", "main", r.Bare); err != nil {
		return nil, err
	}
	if _, err := gitRun(work, "init", "-q", "-b", "main"); err != nil {
		return nil, err
	}
	if _, err := gitRun(work, "remote", "add", "origin", r.Bare); err != nil {
		return nil, err
	}
	if err := copyIn(work); err != nil {
		return nil, err
	}
	if _, err := r.Commit("initial: the example repository"); err != nil {
		return nil, err
	}
	return r, nil
}

// Commit commits everything in the working copy and pushes it; it returns
// the new revision.
func (r *Repo) Commit(msg string) (string, error) {
	if _, err := gitRun(r.Work, "add", "-A"); err != nil {
		return "", err
	}
	if _, err := gitRun(r.Work, "commit", "-q", "--allow-empty", "-m", msg); err != nil {
		return "", err
	}
	if _, err := gitRun(r.Work, "push", "-q", "origin", "main"); err != nil {
		return "", err
	}
	return r.Head()
}

// Head is the working copy's revision.
func (r *Repo) Head() (string, error) {
	out, err := gitRun(r.Work, "rev-parse", "HEAD")
	return strings.TrimSpace(out), err
}

// WriteFile writes a file of the working copy (not yet committed).
func (r *Repo) WriteFile(rel, content string) error {
	p := filepath.Join(r.Work, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(content), 0o600)
}

// ReadFile reads a file of the working copy.
func (r *Repo) ReadFile(rel string) (string, error) {
	b, err := os.ReadFile(filepath.Join(r.Work, filepath.FromSlash(rel)))
	return string(b), err
}

func gitRun(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=routeguard e2e", "GIT_AUTHOR_EMAIL=e2e@routeguard.invalid",
		"GIT_COMMITTER_NAME=routeguard e2e", "GIT_COMMITTER_EMAIL=e2e@routeguard.invalid",
	)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("git %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// CopyTree copies the regular files and directories under src into dst
// (symlinks and anything else left out), replacing each old string with its
// new one (strings.Replacer pairs) in the files' contents.
func CopyTree(src, dst string, oldnew ...string) error {
	rep := strings.NewReplacer(oldnew...)
	return filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o700)
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(target, []byte(rep.Replace(string(b))), 0o600)
		}
		return nil
	})
}

// Restore puts the working copy's file rel back as the checkout (repoRoot)
// has it, with the example URL replaced as the copy has it; it removes the
// file when the checkout has none.
func (r *Repo) Restore(repoRoot, rel string) error {
	p := filepath.Join(r.Work, filepath.FromSlash(rel))
	b, err := os.ReadFile(filepath.Join(repoRoot, filepath.FromSlash(rel)))
	if os.IsNotExist(err) {
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			return err
		}
		return nil
	}
	if err != nil {
		return err
	}
	url := strings.TrimSuffix(r.URL, "/shop-gitops.git") + "/shop-gitops.git"
	return os.WriteFile(p, []byte(strings.ReplaceAll(string(b), ExampleURL, url)), 0o600)
}
