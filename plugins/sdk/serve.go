package sdk

import (
	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
)

// Serve runs impl as a routeguard plugin until the host disconnects. Call
// it from main. Run outside routeguard, the binary says so and exits 1.
func Serve(impl Analyzer) {
	plugin.Serve(ServeConfig(impl))
}

// ServeConfig is the go-plugin configuration Serve uses; change it only
// to test the host (a wrong protocol version, say).
func ServeConfig(impl Analyzer) *plugin.ServeConfig {
	return &plugin.ServeConfig{
		HandshakeConfig: Handshake,
		Plugins:         PluginSet(impl),
		GRPCServer:      NewGRPCServer,
		Logger:          hclog.New(&hclog.LoggerOptions{Level: hclog.Error, JSONFormat: true}),
	}
}

// NewGRPCServer is go-plugin's default server with room for large requests.
func NewGRPCServer(opts []grpc.ServerOption) *grpc.Server {
	opts = append(opts, grpc.MaxRecvMsgSize(MaxMessageSize), grpc.MaxSendMsgSize(MaxMessageSize))
	return grpc.NewServer(opts...)
}
