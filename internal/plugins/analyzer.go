package plugins

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
	req, err := request(c, a.spec.Config)
	if err != nil {
		return nil, err
	}
	// Encode the objects while the process starts and shakes hands.
	type encoded struct {
		data []byte
		err  error
	}
	enc := make(chan encoded, 1)
	go func() {
		data, err := sdk.EncodeRequest(req)
		enc <- encoded{data, err}
	}()
	p, err := start(&a.spec, a.session.getenv)
	if err != nil {
		<-enc
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
	e := <-enc
	if e.err != nil {
		return nil, fmt.Errorf("encoding the objects: %w", e.err)
	}
	var out []sdk.Finding
	if err := p.call(ctx, "analyze", func(ctx context.Context) (err error) {
		out, err = p.rpc.AnalyzeEncoded(ctx, e.data)
		return err
	}); err != nil {
		return nil, err
	}
	return findings(c, a.spec.Analyzer, codes, out)
}
