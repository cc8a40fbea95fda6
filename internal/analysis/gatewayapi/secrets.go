package gatewayapi

import (
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"strings"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/analysis/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
)

// Certificates and CA bundles are mostly created outside Git: by
// cert-manager from a Certificate (or from a Gateway's cert-manager.io
// annotations), by External Secrets, Sealed Secrets, Vault or 1Password
// operators, trust-manager, or by hand. A reference to one that is not
// rendered is an error only when the app renders objects of that kind
// (Secret, ConfigMap) in the namespace and nothing rendered creates it.

// producer says where an operator's custom resource puts the name of the
// Secret or ConfigMap it creates ("" path: its own metadata.name).
type producer struct {
	gk    manifest.GroupKind
	paths [][]string // first non-empty wins; none: metadata.name
}

var secretProducers = []producer{
	{manifest.GroupKind{Group: "cert-manager.io", Kind: "Certificate"}, [][]string{{"spec", "secretName"}}},
	{manifest.GroupKind{Group: "external-secrets.io", Kind: "ExternalSecret"}, [][]string{{"spec", "target", "name"}, {"metadata", "name"}}},
	{manifest.GroupKind{Group: "bitnami.com", Kind: "SealedSecret"}, [][]string{{"spec", "template", "metadata", "name"}, {"metadata", "name"}}},
	{manifest.GroupKind{Group: "secrets.hashicorp.com", Kind: "VaultStaticSecret"}, [][]string{{"spec", "destination", "name"}}},
	{manifest.GroupKind{Group: "secrets.hashicorp.com", Kind: "VaultDynamicSecret"}, [][]string{{"spec", "destination", "name"}}},
	{manifest.GroupKind{Group: "secrets.hashicorp.com", Kind: "VaultPKISecret"}, [][]string{{"spec", "destination", "name"}}},
	{manifest.GroupKind{Group: "onepassword.com", Kind: "OnePasswordItem"}, [][]string{{"metadata", "name"}}},
	{manifest.GroupKind{Group: "secrets.infisical.com", Kind: "InfisicalSecret"}, [][]string{{"spec", "managedSecretReference", "secretName"}}},
}

// alwaysPresentConfigMaps exist in every namespace: Kubernetes publishes
// the cluster CA, istiod the mesh CA.
var alwaysPresentConfigMaps = []string{"kube-root-ca.crt", "istio-ca-root-cert"}

// certManagerShim is set on a Gateway whose certificate Secrets cert-manager
// creates (its gateway-shim reads these annotations).
var certManagerShim = []string{"cert-manager.io/issuer", "cert-manager.io/cluster-issuer"}

// produced reports whether something rendered (or in context) creates the
// Secret or ConfigMap ns/name.
func produced(c *analysis.Context, kind, ns, name string) bool {
	if kind == "ConfigMap" {
		for _, n := range alwaysPresentConfigMaps {
			if n == name {
				return true
			}
		}
		// trust-manager: a Bundle writes a ConfigMap (or Secret) named after
		// itself into every namespace it targets.
		if bundle, scope := c.Resolve(manifest.Key{Group: "trust.cert-manager.io", Kind: "Bundle", Name: name}); scope.Found() {
			return field.Has(bundle.Body, "spec", "target", "configMap")
		}
		return false
	}
	names := c.Memo("gatewayapi.producedSecrets", func() any {
		m := map[[2]string]bool{}
		for _, s := range []*manifest.Set{c.Objects(), c.ContextObjects()} {
			for _, p := range secretProducers {
				for _, o := range s.ByKind(p.gk.Group, p.gk.Kind) {
					for _, path := range p.paths {
						if n := field.String(o.Body, path...); n != "" {
							m[[2]string{c.Namespace(o), n}] = true
							break
						}
					}
				}
			}
			for _, b := range s.ByKind("trust.cert-manager.io", "Bundle") {
				if field.Has(b.Body, "spec", "target", "secret") {
					m[[2]string{"*", b.Name}] = true
				}
			}
		}
		return m
	}).(map[[2]string]bool)
	return names[[2]string{ns, name}] || names[[2]string{"*", name}]
}

// contentProblem returns what is wrong with the certificate data of a
// rendered Secret (tls.crt and tls.key) or CA ConfigMap (ca.crt), or ""
// when it parses or cannot be judged: values still holding a Flux
// ${variable}, SOPS-encrypted Secrets, and Secrets a reflector or
// replicator fills in are left alone.
func contentProblem(o *manifest.Object) string {
	if o.Kind == "Secret" {
		if field.Has(o.Body, "sops") {
			return ""
		}
		for k := range o.Annotations() {
			if strings.HasPrefix(k, "reflector.v1.k8s.emberstack.com/") || strings.HasPrefix(k, "replicator.v1.mittwald.de/") {
				return ""
			}
		}
		crt, ok := secretValue(o, "tls.crt")
		if !ok {
			return "it has no tls.crt"
		}
		if crt == "" {
			return ""
		}
		if p := pemProblem(crt, "tls.crt"); p != "" {
			return p
		}
		key, ok := secretValue(o, "tls.key")
		if !ok {
			return "it has no tls.key"
		}
		if key != "" {
			if b, _ := pem.Decode([]byte(key)); b == nil || !strings.Contains(b.Type, "PRIVATE KEY") {
				return "tls.key holds no PEM private key"
			}
		}
		return ""
	}
	ca, ok := field.StringMap(o.Body, "data")["ca.crt"]
	if !ok {
		return "it has no ca.crt"
	}
	if strings.Contains(ca, "${") {
		return ""
	}
	return pemProblem(ca, "ca.crt")
}

// secretValue returns a Secret's value for key, decoded (stringData wins
// over data, as the API server merges them); "" when it cannot be judged.
func secretValue(o *manifest.Object, key string) (string, bool) {
	if v, ok := field.StringMap(o.Body, "stringData")[key]; ok {
		if strings.Contains(v, "${") {
			return "", true
		}
		return v, true
	}
	v, ok := field.StringMap(o.Body, "data")[key]
	if !ok {
		return "", false
	}
	if strings.Contains(v, "${") || strings.HasPrefix(v, "ENC[") {
		return "", true
	}
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(v))
	if err != nil {
		return "\x00not base64", true
	}
	return string(b), true
}

// pemProblem checks that text holds at least one PEM certificate that parses.
func pemProblem(text, key string) string {
	if text == "\x00not base64" {
		return key + " is not base64"
	}
	rest := []byte(text)
	found := false
	for {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		if b.Type != "CERTIFICATE" {
			continue
		}
		if _, err := x509.ParseCertificate(b.Bytes); err != nil {
			return key + " holds a certificate that does not parse: " + err.Error()
		}
		found = true
	}
	if !found {
		return key + " holds no PEM certificate"
	}
	return ""
}
