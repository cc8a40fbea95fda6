package charts_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/charts"
)

// Charts are fetched in plain text only from loopback addresses: a
// repository or registry on the network (192.0.2.1 is TEST-NET-1, and a
// name other than localhost) is refused before any connection, with the
// reason; an index served on loopback that points the archive at a
// host on the network is refused at the archive.
func TestPlainTextOnlyFromLoopback(t *testing.T) {
	ctx := context.Background()
	for _, ref := range []charts.Ref{
		{RepoURL: "http://192.0.2.1/charts", Name: "app", Version: "1.0.0"},
		{RepoURL: "http://charts.example.com:8879", Name: "app", Version: "1.0.0"},
		{RepoURL: "oci://192.0.2.1/charts/app", Version: "1.0.0", Insecure: true},
	} {
		_, err := (&charts.Cache{Dir: t.TempDir()}).Fetch(ctx, ref)
		if err == nil || !strings.Contains(err.Error(), "without TLS") || !strings.Contains(err.Error(), "does not fetch it") {
			t.Errorf("%s: %v, want the plain-text refusal", ref, err)
		}
	}

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/index.yaml" {
			t.Errorf("unexpected request %s", r.URL.Path)
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte("apiVersion: v1\nentries:\n  app:\n    - name: app\n      version: 1.0.0\n      urls: [http://192.0.2.1/app-1.0.0.tgz]\n"))
	}))
	defer srv.Close()
	_, err := (&charts.Cache{Dir: t.TempDir()}).Fetch(ctx, charts.Ref{RepoURL: srv.URL, Name: "app", Version: "1.0.0"})
	if err == nil || !strings.Contains(err.Error(), "http://192.0.2.1/app-1.0.0.tgz is fetched over plain http") {
		t.Errorf("archive on the network behind a loopback index: %v", err)
	}
}
