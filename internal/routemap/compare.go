package routemap

import "slices"

// Change kinds of a Diff's items.
const (
	Added   = "added"
	Removed = "removed"
	Changed = "changed"
)

// Diff is what changed in routing between two maps.
type Diff struct {
	Parents     []ParentChange     `json:"parents,omitempty"`
	Entries     []EntryChange      `json:"routes,omitempty"`
	Attachments []AttachmentChange `json:"attachments,omitempty"`
	TLS         []TLSChange        `json:"tls,omitempty"`
	Grants      []GrantChange      `json:"referenceGrants,omitempty"`
}

// ParentChange is a listener, Ingress class or Istio Gateway that appeared,
// disappeared or changed (protocol, port, hostname).
type ParentChange struct {
	Change string  `json:"change"`
	Base   *Parent `json:"base,omitempty"`
	Head   *Parent `json:"head,omitempty"`
}

// EntryChange is a route table line that appeared, disappeared or whose
// backends or weights changed.
type EntryChange struct {
	Change string `json:"change"`
	Base   *Entry `json:"base,omitempty"`
	Head   *Entry `json:"head,omitempty"`
}

// AttachmentChange is a parent reference that appeared, disappeared or
// whose state or listeners changed.
type AttachmentChange struct {
	Change string      `json:"change"`
	Base   *Attachment `json:"base,omitempty"`
	Head   *Attachment `json:"head,omitempty"`
}

// TLSChange is a TLS host that appeared or disappeared.
type TLSChange struct {
	Change string  `json:"change"`
	TLS    TLSHost `json:"tls"`
}

// GrantChange is a ReferenceGrant rule that appeared or disappeared.
type GrantChange struct {
	Change string `json:"change"`
	Grant  Grant  `json:"grant"`
}

// Empty reports whether nothing changed.
func (d *Diff) Empty() bool {
	return len(d.Parents)+len(d.Entries)+len(d.Attachments)+len(d.TLS)+len(d.Grants) == 0
}

// Compare tells base and head apart. Items are in key order.
func Compare(base, head *Map) *Diff {
	d := &Diff{}
	for _, c := range pair(base.Parents, head.Parents, func(p Parent) string { return p.Name },
		func(a, b Parent) bool { return a == b }) {
		d.Parents = append(d.Parents, ParentChange{Change: c.change, Base: c.base, Head: c.head})
	}
	for _, c := range pair(base.Entries, head.Entries, Entry.Key,
		func(a, b Entry) bool { return slices.Equal(a.Backends, b.Backends) }) {
		d.Entries = append(d.Entries, EntryChange{Change: c.change, Base: c.base, Head: c.head})
	}
	for _, c := range pair(base.Attachments, head.Attachments, Attachment.Key, func(a, b Attachment) bool {
		return a.State == b.State && a.Reason == b.Reason && slices.Equal(a.Listeners, b.Listeners)
	}) {
		d.Attachments = append(d.Attachments, AttachmentChange{Change: c.change, Base: c.base, Head: c.head})
	}
	for _, c := range pair(base.TLS, head.TLS, TLSHost.Key, func(a, b TLSHost) bool { return true }) {
		d.TLS = append(d.TLS, TLSChange{Change: c.change, TLS: *either(c.base, c.head)})
	}
	for _, c := range pair(base.Grants, head.Grants, Grant.Key, func(a, b Grant) bool { return true }) {
		d.Grants = append(d.Grants, GrantChange{Change: c.change, Grant: *either(c.base, c.head)})
	}
	return d
}

type paired[T any] struct {
	change     string
	base, head *T
}

// pair merges two lists sorted by key into changes, in key order.
func pair[T any](base, head []T, key func(T) string, equal func(a, b T) bool) []paired[T] {
	var out []paired[T]
	i, j := 0, 0
	for i < len(base) || j < len(head) {
		switch {
		case j == len(head) || (i < len(base) && key(base[i]) < key(head[j])):
			out = append(out, paired[T]{change: Removed, base: &base[i]})
			i++
		case i == len(base) || key(head[j]) < key(base[i]):
			out = append(out, paired[T]{change: Added, head: &head[j]})
			j++
		default:
			if !equal(base[i], head[j]) {
				out = append(out, paired[T]{change: Changed, base: &base[i], head: &head[j]})
			}
			i++
			j++
		}
	}
	return out
}

func either[T any](a, b *T) *T {
	if a != nil {
		return a
	}
	return b
}
