package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/routeguard/routeguard/internal/synth/monorepo"
)

// TestDiffProfile: --profile DIR on a review, on one of its shards and on
// report merge writes the run's profiles into DIR and leaves what the
// command prints as it is.
func TestDiffProfile(t *testing.T) {
	dir, commits := affectedHistory(t, 2, 7)
	flags := []string{"diff", "--base", commits[0].Hash, "--head", commits[len(commits)-1].Hash}
	paths := []string{"apps/" + monorepo.Name(0), "platform"}
	args := append(append(append([]string{}, flags...), "-o", "json"), paths...)
	want, wantErr, wantCode := runIn(t, dir, args...)
	profiles := t.TempDir()
	shardFile := filepath.Join(t.TempDir(), "shard-1.json")
	for _, r := range []struct {
		name string
		args []string
	}{
		{"diff", args},
		{"shard", append(append(append([]string{}, flags...), "--shard", "1/1", "--shard-out", shardFile), paths...)},
		{"merge", []string{"report", "merge", "-o", "json", shardFile}},
	} {
		pdir := filepath.Join(profiles, r.name)
		out, stderr, code := runIn(t, dir, append(r.args, "--profile", pdir)...)
		switch r.name {
		case "diff", "merge":
			if out != want || stderr != wantErr || code != wantCode {
				t.Errorf("%s --profile: exit %d (want %d), output changed %t, stderr %q (want %q)", r.name, code, wantCode, out != want, stderr, wantErr)
			}
		case "shard":
			if code != ExitOK {
				t.Fatalf("shard --profile: exit %d\n%s%s", code, out, stderr)
			}
		}
		for _, f := range []string{"cpu.pprof", "heap.pprof", "memstats.txt"} {
			if st, err := os.Stat(filepath.Join(pdir, f)); err != nil || st.Size() == 0 {
				t.Errorf("%s: %s: %v", r.name, f, err)
			}
		}
	}
}
