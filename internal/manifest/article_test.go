package manifest

import "testing"

func TestArticle(t *testing.T) {
	for word, want := range map[string]string{
		"ExternalArtifact": "an ExternalArtifact", "GitRepository": "a GitRepository",
		"HTTPRoute": "an HTTPRoute", "UDPRoute": "a UDPRoute", "GRPCRoute": "a GRPCRoute",
		"OCIRepository": "an OCIRepository", "TLSRoute": "a TLSRoute", "HelmRepository": "a HelmRepository",
		"Bucket": "a Bucket", "": "",
	} {
		if got := Article(word); got != want {
			t.Errorf("Article(%q) = %q, want %q", word, got, want)
		}
	}
}
