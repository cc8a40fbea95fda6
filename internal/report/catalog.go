package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/routeguard/routeguard/internal/analysis"
)

// CatalogFormats lists the formats WriteCatalog accepts.
func CatalogFormats() []string { return []string{"json", "text"} }

// catalogJSON is the stable JSON form of the catalog (schemaVersion 1).
type catalogJSON struct {
	SchemaVersion int           `json:"schemaVersion"`
	Codes         []catalogCode `json:"codes"`
}

type catalogCode struct {
	ID          string `json:"id"`
	Severity    string `json:"severity"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Retired     bool   `json:"retired,omitempty"`
}

// WriteCatalog writes codes (analysis.Catalog(), normally) as text (one
// block per code: "ID  severity  title", then the description indented and
// wrapped at 100 columns; retired codes say so) or json ({"schemaVersion":
// 1, "codes": [{id, severity, title, description, retired}]}). Nothing is
// written when the format is unknown.
func WriteCatalog(w io.Writer, format string, codes []analysis.Code) error {
	var buf bytes.Buffer
	switch format {
	case "json":
		out := catalogJSON{SchemaVersion: 1, Codes: make([]catalogCode, 0, len(codes))}
		for _, c := range codes {
			out.Codes = append(out.Codes, catalogCode{ID: c.ID, Severity: c.Severity.String(), Title: c.Title,
				Description: c.Description, Retired: c.Retired})
		}
		if err := writeJSON(&buf, out); err != nil {
			return err
		}
	case "text":
		for i, c := range codes {
			if i > 0 {
				buf.WriteByte('\n')
			}
			sev := c.Severity.String()
			if c.Retired {
				sev = "retired"
			}
			fmt.Fprintf(&buf, "%s  %-7s  %s\n", c.ID, sev, c.Title)
			for _, line := range wrap(c.Description, 100-4) {
				buf.WriteString("    " + line + "\n")
			}
		}
	default:
		return fmt.Errorf("unknown catalog format %q: use one of %s", format, strings.Join(CatalogFormats(), ", "))
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// wrap splits text into lines of at most width bytes at spaces (a longer
// word gets a line of its own).
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		switch {
		case line == "":
			line = word
		case len(line)+1+len(word) <= width:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}
