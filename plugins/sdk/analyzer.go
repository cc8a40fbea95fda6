package sdk

import (
	"context"

	"github.com/hashicorp/go-plugin"
)

// Analyzer is what a plugin implements. Every method takes a context: it
// carries the host's deadline, and an implementation should return when it
// is done.
type Analyzer interface {
	// Metadata describes the plugin and declares its codes.
	Metadata(ctx context.Context) (Metadata, error)
	// Analyze checks the objects and returns findings. It returns an error
	// only when the plugin itself fails, never for a problem in the input.
	Analyze(ctx context.Context, req *Request) ([]Finding, error)
}

// ProtocolVersion is the version of the host–plugin protocol. It changes
// only when the wire format changes incompatibly; routeguard refuses
// plugins built against another version.
const ProtocolVersion = 2

// PluginName is the name the analyzer is dispensed under.
const PluginName = "analyzer"

// Handshake is the go-plugin handshake routeguard and its plugins share.
// The magic cookie is not a secret: it keeps a plugin binary from running
// as if it were an ordinary command.
var Handshake = plugin.HandshakeConfig{
	ProtocolVersion:  ProtocolVersion,
	MagicCookieKey:   "ROUTEGUARD_PLUGIN",
	MagicCookieValue: "6f1b0c3e-routeguard-analyzer",
}

// PluginSet returns the go-plugin plugin map for impl (nil on the host).
func PluginSet(impl Analyzer) plugin.PluginSet {
	return plugin.PluginSet{PluginName: &GRPCPlugin{Impl: impl}}
}
