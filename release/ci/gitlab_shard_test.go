package ci

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestGitLabTemplateShardsAndMerge runs the template as a pipeline of a
// parallel:matrix would, in one project: two jobs with shard 1/2 and 2/2
// of a diff, each writing routeguard-shards/shard-I-of-2.json, then a job
// with command merge over them (the artifacts of the jobs it needs): it
// prints the review an unsharded job prints and writes the same Code
// Quality report. A shard file the repository holds is refused.
func TestGitLabTemplateShardsAndMerge(t *testing.T) {
	url := serveRelease(t, false)
	project := newProject(t)
	route := filepath.Join(project, "examples/apps/routing/istio/virtualservice-reviews.yaml")
	data, err := os.ReadFile(route)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(route, []byte(strings.ReplaceAll(string(data), "weight: 90", "weight: 50")), 0o644); err != nil {
		t.Fatal(err)
	}
	paths := "examples/apps/routing/gateways examples/apps/routing/istio examples/apps/routing/ingresses"
	vars := map[string]string{"CI_PIPELINE_SOURCE": "merge_request_event", "CI_MERGE_REQUEST_DIFF_BASE_SHA": "HEAD"}
	job := func(in map[string]string) (int, string) {
		in["version"], in["download-url"] = "v"+releaseVersion, url
		_, code, log := gitlabRunWith(t, gitlabOptions{inputs: in, vars: vars, project: project})
		return code, log
	}
	c, review := routeguardExit(t, project, "diff", "--base", "HEAD", "--fail-on-new", "error", "-o", "markdown", "examples/apps/routing/gateways", "examples/apps/routing/istio", "examples/apps/routing/ingresses")
	if c != 0 || !strings.Contains(string(review), "weight") {
		t.Fatalf("routeguard diff exits %d:\n%s", c, review)
	}
	code, log := job(map[string]string{"command": "diff", "paths": paths})
	fullCQ, _ := os.ReadFile(filepath.Join(project, glCodeQuality))
	if code != 0 || !strings.Contains(log, string(review)) || len(fullCQ) == 0 {
		t.Fatalf("unsharded job: exit %d, review in the log %v, Code Quality %d bytes:\n%s", code, strings.Contains(log, string(review)), len(fullCQ), log)
	}
	// Each shard job starts from the checkout; the artifacts of both are
	// what the merge job finds in routeguard-shards/.
	artifacts := t.TempDir()
	for _, s := range []string{"1/2", "2/2"} {
		code, log := job(map[string]string{"command": "diff", "paths": paths, "shard": s})
		name := "shard-" + strings.ReplaceAll(s, "/", "-of-") + ".json"
		f := filepath.Join(project, "routeguard-shards", name)
		if code != 0 || !strings.Contains(log, " built (") || strings.Contains(log, "<!-- routeguard-diff -->") {
			t.Fatalf("shard %s: exit %d (want 0, a shard line, no review):\n%s", s, code, log)
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatalf("shard %s: %v\n%s", s, err, log)
		}
		if err := os.WriteFile(filepath.Join(artifacts, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.RemoveAll(filepath.Join(project, "routeguard-shards")); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(filepath.Join(project, "routeguard-shards"), os.DirFS(artifacts)); err != nil {
		t.Fatal(err)
	}
	code, log = job(map[string]string{"command": "merge"})
	mergedCQ, _ := os.ReadFile(filepath.Join(project, glCodeQuality))
	if code != 0 || !strings.Contains(log, string(review)) {
		t.Fatalf("merge job: exit %d, the review in the log %v:\n%s", code, strings.Contains(log, string(review)), log)
	}
	if string(mergedCQ) != string(fullCQ) {
		t.Errorf("the merge's Code Quality report differs from the unsharded job's:\n%s\n---\n%s", fullCQ, mergedCQ)
	}
	// A merge request that commits a shard file does not get it merged.
	gitIn(t, project, "add", "-f", "routeguard-shards/shard-1-of-2.json")
	gitIn(t, project, "commit", "-q", "-m", "forged shard")
	code, log = job(map[string]string{"command": "merge"})
	if code != 2 || !strings.Contains(log, "shard-1-of-2.json is a file of the repository, not a shard job's artifact") {
		t.Errorf("a tracked shard file: exit %d, want 2 and a refusal:\n%s", code, log)
	}
	for _, tc := range []struct{ name, command, shard, paths, log string }{
		{"shard past N", "diff", "3/2", ".", "input shard must be I/N with 1 <= I <= N, got '3/2'"},
		{"shard not numbers", "diff", "a/b", ".", "input shard must be I/N (such as 2/4), got 'a/b'"},
		{"shard of analyze", "analyze", "1/2", ".", "input shard is for the diff, flux-diff and argocd-diff commands, not analyze"},
		{"merge of nothing", "merge", "", "examples/apps/routing/gateways", "command merge: no shard file (*.json) in examples/apps/routing/gateways"},
	} {
		code, log := job(map[string]string{"command": tc.command, "shard": tc.shard, "paths": tc.paths})
		if code != 2 || !strings.Contains(log, tc.log) {
			t.Errorf("%s: exit %d, want 2 and %q:\n%s", tc.name, code, tc.log, log)
		}
	}
}

// TestGitLabShardedExampleIncludesTheTemplate: the sharded GitLab example
// includes the template twice with inputs it declares: the shard jobs
// take the matrix's $SHARD, the review job merges, and the shard jobs
// keep routeguard-shards/ as their artifact.
func TestGitLabShardedExampleIncludesTheTemplate(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, "examples/ci/gitlab-template-sharded-review.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var ex struct {
		Include []gitlabInclude `yaml:"include"`
		Shard   struct {
			Parallel struct {
				Matrix []map[string][]string `yaml:"matrix"`
			} `yaml:"parallel"`
			Artifacts struct {
				Paths []string `yaml:"paths"`
			} `yaml:"artifacts"`
		} `yaml:"routeguard-shard"`
		Review struct {
			Needs []string `yaml:"needs"`
		} `yaml:"routeguard-review"`
	}
	if err := yaml.Unmarshal(data, &ex); err != nil {
		t.Fatal(err)
	}
	if len(ex.Include) != 2 {
		t.Fatalf("the example includes %+v", ex.Include)
	}
	jobs := map[string]gitlabJob{}
	for _, inc := range ex.Include {
		if !strings.HasSuffix(inc.Remote, "/templates/routeguard.yml") {
			t.Fatalf("the example includes %s", inc.Remote)
		}
		out, err := readTemplate(t).interpolate(inc.Inputs)
		if err != nil {
			t.Fatal(err)
		}
		var js map[string]gitlabJob
		if err := yaml.Unmarshal([]byte(out), &js); err != nil {
			t.Fatal(err)
		}
		for k, v := range js {
			jobs[k] = v
		}
	}
	shard, review := jobs["routeguard-shard"], jobs["routeguard-review"]
	if shard.Variables["RG_SHARD"] != "$SHARD/4" || shard.Variables["RG_COMMAND"] != "argocd-diff" || review.Variables["RG_COMMAND"] != "merge" {
		t.Errorf("jobs = %+v", jobs)
	}
	if len(ex.Shard.Parallel.Matrix) != 1 || len(ex.Shard.Parallel.Matrix[0]["SHARD"]) != 4 ||
		!slices.Equal(ex.Shard.Artifacts.Paths, []string{"routeguard-shards/"}) || !slices.Equal(ex.Review.Needs, []string{"routeguard-shard"}) {
		t.Errorf("the example's matrix, artifacts or needs: %+v", ex)
	}
}
