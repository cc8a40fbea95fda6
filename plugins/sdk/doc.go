// Package sdk is routeguard's plugin SDK: write an analyzer as a separate
// binary, and routeguard runs it out of process (hashicorp/go-plugin over
// gRPC) next to its built-in analyzers.
//
// A plugin implements Analyzer and calls Serve from main:
//
//	func main() { sdk.Serve(myAnalyzer{}) }
//
// Metadata names the plugin, its version and every finding code it may
// report (with a default severity and a description); Analyze receives the
// rendered objects with their source positions and the plugin's own config
// from .routeguard.yaml, and returns findings. routeguard refuses findings
// whose code the plugin did not declare.
//
// The package has three roles, one file each: the interface and handshake
// (analyzer.go, types.go), the gRPC client and server shims (grpc.go), and
// Serve (serve.go). The module depends on go-plugin and gRPC only, so a
// plugin does not pull in routeguard's dependencies.
package sdk
