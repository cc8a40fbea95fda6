package synth

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Options describe a repository.
type Options struct {
	Services          int    // N
	Dangling          int    // K: services whose route, virtual service and ingress dangle
	ServicesPerNS     int    // services per namespace (20 when 0)
	Workloads         bool   // add blue and green Deployments per service
	Seed              uint64 // picks the dangling services
	NamespacePrefix   string // "team" when empty
	IngressClassName  string // "nginx" when empty
	GatewayClassName  string // "istio" when empty
	DomainSuffix      string // "example.com" when empty
	danglingSvcSuffix string
}

// Ref names an object: "Kind namespace/name".
type Ref struct{ Kind, Namespace, Name, File string }

func (r Ref) String() string { return r.Kind + " " + r.Namespace + "/" + r.Name }

// Repo is a generated repository: file contents by name. All files sit in
// one directory, so both `routeguard analyze DIR` and `istioctl analyze DIR`
// read them without recursion flags.
type Repo struct {
	Files    map[string][]byte
	Objects  int   // objects across all files
	Injected []Ref // objects with a dangling reference, sorted
}

// ForObjects returns the number of services whose repository holds about
// (at most) objects objects with the given layout.
func ForObjects(objects int, opts Options) int {
	opts.defaults()
	n := 0
	for count(n+1, opts) <= objects {
		n++
	}
	return n
}

func count(n int, o Options) int {
	per := 5
	if o.Workloads {
		per += 2
	}
	ns := (n + o.ServicesPerNS - 1) / o.ServicesPerNS
	return n*per + ns*2 + 1 // + Namespace and Gateway per namespace, + one IngressClass
}

func (o *Options) defaults() {
	if o.ServicesPerNS <= 0 {
		o.ServicesPerNS = 20
	}
	if o.NamespacePrefix == "" {
		o.NamespacePrefix = "team"
	}
	if o.IngressClassName == "" {
		o.IngressClassName = "nginx"
	}
	if o.GatewayClassName == "" {
		o.GatewayClassName = "istio"
	}
	if o.DomainSuffix == "" {
		o.DomainSuffix = "example.com"
	}
	o.danglingSvcSuffix = "-gone"
}

// Generate builds the repository described by opts.
func Generate(opts Options) (*Repo, error) {
	opts.defaults()
	if opts.Services < 0 || opts.Dangling < 0 || opts.Dangling > opts.Services {
		return nil, fmt.Errorf("dangling services (%d) must be between 0 and the number of services (%d)", opts.Dangling, opts.Services)
	}
	rng := rand.New(rand.NewPCG(opts.Seed, 0x9e3779b97f4a7c15))
	dangling := map[int]bool{}
	for _, i := range rng.Perm(opts.Services)[:opts.Dangling] {
		dangling[i] = true
	}
	r := &Repo{Files: map[string][]byte{}}
	var b strings.Builder
	b.WriteString(ingressClass(opts))
	r.Files["ingressclass.yaml"] = []byte(b.String())
	r.Objects++
	for i := 0; i < opts.Services; i++ {
		ns := fmt.Sprintf("%s-%03d", opts.NamespacePrefix, i/opts.ServicesPerNS)
		if i%opts.ServicesPerNS == 0 {
			r.Files[ns+"-namespace.yaml"] = []byte(namespace(ns, opts))
			r.Objects += 2
		}
		svc := fmt.Sprintf("svc-%05d", i)
		file := ns + "-" + svc + ".yaml"
		target := svc
		if dangling[i] {
			target = svc + opts.danglingSvcSuffix
			for _, k := range []string{"HTTPRoute", "VirtualService", "Ingress"} {
				r.Injected = append(r.Injected, Ref{Kind: k, Namespace: ns, Name: svc, File: file})
			}
		}
		docs := []string{
			service(ns, svc),
			httpRoute(ns, svc, target, opts),
			virtualService(ns, svc, target, rng.IntN(50)+50),
			destinationRule(ns, svc),
			ingress(ns, svc, target, opts),
		}
		if opts.Workloads {
			docs = append(docs, deployment(ns, svc, "blue"), deployment(ns, svc, "green"))
		}
		r.Files[file] = []byte(strings.Join(docs, "---\n"))
		r.Objects += len(docs)
	}
	slices.SortFunc(r.Injected, func(a, b Ref) int { return strings.Compare(a.File+a.Kind, b.File+b.Kind) })
	return r, nil
}

// Write writes the repository's files under dir (which must not exist or be
// empty), creating directories as needed.
func (r *Repo) Write(dir string) error {
	paths := make([]string, 0, len(r.Files))
	for p := range r.Files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return fmt.Errorf("writing synthetic repository: %w", err)
		}
		if err := os.WriteFile(full, r.Files[p], 0o644); err != nil {
			return fmt.Errorf("writing synthetic repository: %w", err)
		}
	}
	return nil
}
