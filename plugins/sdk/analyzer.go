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

// Receiver is an optional interface of an Analyzer that wants each object
// as soon as it arrives, while the rest of the request is still on the
// wire: to convert it into its own types and let go of the decoded Body
// (set o.Body = nil) instead of holding every object's map at once.
// Receive is called for every object, in order, from one goroutine, and
// then Analyze with the same req. req carries DefaultNamespace and Config
// from the start (its Objects fill up as chunks arrive), so a plugin can
// key per-call state on it. The object then appears in req.Objects as
// Receive left it. o is valid only during the call: copy what you keep,
// not the pointer.
type Receiver interface {
	Receive(ctx context.Context, req *Request, o *Object) error
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
