// Package slugify makes slugs with github.com/gosimple/slug, whose
// settings (maximum length, smart truncation) are process-wide variables:
// every caller goes through Make, which sets them under one lock, so that
// Argo CD's ApplicationSet templates (50 characters) and flux-operator's
// ResourceSet templates (63) can render concurrently in one process.
package slugify

import (
	"sync"

	"github.com/gosimple/slug"
)

var mu sync.Mutex

// Make is slug.Make with the given maximum length and smart truncation
// (cut at a word boundary).
func Make(s string, maxLength int, smartTruncate bool) string {
	mu.Lock()
	defer mu.Unlock()
	slug.MaxLength = maxLength
	slug.EnableSmartTruncate = smartTruncate
	return slug.Make(s)
}
