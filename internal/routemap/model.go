package routemap

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/manifest"
)

// Map is the routing of one revision. Every list is sorted by its key.
type Map struct {
	Parents     []Parent     `json:"parents"`
	Entries     []Entry      `json:"routes"`
	Attachments []Attachment `json:"attachments"`
	TLS         []TLSHost    `json:"tls"`
	Grants      []Grant      `json:"referenceGrants"`
}

// Parent is a place routes attach to: a Gateway (or ListenerSet) listener
// ("Gateway ns/name listener"), an Ingress class ("Ingress class nginx"), an
// Istio Gateway ("Istio Gateway ns/name") or the mesh ("mesh").
type Parent struct {
	Name   string `json:"name"`
	Detail string `json:"detail"` // protocol, port, hostname, TLS mode
}

// Entry is one line of the route table: parent, host, match, the route
// object that says so and the backends it sends traffic to.
type Entry struct {
	Parent   string    `json:"parent"`
	Host     string    `json:"host"`
	Match    string    `json:"match"`
	Route    string    `json:"route"` // "HTTPRoute ns/name"
	Backends []Backend `json:"backends"`
}

// Key identifies an entry across revisions.
func (e Entry) Key() string { return e.Parent + "\x00" + e.Host + "\x00" + e.Match + "\x00" + e.Route }

// Backend is one weighted destination.
type Backend struct {
	Name   string `json:"name"` // "Service ns/name:port", "reviews.shop (v2)"
	Weight int64  `json:"weight"`
}

// Attachment is where one parent reference of a route attaches.
type Attachment struct {
	Route     string   `json:"route"`
	Parent    string   `json:"parent"`
	State     string   `json:"state"` // attached, detached, unknown
	Listeners []string `json:"listeners,omitempty"`
	Reason    string   `json:"reason,omitempty"`
}

// Attachment states.
const (
	Attached = "attached"
	Detached = "detached"
	// Unknown: the parent is not among the rendered objects and nothing
	// says whether it exists elsewhere.
	Unknown = "unknown"
)

// Key identifies an attachment across revisions.
func (a Attachment) Key() string { return a.Route + "\x00" + a.Parent }

// TLSHost is one host a parent terminates (or passes through) TLS for.
type TLSHost struct {
	Parent      string `json:"parent"`
	Host        string `json:"host"`
	Certificate string `json:"certificate"` // "Secret ns/name", "credential name", "passthrough"
}

// Key identifies a TLS host across revisions.
func (t TLSHost) Key() string { return t.Parent + "\x00" + t.Host + "\x00" + t.Certificate }

// Grant is one from/to pair of a ReferenceGrant.
type Grant struct {
	Grant string `json:"grant"` // "ReferenceGrant ns/name"
	From  string `json:"from"`  // "HTTPRoute in team-a"
	To    string `json:"to"`    // "Service api" or "Service *"
}

// Key identifies a grant rule across revisions.
func (g Grant) Key() string { return g.Grant + "\x00" + g.From + "\x00" + g.To }

// Build reads the routing of set. defaultNS is the namespace of objects
// that name none ("default" when empty).
func Build(set *manifest.Set, defaultNS string) *Map {
	return BuildWith(set, defaultNS, nil)
}

// BuildWith is Build knowing where objects may be that were not rendered
// (a Kustomization or Application that was not built): a route whose
// parent may be among them is not detached; its state is unknown, and its
// reason says it cannot be checked.
func BuildWith(set *manifest.Set, defaultNS string, unrendered []analysis.UnrenderedScope) *Map {
	c := analysis.NewRunContext(analysis.RunOptions{Set: set, DefaultNamespace: defaultNS, Unrendered: unrendered})
	m := &Map{}
	gatewayAPI(c, m)
	ingresses(c, m)
	istio(c, m)
	m.sort()
	return m
}

func (m *Map) sort() {
	slices.SortFunc(m.Parents, func(a, b Parent) int { return cmp.Compare(a.Name, b.Name) })
	m.Parents = slices.CompactFunc(m.Parents, func(a, b Parent) bool { return a.Name == b.Name })
	slices.SortFunc(m.Entries, func(a, b Entry) int { return cmp.Compare(a.Key(), b.Key()) })
	m.Entries = slices.CompactFunc(m.Entries, func(a, b Entry) bool { return a.Key() == b.Key() })
	slices.SortFunc(m.Attachments, func(a, b Attachment) int { return cmp.Compare(a.Key(), b.Key()) })
	m.Attachments = slices.CompactFunc(m.Attachments, func(a, b Attachment) bool { return a.Key() == b.Key() })
	slices.SortFunc(m.TLS, func(a, b TLSHost) int { return cmp.Compare(a.Key(), b.Key()) })
	m.TLS = slices.CompactFunc(m.TLS, func(a, b TLSHost) bool { return a.Key() == b.Key() })
	slices.SortFunc(m.Grants, func(a, b Grant) int { return cmp.Compare(a.Key(), b.Key()) })
	m.Grants = slices.CompactFunc(m.Grants, func(a, b Grant) bool { return a.Key() == b.Key() })
}

// BackendsString renders backends as "a=90 b=10" (or "(none)").
func BackendsString(bs []Backend) string {
	if len(bs) == 0 {
		return "(no backends)"
	}
	parts := make([]string, len(bs))
	for i, b := range bs {
		parts[i] = b.Name + " " + formatWeight(b.Weight)
	}
	return strings.Join(parts, ", ")
}

func formatWeight(w int64) string { return "w=" + strconv.FormatInt(w, 10) }

func qualified(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "/" + name
}

func sortStrings(s []string) { slices.Sort(s) }
