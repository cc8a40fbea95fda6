package cli

import (
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/routeguard/routeguard/internal/argocd"
	"github.com/routeguard/routeguard/internal/flux"
	"github.com/routeguard/routeguard/internal/progress"
	"github.com/routeguard/routeguard/internal/routediff"
)

// progressFlag is --progress of the long commands; it wins over
// $ROUTEGUARD_PROGRESS.
type progressFlag struct{ mode string }

func (p *progressFlag) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&p.mode, "progress", "", "show progress on stderr: "+strings.Join(progress.Modes, ", ")+
		" (default: $"+progress.EnvVar+", else auto: only when stderr is a terminal)")
}

// meter returns the progress meter of command on env's stderr.
func (p *progressFlag) meter(env *Env, command string) (*progress.Meter, error) {
	s, name := p.mode, "--progress"
	if s == "" && env.Getenv != nil {
		s, name = env.Getenv(progress.EnvVar), progress.EnvVar
	}
	mode, err := progress.ParseMode(s)
	if err != nil {
		return nil, fail("%s: %v", name, err)
	}
	return progress.New(env.Stderr, progress.Options{Mode: mode, Command: command}), nil
}

// appDone counts each Application on m (argocd.Options.Progress).
func appDone(m *progress.Meter) func(*argocd.AppResult) {
	if !m.On() {
		return nil
	}
	return func(a *argocd.AppResult) { m.Done("Application", a.App.Key(), a.Status()) }
}

// nodeDone counts a finished Kustomization or HelmRelease on m.
func nodeDone(m *progress.Meter, e flux.Event) {
	if e.Phase != flux.Finished {
		return
	}
	o := e.Node.Object
	name := o.Name
	if o.Namespace != "" {
		name = o.Namespace + "/" + o.Name
	}
	m.Done(o.Kind, name, e.Node.Status.String())
}

// diffProgress shows a diff on a Meter: one phase per revision, found by
// the directory it is built from (action.DiffProgress).
type diffProgress struct {
	m      *progress.Meter
	phases sync.Map // root -> *progress.Phase
}

func (d *diffProgress) Revisions(base, head routediff.Rev, baseRoot, headRoot string) {
	d.phases.Store(baseRoot, d.m.Phase("base "+revName(base)))
	d.phases.Store(headRoot, d.m.Phase("head "+revName(head)))
}

func (d *diffProgress) Done(root, kind, name, status string) {
	if p, ok := d.phases.Load(root); ok {
		p.(*progress.Phase).Done(kind, name, status)
	}
}

// revName names a revision for progress: "main (1a2b3c4)", "work tree".
func revName(r routediff.Rev) string {
	if r.Hash == "" {
		return r.Name
	}
	return r.Name + " (" + r.Hash[:min(7, len(r.Hash))] + ")"
}

// finish ends m's progress: the summary after a run that completed, only
// the line cleared after one that failed (its error follows).
func finish(m *progress.Meter, err error) {
	if err != nil {
		m.Clear()
		return
	}
	m.Finish()
}
