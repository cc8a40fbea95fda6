package manifestdiff

import (
	"encoding/json"
	"io"
)

// jsonResult is the review as WriteJSON writes it.
type jsonResult struct {
	Changed      bool          `json:"changed"`
	Summary      string        `json:"summary"`
	Filters      []string      `json:"filtersApplied"`
	FilteredOnly int           `json:"objectsDifferingOnlyInFilteredFields"`
	Redacted     int           `json:"secretsRedacted"`
	NotCompared  []NotCompared `json:"notCompared,omitempty"`
	Apps         []AppDiff     `json:"apps"`
}

// WriteJSON writes the review as one JSON document: the summary, the
// filters applied, and per app, per object, its hunks (every line; only
// objects over the size cap go without, with their size).
func (r *Result) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// MarshalJSON is the document WriteJSON writes (also where a report
// embeds the manifest review).
func (r *Result) MarshalJSON() ([]byte, error) {
	doc := jsonResult{Changed: r.Changed(), Summary: r.Summary(), Filters: r.Filters, FilteredOnly: r.FilteredOnly,
		Redacted: r.Redacted, NotCompared: r.NotCompared, Apps: r.Apps}
	if doc.Filters == nil {
		doc.Filters = []string{}
	}
	if doc.Apps == nil {
		doc.Apps = []AppDiff{}
	}
	return json.Marshal(doc)
}
