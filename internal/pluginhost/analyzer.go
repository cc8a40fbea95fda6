package pluginhost

import (
	"context"
	"fmt"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/plugins/sdk"
)

// Analyzer runs one plugin as an analysis.Analyzer. The process starts
// when the runner calls Analyze and stops when the call returns. A
// failure never reaches the runner (which would drop every analyzer's
// findings): it is recorded on the Session as one error naming the plugin.
type Analyzer struct {
	spec    Spec
	session *Session
	inputs  []manifest.GroupKind
}

var _ analysis.Analyzer = (*Analyzer)(nil)

// Metadata implements analysis.Analyzer. The plugin's own metadata is read
// when it runs; the kinds it reads are not known beforehand.
func (a *Analyzer) Metadata() analysis.Metadata {
	return analysis.Metadata{Name: a.spec.Analyzer, Description: fmt.Sprintf("Runs the plugin %s out of process.", a.spec.Path),
		Inputs: a.inputs}
}

// OutOfProcess implements analysis.OutOfProcess: the runner starts the
// plugin first, while the built-in analyzers run.
func (a *Analyzer) OutOfProcess() bool { return true }

// Analyze implements analysis.Analyzer.
func (a *Analyzer) Analyze(ctx context.Context, c *analysis.Context) error {
	fs, err := a.run(ctx, c)
	if err != nil {
		a.session.fail(&a.spec, err)
		return nil
	}
	for _, f := range fs {
		c.Report(f)
	}
	return nil
}

func (a *Analyzer) run(ctx context.Context, c *analysis.Context) ([]analysis.Finding, error) {
	p, err := start(&a.spec, a.session.getenv)
	if err != nil {
		return nil, err
	}
	defer p.close()
	var md sdk.Metadata
	if err := p.call(ctx, "metadata", func(ctx context.Context) (err error) {
		md, err = p.rpc.Metadata(ctx)
		return err
	}); err != nil {
		return nil, err
	}
	codes, err := checkMetadata(md, a.spec.FirstParty)
	if err != nil {
		return nil, err
	}
	req, err := request(c, &md, a.spec.Config)
	if err != nil {
		return nil, err
	}
	var out []sdk.Finding
	if err := p.call(ctx, "analyze", func(ctx context.Context) (err error) {
		out, err = p.rpc.Analyze(ctx, req)
		return err
	}); err != nil {
		return nil, err
	}
	return findings(c, a.spec.Analyzer, codes, out)
}
