// Package jsonschema generates the JSON Schema of .routeguard.yaml
// (schema/routeguard.schema.json) from the Go types of internal/config:
// the keys from their yaml tags, the descriptions from their doc comments,
// and the value rules config.Validate enforces from one table here. Editors
// (through yaml-language-server's `# yaml-language-server: $schema=...`
// modeline) then complete keys and flag typos as the user types.
//
// The committed file is kept current by TestSchemaIsCurrent; regenerate it
// with `make schema`.
package jsonschema
