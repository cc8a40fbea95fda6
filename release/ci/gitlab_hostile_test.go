package ci

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGitLabReportsNotThroughLinks: the merge request commits every report
// name the job uses or used (routeguard-reports/, the reports GitLab reads,
// the review) as symbolic links to a file or directory outside, and as
// directories (routeguard-reports/ with forged reports in it). The job
// still writes routeguard's own reports into a routeguard-reports/ it
// creates, posts the review, and nothing outside changes.
func TestGitLabReportsNotThroughLinks(t *testing.T) {
	t.Parallel()
	needTools(t)
	names := []string{"gl-code-quality-report.json", "routeguard-junit.xml", "routeguard-diff.md", "routeguard-reports"}
	for _, kind := range []string{"symlink", "directory"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			outside := t.TempDir()
			target := filepath.Join(outside, "marker")
			if err := os.WriteFile(target, []byte("untouched\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			plant := func(project string) {
				for _, n := range names {
					p := filepath.Join(project, n)
					var err error
					switch {
					case kind == "symlink" && n == "routeguard-reports":
						err = os.Symlink(outside, p)
					case kind == "symlink":
						err = os.Symlink(target, p)
					default:
						err = os.Mkdir(p, 0o755)
					}
					if err != nil {
						t.Fatal(err)
					}
				}
				if kind == "directory" {
					for _, n := range []string{glCodeQuality, glJUnit} {
						if err := os.WriteFile(filepath.Join(project, n), []byte("forged\n"), 0o644); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
			in := map[string]string{"version": "v" + releaseVersion, "download-url": serveRelease(t, false), "paths": "examples/broken/dangling-service"}
			untouched := func() {
				t.Helper()
				if data, err := os.ReadFile(target); err != nil || string(data) != "untouched\n" {
					t.Errorf("the file outside was written through a link: %q %v", data, err)
				}
				if entries, _ := os.ReadDir(outside); len(entries) != 1 {
					t.Errorf("files appeared outside: %v", entries)
				}
			}
			project, code, log := gitlabRunWith(t, gitlabOptions{inputs: in, prepare: plant})
			untouched()
			if code != 1 || !strings.Contains(log, "routeguard: the repository holds routeguard-reports; it is removed from this checkout") {
				t.Errorf("job exit %d, want 1 (findings), saying it replaced routeguard-reports:\n%s", code, log)
			}
			if fi, err := os.Lstat(filepath.Join(project, "routeguard-reports")); err != nil || !fi.IsDir() {
				t.Errorf("routeguard-reports: %v, want a directory the job made", err)
			}
			for n, args := range map[string][]string{glCodeQuality: {"-o", "gitlab"}, glJUnit: {"-o", "junit"}} {
				p := filepath.Join(project, n)
				fi, err := os.Lstat(p)
				if err != nil || !fi.Mode().IsRegular() {
					t.Errorf("%s: %v, want a regular file", n, err)
					continue
				}
				data, _ := os.ReadFile(p)
				if _, want := routeguardExit(t, project, append([]string{"analyze", "examples/broken/dangling-service"}, args...)...); string(data) != string(want) {
					t.Errorf("%s is not routeguard's report:\n%s", n, data)
				}
			}

			f := newThread(gitlabAPI)
			srv := f.serve(t)
			code, log, _, review := gitlabDiffWith(t, srv, glDiff{prepare: plant})
			if notes, _ := f.snapshot(); code != 0 || len(notes) != 1 || notes[0].Body != review {
				t.Errorf("diff: job exit %d, notes %+v, want the review posted\n%s", code, notes, log)
			}
			untouched()
		})
	}
}

// TestGitLabNoTokenInEnvironment: routeguard, which reads the repository,
// runs without the job's tokens (CI_JOB_TOKEN and the registry passwords
// that are the same token, ID tokens, ROUTEGUARD_GITLAB_TOKEN, whatever is
// named like a token, password or secret, and CI_REPOSITORY_URL, whose
// value holds the job token), in analyze and in diff mode;
// the job itself still posts the note with ROUTEGUARD_GITLAB_TOKEN.
func TestGitLabNoTokenInEnvironment(t *testing.T) {
	t.Parallel()
	needTools(t)
	dump := filepath.Join(t.TempDir(), "env")
	release := serveWrappedRelease(t, envProbe(dump))
	secrets := map[string]string{"CI_JOB_TOKEN": "job-secret-1", "CI_REGISTRY_PASSWORD": "job-secret-1", "CI_DEPENDENCY_PROXY_PASSWORD": "job-secret-1",
		"CI_JOB_JWT_V2": "jwt-secret-2", "VAULT_ID_TOKEN": "id-secret-3", "AWS_SECRET_ACCESS_KEY": "aws-secret-4",
		"CI_REPOSITORY_URL": "https://gitlab-ci-token:job-secret-1@gitlab.example/octo/repo.git"}
	in := map[string]string{"version": "v" + releaseVersion, "download-url": release, "paths": "examples/broken/dangling-service"}
	if _, code, log := gitlabRunWith(t, gitlabOptions{inputs: in, vars: secrets}); code != 1 {
		t.Fatalf("analyze: job exit %d:\n%s", code, log)
	}
	f := newThread(gitlabAPI)
	srv := f.serve(t)
	code, log, _, _ := gitlabDiffWith(t, srv, glDiff{vars: secrets, release: release})
	if notes, reqs := f.snapshot(); code != 0 || len(notes) != 1 || writes(reqs)[0].auth != "glpat-test-token" {
		t.Fatalf("diff: job exit %d, notes %d:\n%s", code, len(notes), log)
	}
	data, err := os.ReadFile(dump)
	if err != nil || strings.Count(string(data), "RG_COMMAND=") != 2 {
		t.Fatalf("routeguard's environment was not recorded for its 2 runs (analyze, writing every report; diff): %v\n%s", err, data)
	}
	for name, v := range secrets {
		if strings.Contains(string(data), v) {
			t.Errorf("routeguard's environment holds %s", name)
		}
	}
	if strings.Contains(string(data), "glpat-test-token") {
		t.Errorf("routeguard's environment holds ROUTEGUARD_GITLAB_TOKEN")
	}
}
