// Package config reads .routeguard.yaml, the per-app (or per-repository)
// settings of routeguard: failing severity, severity overrides,
// suppressions, context paths, plugins and traffic transforms.
//
// Decoding is strict: an unknown key is an error naming file:line, so a typo
// never silently turns a check off.
package config
