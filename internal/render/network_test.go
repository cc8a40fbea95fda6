package render

import (
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
)

// With the network allowed, a remote resource whose host cannot be reached
// is not a broken app: the render is NotFetchedError (argocd analyze skips
// it with a warning), not an error that fails it. The host is a closed
// port on loopback: nothing leaves the machine.
func TestKustomizeRemoteUnreachableIsNotFetched(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // closed: connections are refused
	repo := writeTree(t, map[string]string{
		"app/kustomization.yaml": fmt.Sprintf("resources:\n  - http://%s/deploy.yaml\n", addr),
	})
	_, err = renderIn(t, repo, "app", Options{AllowNetwork: true})
	var nf *NotFetchedError
	if !errors.As(err, &nf) || !nf.Tried() || !strings.Contains(err.Error(), "the network failed") {
		t.Fatalf("want NotFetchedError naming the network, got %T %v", err, err)
	}
	// A remote resource offline stays NotFetched too; a local mistake with
	// the network allowed stays an error.
	repo = writeTree(t, map[string]string{"app/kustomization.yaml": "resources:\n  - missing.yaml\n"})
	if _, err := renderIn(t, repo, "app", Options{AllowNetwork: true}); err == nil || errors.As(err, &nf) {
		t.Errorf("a missing local file: want a plain error, got %T %v", err, err)
	}
}

func TestNetworkFailure(t *testing.T) {
	for msg, want := range map[string]bool{
		`Get "https://x/y": dial tcp: lookup x on 10.0.0.1:53: no such host`:                 true,
		`fatal: unable to access 'https://x/': Could not resolve host: x`:                    true,
		`accumulating resources from 'missing.yaml': open missing.yaml: no such file or dir`: false,
		`map[string]interface {} is not a valid resource`:                                    false,
	} {
		if got := networkFailure(errors.New(msg)); got != want {
			t.Errorf("networkFailure(%q) = %v, want %v", msg, got, want)
		}
	}
	if !networkFailure(fmt.Errorf("wrapped: %w", &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("refused")})) {
		t.Error("a wrapped *net.OpError is a network failure")
	}
}
