package monorepo

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Commit is one commit of a generated history.
type Commit struct {
	Hash, What string
}

// History writes a git repository into dir (which must be empty): a first
// commit of n apps, then edits commits, each one random Edit (seeded by
// seed). Commit times are fixed, so the hashes are a pure function of the
// arguments.
func History(dir string, n, edits int, seed uint64) ([]Commit, error) {
	r, err := git.PlainInit(dir, false)
	if err != nil {
		return nil, err
	}
	wt, err := r.Worktree()
	if err != nil {
		return nil, err
	}
	repo := New(n)
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	next := n
	what := fmt.Sprintf("%d apps", n)
	var out []Commit
	for i := 0; i <= edits; i++ {
		if i > 0 {
			what = repo.Edit(rng, &next)
		}
		if err := repo.Write(dir); err != nil {
			return nil, err
		}
		if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
			return nil, err
		}
		when := time.Date(2026, 1, 1, 0, i, 0, 0, time.UTC)
		sig := &object.Signature{Name: "gen", Email: "gen@example.com", When: when}
		h, err := wt.Commit(what, &git.CommitOptions{Author: sig, Committer: sig, AllowEmptyCommits: true})
		if err != nil {
			return nil, err
		}
		out = append(out, Commit{Hash: h.String(), What: what})
	}
	return out, nil
}
