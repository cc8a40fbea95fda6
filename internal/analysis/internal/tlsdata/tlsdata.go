// Package tlsdata knows where certificate Secrets and CA bundles come
// from when they are not in Git, and whether the data of a rendered one
// parses. Certificates and CA bundles are mostly created outside Git: by
// cert-manager from a Certificate (or from a Gateway's or Ingress's
// cert-manager.io annotations), by External Secrets, Sealed Secrets, Vault
// or 1Password operators, trust-manager, or by hand. Shared by the Gateway
// API analyzers and the Istio analyzer.
package tlsdata

import (
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"strings"

	"github.com/routeguard/routeguard/internal/field"
	"github.com/routeguard/routeguard/internal/manifest"
)

// Producer says where an operator's custom resource puts the name of the
// Secret it creates (the first path that holds a name wins).
type Producer struct {
	GroupKind manifest.GroupKind
	Paths     [][]string
}

// SecretProducers are the custom resources that create Secrets in their
// own namespace.
var SecretProducers = []Producer{
	{manifest.GroupKind{Group: "cert-manager.io", Kind: "Certificate"}, [][]string{{"spec", "secretName"}}},
	{manifest.GroupKind{Group: "external-secrets.io", Kind: "ExternalSecret"}, [][]string{{"spec", "target", "name"}, {"metadata", "name"}}},
	{manifest.GroupKind{Group: "bitnami.com", Kind: "SealedSecret"}, [][]string{{"spec", "template", "metadata", "name"}, {"metadata", "name"}}},
	{manifest.GroupKind{Group: "secrets.hashicorp.com", Kind: "VaultStaticSecret"}, [][]string{{"spec", "destination", "name"}}},
	{manifest.GroupKind{Group: "secrets.hashicorp.com", Kind: "VaultDynamicSecret"}, [][]string{{"spec", "destination", "name"}}},
	{manifest.GroupKind{Group: "secrets.hashicorp.com", Kind: "VaultPKISecret"}, [][]string{{"spec", "destination", "name"}}},
	{manifest.GroupKind{Group: "onepassword.com", Kind: "OnePasswordItem"}, [][]string{{"metadata", "name"}}},
	{manifest.GroupKind{Group: "secrets.infisical.com", Kind: "InfisicalSecret"}, [][]string{{"spec", "managedSecretReference", "secretName"}}},
}

// BundleGK is trust-manager's Bundle: it writes a ConfigMap (or Secret)
// named after itself into every namespace it targets.
var BundleGK = manifest.GroupKind{Group: "trust.cert-manager.io", Kind: "Bundle"}

// Inputs are the kinds whose objects create Secrets and ConfigMaps.
func Inputs() []manifest.GroupKind {
	out := []manifest.GroupKind{BundleGK}
	for _, p := range SecretProducers {
		out = append(out, p.GroupKind)
	}
	return out
}

// ProducedSecret returns the name of the Secret o creates in its own
// namespace, if o is one of the SecretProducers.
func ProducedSecret(o *manifest.Object) (string, bool) {
	gk := o.GroupKind()
	for _, p := range SecretProducers {
		if p.GroupKind != gk {
			continue
		}
		for _, path := range p.Paths {
			if n := field.String(o.Body, path...); n != "" {
				return n, true
			}
		}
	}
	return "", false
}

// AlwaysPresentConfigMaps exist in every namespace: Kubernetes publishes
// the cluster CA, istiod the mesh CA.
var AlwaysPresentConfigMaps = []string{"kube-root-ca.crt", "istio-ca-root-cert"}

// CertManagerShim are the annotations that make cert-manager create the
// certificate Secrets a Gateway (or Ingress) names.
var CertManagerShim = []string{"cert-manager.io/issuer", "cert-manager.io/cluster-issuer"}

// ShimmedByCertManager reports whether cert-manager creates o's certificates.
func ShimmedByCertManager(o *manifest.Object) bool {
	for _, a := range CertManagerShim {
		if _, ok := o.Annotations()[a]; ok {
			return true
		}
	}
	return false
}

// Opaque reports whether a rendered Secret's (or ConfigMap's) data cannot
// be judged from Git: none at all (a controller fills it in: cert-manager,
// a CA injector, OpenShift's service CA), SOPS-encrypted, holding a Flux
// ${variable}, or filled in by a reflector or replicator.
func Opaque(o *manifest.Object) bool {
	if field.Has(o.Body, "sops") {
		return true
	}
	if len(field.Map(o.Body, "data"))+len(field.Map(o.Body, "stringData"))+len(field.Map(o.Body, "binaryData")) == 0 {
		return true
	}
	for k := range o.Annotations() {
		if strings.HasPrefix(k, "reflector.v1.k8s.emberstack.com/") || strings.HasPrefix(k, "replicator.v1.mittwald.de/") {
			return true
		}
	}
	for _, m := range []string{"data", "stringData"} {
		for _, v := range field.StringMap(o.Body, m) {
			if strings.Contains(v, "${") || strings.HasPrefix(v, "ENC[") {
				return true
			}
		}
	}
	return false
}

// ContentProblem returns what is wrong with the certificate data of a
// rendered Secret (tls.crt and tls.key) or CA ConfigMap (ca.crt), or ""
// when it parses or cannot be judged (Opaque).
func ContentProblem(o *manifest.Object) string {
	if Opaque(o) {
		return ""
	}
	if o.Kind == "Secret" {
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

const notBase64 = "\x00not base64"

// secretValue returns a Secret's value for key, decoded (stringData wins
// over data, as the API server merges them).
func secretValue(o *manifest.Object, key string) (string, bool) {
	if v, ok := field.StringMap(o.Body, "stringData")[key]; ok {
		return v, true
	}
	v, ok := field.StringMap(o.Body, "data")[key]
	if !ok {
		return "", false
	}
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(v))
	if err != nil {
		return notBase64, true
	}
	return string(b), true
}

// pemProblem checks that text holds at least one PEM certificate that parses.
func pemProblem(text, key string) string {
	if text == notBase64 {
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
