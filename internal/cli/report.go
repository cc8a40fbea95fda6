package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/routeguard/routeguard/internal/action"
	"github.com/routeguard/routeguard/internal/report"
	"github.com/routeguard/routeguard/internal/routediff"
	"github.com/routeguard/routeguard/internal/shard"
)

func newReportCommand(env *Env) *cobra.Command {
	return group("report", "Work with reviews: merge the shards of a review a CI matrix built",
		newReportMergeCommand(env))
}

func newReportMergeCommand(env *Env) *cobra.Command {
	a := &action.ReportMerge{}
	var d diffReport
	var revs action.DiffOptions
	cmd := &cobra.Command{
		Use:   "merge SHARD...",
		Short: "Join the shard files of 'diff', 'argocd diff' or 'flux diff --shard I/N' into one review",
		Long: `Reads the shard files 'routeguard argocd diff --shard I/N --shard-out FILE'
(or flux diff's, or routeguard diff's) wrote (one per job of a CI matrix, in any order), checks they are the N
shards of one review (format version, the same base and head revisions,
options and N, every shard 1..N once, each Application in the shard its
identity falls in and in one shard only (an app path likewise); each file at most
--max-shard-size MiB), and prints the review: the Applications are found
and adopted again at both revisions with the renders the shards carry
(nothing is rendered), then each revision's cluster is analyzed and the
revisions compared once, over every object, as argocd diff does without
--shard. The output is the same, byte for byte, as that of argocd diff
with the shards' flags and paths and no --shard.

flux diff's shards: the tree is built again at both revisions; each
Kustomization and HelmRelease is taken from the shard that built it from
the same object and the same cluster inputs (its sources, substituteFrom
and valuesFrom), and built here otherwise (a shard left out what it
reads; stderr counts them), then analyzed and compared as flux diff
does: the same review as flux diff without --shard, byte for byte.

routeguard diff's shards: each app path was rendered and analyzed by
its shard, so both revisions are assembled from the outcomes the shards
carry (nothing is rendered or analyzed here) and compared once: the same
review as routeguard diff without --shard, byte for byte.

Run it in a checkout of the repository the shards reviewed (the base is
read from git, the head too when the shards named one; else the work
tree). Output formats, --report, --svg and exit codes as argocd diff
(--fail-on-new, --fail-on-shared-change); a shard file that is not one
of the review is exit 2, naming the file.

A shard file is whatever the job that wrote it says: merge only shard
files written in the same CI run by the same trusted routeguard, never
artifacts of another run (a fork could post any review content).`,
		Example: "  routeguard report merge -o markdown shard-*.json\n  routeguard report merge --report sarif=routeguard.sarif shard-1.json shard-2.json",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			err := d.profiled(env, func() error {
				return d.run(cmd, env, func() (*routediff.Result, error) {
					a.Progress, a.AllHeadFindings = revs.Progress, revs.AllHeadFindings
					return a.Run(cmd.Context(), env.action(), args)
				})
			})
			if a.Taken+a.Built > 0 {
				// flux diff's shards: the review is the unsharded one
				// either way; this says how much work the shards spared.
				fmt.Fprintf(env.Stderr, "routeguard: report merge took %d Kustomization and HelmRelease build(s) from the shards and built %d itself (no shard built them with the inputs the whole tree gives them, or they are the tree's roots)\n", a.Taken, a.Built)
			}
			return err
		},
	}
	d.registerOutput(cmd, &revs)
	cmd.Flags().Int64Var(&a.MaxShardMiB, "max-shard-size", action.DefaultMaxShardMiB, "the largest shard file to read, in MiB")
	return cmd
}

// shardFlags are argocd diff's --shard and --shard-out.
type shardFlags struct {
	spec, out string
}

func (s *shardFlags) register(cmd *cobra.Command, what string) {
	cmd.Flags().StringVar(&s.spec, "shard", "", "build only shard I of N (I/N, such as 2/4) of the "+what+", at both revisions, and write what they rendered to --shard-out for 'routeguard report merge' (no review is printed)")
	cmd.Flags().StringVar(&s.out, "shard-out", "", "with --shard, the shard file to write")
}

// run builds the shard (build: argocd diff's or flux diff's RunShard)
// and writes its file; what names what the shard holds.
func (s *shardFlags) run(cmd *cobra.Command, env *Env, what string, build func(spec shard.Spec) (*action.ShardFile, error)) error {
	if s.spec == "" || s.out == "" {
		return fail("--shard I/N and --shard-out FILE go together")
	}
	spec, err := shard.Parse(s.spec)
	if err != nil {
		return fail("--shard: %v", err)
	}
	for _, f := range []string{"output", "svg", "report", "fail-on-new", "fail-on-shared-change"} {
		if cmd.Flags().Changed(f) {
			return fail("--%s is for the review, which 'routeguard report merge' prints from the shards: give it there", f)
		}
	}
	out := s.out
	if wd, err := env.Getwd(); err == nil && !filepath.IsAbs(out) {
		out = filepath.Join(wd, out)
	}
	f, err := build(spec)
	if err != nil {
		return fail("%v", err)
	}
	data, err := json.Marshal(f)
	if err != nil {
		return fail("--shard-out: %v", err)
	}
	if err := report.WriteFile(out, append(data, '\n')); err != nil {
		return fail("--shard-out: %v", err)
	}
	base, head := f.Built()
	_, err = fmt.Fprintf(env.Stdout, "shard %s: %d %s built (%d at base, %d at head), %d of other shards left out; written to %s\n",
		spec, len(f.Apps), what, base, head, len(f.LeftOut), s.out)
	return err
}
