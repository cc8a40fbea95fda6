// Package manifest is the model every routeguard stage shares: Kubernetes
// objects decoded from YAML or JSON streams, each knowing the file, line and
// document it came from, and a Set that indexes them.
//
// Decoding is defensive: files over a size limit, text that is not UTF-8,
// documents that are not objects, duplicate keys and alias bombs are errors
// that name the file and line, never panics or unbounded memory.
package manifest
