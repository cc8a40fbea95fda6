package analysis

import (
	"errors"
	"fmt"

	"github.com/routeguard/routeguard/internal/manifest"
)

// CarriedFinding is a Finding in a form that can leave the process (a
// review's shard file) and come back equal: its Args keep their Go types
// (manifest.TypedValue), and the checkout's root in its message and file
// is written as manifest.RootToken.
type CarriedFinding struct {
	Code     string          `json:"code"`
	Severity int             `json:"severity,omitempty"`
	Message  string          `json:"message"`
	Object   ObjectRef       `json:"object"`
	Source   manifest.Source `json:"source"`
	Analyzer string          `json:"analyzer,omitempty"`
	App      string          `json:"app,omitempty"`
	Args     any             `json:"args,omitempty"` // TypedValue
}

// Carry is the carried form of f, found in the checkout at root.
func (f Finding) Carry(root string) (CarriedFinding, error) {
	cf := CarriedFinding{Code: f.Code, Severity: int(f.Severity), Message: manifest.Tokenize(f.Message, root), Object: f.Object,
		Source: f.Source, Analyzer: f.Analyzer, App: f.App}
	cf.Source.File = manifest.Tokenize(cf.Source.File, root)
	if f.Args != nil {
		args, err := manifest.TypedValue(f.Args)
		if err != nil {
			return cf, fmt.Errorf("finding %s: %w", f.Code, err)
		}
		cf.Args = args
	}
	return cf, nil
}

// Finding is the finding cf carries, under the checkout root.
func (cf CarriedFinding) Finding(root string) (Finding, error) {
	f := Finding{Code: cf.Code, Severity: Severity(cf.Severity), Message: manifest.Untokenize(cf.Message, root), Object: cf.Object,
		Source: cf.Source, Analyzer: cf.Analyzer, App: cf.App}
	f.Source.File = manifest.Untokenize(f.Source.File, root)
	if cf.Args != nil {
		v, err := manifest.UntypedValue(cf.Args)
		if err != nil {
			return f, fmt.Errorf("finding %s: %w", cf.Code, err)
		}
		args, ok := v.([]any)
		if !ok {
			return f, fmt.Errorf("finding %s: %w", cf.Code, errors.New("args are not a list"))
		}
		f.Args = args
	}
	return f, nil
}
