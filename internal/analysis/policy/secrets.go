package policy

import (
	"bytes"
	"context"
	"encoding/base64"
	"strings"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
)

// PlainSecrets finds Secrets carrying data in the rendered output: their
// values sit in Git in plain base64.
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
		if n == 0 || sopsEncrypted(s) {
			continue
		}
		c.Reportf(s, analysis.CodePlainSecret,
			"Secret carries %d key(s) of data in plain base64, so the values live in Git; encrypt it with Sealed Secrets or fetch it with External Secrets", n)
	}
	return nil
}

// sopsEncrypted reports whether a Secret holds SOPS ciphertext, which Flux
// decrypts before applying: a SOPS-encrypted manifest (a top-level sops
// key), or one a secretGenerator made from an encrypted file (its values
// hold SOPS's ENC[...] blocks).
func sopsEncrypted(s *manifest.Object) bool {
	if _, ok := s.Body["sops"]; ok {
		return true
	}
	for _, v := range field.StringMap(s.Body, "stringData") {
		if strings.Contains(v, "ENC[AES256_GCM,") {
			return true
		}
	}
	for _, v := range field.StringMap(s.Body, "data") {
		if b, err := base64.StdEncoding.DecodeString(v); err == nil && bytes.Contains(b, []byte("ENC[AES256_GCM,")) {
			return true
		}
	}
	return false
}
