package action

import (
	"fmt"
	"os"

	"github.com/routeguard/routeguard/internal/affected"
)

// ChangedOptions make argocd diff and flux diff build at base only what
// the change can affect (argocd.BuildPair, flux.BuildPair); the review is
// the same as a full one.
type ChangedOptions struct {
	// From is the revision the change is counted from: the base (Base
	// defaults to it; a different Base is an error).
	From string
	// Files is a file listing the changed paths, one per line from the
	// repository root ("-": standard input). Paths the revisions differ
	// in that it does not list are taken too, with a warning.
	Files string
}

// request checks the options (setting revs.Base from From) and reads the
// list.
func (c ChangedOptions) request(env Env, revs *DiffOptions) (affected.Request, error) {
	var po affected.Request
	if c.From != "" {
		if revs.Base != "" && revs.Base != c.From {
			return po, fmt.Errorf("--changed-from %s and --base %s name different revisions; the changes are those between base and head, so give one of them", c.From, revs.Base)
		}
		revs.Base = c.From
	}
	po.Affected = c.From != "" || c.Files != ""
	if c.Files == "" {
		return po, nil
	}
	name, r := "stdin", env.Stdin
	if c.Files != "-" {
		f, err := os.Open(c.Files)
		if err != nil {
			return po, fmt.Errorf("--changed-files: %w", err)
		}
		defer f.Close()
		name, r = c.Files, f
	}
	if r == nil {
		return po, fmt.Errorf("--changed-files -: no standard input")
	}
	list, err := affected.ParseList(r, name)
	if err != nil {
		return po, fmt.Errorf("--changed-files: %w", err)
	}
	po.Listed = list
	return po, nil
}
