package policy

import (
	"context"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
)

// PlainSecrets finds Secrets carrying data in the rendered output: their
// values sit in Git in plain base64. SOPS-encrypted Secrets are not plain.
type PlainSecrets struct{}

// Metadata implements analysis.Analyzer.
func (PlainSecrets) Metadata() analysis.Metadata {
	return analysis.Metadata{
		Name:        "policy.PlainSecrets",
		Description: "Finds Secrets with data or stringData in the rendered output (use Sealed Secrets or External Secrets).",
		Inputs:      []manifest.GroupKind{{Kind: "Secret"}},
	}
}

// Analyze implements analysis.Analyzer.
func (PlainSecrets) Analyze(ctx context.Context, c *analysis.Context) error {
	for _, s := range c.Objects().ByKind("", "Secret") {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := len(field.Map(s.Body, "data")) + len(field.Map(s.Body, "stringData"))
		if n == 0 || analysis.SOPSEncrypted(s) {
			continue
		}
		c.Reportf(s, analysis.CodePlainSecret,
			"Secret carries %d key(s) of data in plain base64, so the values live in Git; encrypt it with Sealed Secrets or fetch it with External Secrets", n)
	}
	return nil
}
