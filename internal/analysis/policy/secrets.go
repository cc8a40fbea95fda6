package policy

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/substitute"
)

// PlainSecrets finds Secrets carrying data in the rendered output: their
// values sit in Git in plain text (stringData) or base64 (data).
type PlainSecrets struct{}

// Metadata implements analysis.Analyzer.
func (PlainSecrets) Metadata() analysis.Metadata {
	return analysis.Metadata{
		Name:        "policy.PlainSecrets",
		Description: "Finds Secrets with data or stringData in the rendered output (use Sealed Secrets or External Secrets).",
		Doc:         "Secrets with `data`/`stringData` in the rendered output (use Sealed Secrets or External Secrets), the message saying which field holds them; SOPS-encrypted Secrets (a `sops` key, or generated from an encrypted file), values that are substitution variables (`${NAME}`, or a flux build placeholder for a variable only the cluster holds) and public certificates (PEM CERTIFICATE blocks only) are not plain.",
		Inputs:      []manifest.GroupKind{{Kind: "Secret"}},
	}
}

// Analyze implements analysis.Analyzer. Values that are not secrets in Git
// do not count: a substitution variable (${NAME}, or the placeholder a
// flux build puts for a variable only the cluster holds: its value comes
// from a source outside the file) and a public certificate (PEM
// CERTIFICATE blocks only, such as a CA bundle).
func (PlainSecrets) Analyze(ctx context.Context, c *analysis.Context) error {
	for _, s := range c.Objects().ByKind("", "Secret") {
		if err := ctx.Err(); err != nil {
			return err
		}
		if sopsEncrypted(s) {
			continue
		}
		inData, inString := 0, 0
		settings := argoCDSettings(s)
		for k, v := range field.StringMap(s.Body, "data") {
			if settings[k] {
				continue
			}
			b, err := base64.StdEncoding.DecodeString(v)
			if err != nil {
				b = []byte(v) // not base64: the API server refuses it; still in Git
			}
			if plainValue(string(b)) {
				inData++
			}
		}
		for k, v := range field.StringMap(s.Body, "stringData") {
			if !settings[k] && plainValue(v) {
				inString++
			}
		}
		var where []string
		if inData > 0 {
			where = append(where, fmt.Sprintf("%d in data (base64, which is not encryption)", inData))
		}
		if inString > 0 {
			where = append(where, fmt.Sprintf("%d in stringData (plain text)", inString))
		}
		if len(where) == 0 {
			continue
		}
		c.ReportCode(s, analysis.CodePlainSecret, inData+inString, strings.Join(where, " and "))
	}
	return nil
}

// plainValue reports whether a Secret value is a secret kept in Git: not
// empty, not a substitution variable or a flux build placeholder for one,
// and not only public certificates.
func plainValue(v string) bool {
	t := strings.TrimSpace(v)
	switch {
	case t == "":
		return false
	case strings.Contains(t, "${"), strings.Contains(t, substitute.PlaceholderPrefix):
		return false
	case certificatesOnly(t):
		return false
	}
	return true
}

// certificatesOnly reports whether s is one or more PEM blocks, all of
// them certificates (a CA bundle, a public certificate): nothing secret.
func certificatesOnly(s string) bool {
	if !strings.HasPrefix(s, "-----BEGIN ") {
		return false
	}
	rest := []byte(s)
	n := 0
	for {
		rest = bytes.TrimSpace(rest)
		if len(rest) == 0 {
			return n > 0
		}
		if !bytes.HasPrefix(rest, []byte("-----BEGIN CERTIFICATE-----")) {
			return false
		}
		end := bytes.Index(rest, []byte("-----END CERTIFICATE-----"))
		if end < 0 {
			return false
		}
		rest = rest[end+len("-----END CERTIFICATE-----"):]
		n++
	}
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

// argoCDSettingKeys are the keys of Argo CD's repository and cluster
// Secrets that are settings, not credentials (the URL, the name, the
// project, flags): a repository Secret for a public chart repository holds
// nothing secret.
var argoCDSettingKeys = map[string]bool{
	"name": true, "url": true, "type": true, "project": true, "enableOCI": true, "enableLfs": true,
	"insecure": true, "insecureIgnoreHostKey": true, "forceHttpBasicAuth": true, "proxy": true, "noProxy": true,
	"githubAppID": true, "githubAppInstallationID": true, "githubAppEnterpriseBaseUrl": true, "username": true,
	"server": true, "namespaces": true, "clusterResources": true, "useAzureWorkloadIdentity": true,
}

// argoCDSettings returns the setting keys of an Argo CD repository, repo-creds
// or cluster Secret (label argocd.argoproj.io/secret-type), nil for any
// other Secret.
func argoCDSettings(s *manifest.Object) map[string]bool {
	switch s.Labels()["argocd.argoproj.io/secret-type"] {
	case "repository", "repo-creds", "repository-write", "repo-write-creds", "cluster":
		return argoCDSettingKeys
	}
	return nil
}
