package notifications

import (
	"bytes"
	"embed"
	"fmt"
	"sort"
)

//go:embed flux/*.yaml
var fluxFS embed.FS

// FluxManifests returns the notification-controller Provider and Alerts as one
// YAML stream, files in name order.
func FluxManifests() ([]byte, error) {
	entries, err := fluxFS.ReadDir("flux")
	if err != nil {
		return nil, fmt.Errorf("read flux manifests: %w", err)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	var buf bytes.Buffer
	buf.WriteString(generatedHeader)
	for i, n := range names {
		raw, err := fluxFS.ReadFile("flux/" + n)
		if err != nil {
			return nil, fmt.Errorf("read flux/%s: %w", n, err)
		}
		if i > 0 {
			buf.WriteString("---\n")
		}
		buf.WriteString(routingKinds.Replace(string(bytes.TrimRight(raw, "\n"))))
		buf.WriteString("\n")
	}
	return buf.Bytes(), nil
}
