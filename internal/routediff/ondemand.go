package routediff

import (
	"slices"

	"github.com/routeguard/routeguard/internal/confine"
	"github.com/routeguard/routeguard/internal/gitrev"
	"github.com/routeguard/routeguard/internal/pipeline"
)

// A revision exported from git is written on demand (gitrev.OnDemand): of
// its tree only what the review's renders observe, so that a review of a
// few app paths of a large repository (a shard of a CI matrix, a pull
// request touching one app) does not create a file per file of the
// repository. Each render is traced; a render that observed what was not
// written yet (an overlay's base outside its path, a values file) is
// rendered again once it is, until every render saw only what was there:
// then each observation came out as in the full export, and so did the
// render. What a trace cannot vouch for (a child process, contextPaths,
// which the analysis renders untraced, a glob) has the whole revision
// written first.

// maxRounds bounds how often a path is rendered again for what it
// observed; past it, the whole revision is written.
const maxRounds = 6

// rendered is one path's render on one revision.
type rendered struct {
	out   *pipeline.Outcome
	err   error
	trace *confine.Trace
}

// renderAll renders each of todo with render (a trace passed when traced,
// or when the revision is written on demand: od non-nil and not complete)
// and calls done with each final render as it comes. With whole the
// revision is written whole first (what the caller knows the renders
// will want). The results are in todo's order.
func renderAll(todo []string, od *gitrev.OnDemand, traced, whole bool, render func(rel string, t *confine.Trace) (*pipeline.Outcome, error), done func(rel string, err error)) ([]rendered, error) {
	res := make([]rendered, len(todo))
	if od != nil && whole && len(todo) > 0 {
		if err := od.WriteAll(); err != nil {
			return nil, err
		}
	}
	pending := make([]int, len(todo))
	for i := range pending {
		pending[i] = i
	}
	for round := 0; len(pending) > 0; round++ {
		onDemand := od != nil && !od.Complete()
		missing := make([][]string, len(pending))
		all := make([]bool, len(pending))
		eachIndex(len(pending), func(k int) {
			i := pending[k]
			var t *confine.Trace
			if traced || onDemand {
				t = confine.NewTrace()
			}
			out, err := render(todo[i], t)
			res[i] = rendered{out: out, err: err, trace: t}
			if onDemand {
				missing[k], all[k] = wants(od, res[i], round)
				if all[k] || len(missing[k]) > 0 {
					return // rendered again
				}
			}
			if done != nil {
				done(todo[i], err)
			}
		})
		if !onDemand {
			break
		}
		var again []int
		var write []string
		whole := false
		for k, i := range pending {
			if all[k] || len(missing[k]) > 0 {
				again = append(again, i)
				write = append(write, missing[k]...)
				whole = whole || all[k]
			}
		}
		var err error
		if whole {
			err = od.WriteAll()
		} else if len(write) > 0 {
			slices.Sort(write)
			err = od.Write(slices.Compact(write))
		}
		if err != nil {
			return nil, err
		}
		pending = again
	}
	return res, nil
}

// wants is what r's render observed that od has not written (all: the
// whole revision, for what its trace cannot vouch for). Called while no
// write is under way, so it sees what the render saw.
func wants(od *gitrev.OnDemand, r rendered, round int) (missing []string, all bool) {
	if round >= maxRounds || r.trace.OpaqueReason() != "" || hasContextPaths(r.out) {
		return nil, true
	}
	return od.Missing(r.trace.Observations())
}

func hasContextPaths(o *pipeline.Outcome) bool {
	return o != nil && o.Config != nil && len(o.Config.ContextPaths) > 0
}

// writeObserved writes, of od, what the traces observed (the head's
// renders, before the base's are compared with them: confine.Comparer
// looks at each observation in both trees).
func writeObserved(od *gitrev.OnDemand, traces []*confine.Trace) error {
	if od == nil || od.Complete() {
		return nil
	}
	var obs []confine.Observation
	seen := map[confine.Observation]bool{}
	for _, t := range traces {
		for _, o := range t.Observations() {
			if !seen[o] {
				seen[o] = true
				obs = append(obs, o)
			}
		}
	}
	missing, all := od.Missing(obs)
	if all {
		return od.WriteAll()
	}
	return od.Write(missing)
}
