package health

import (
	"math/rand"
)

// shapes builds random status shapes from a byte stream (fuzz input) or a
// seeded source: the wrong types in the right places (status a string,
// conditions not a list, a condition without type, numbers as strings...),
// biased towards the field names and values the checks look at.

var (
	shapeKeys = []string{
		"status", "type", "reason", "message", "observedGeneration", "conditions", "parents",
		"parentRef", "ancestors", "ancestorRef", "listeners", "name", "namespace", "sectionName",
		"port", "kind", "validationMessages", "level", "code", "documentationUrl", "controllerName",
	}
	shapeStrings = []string{
		"", "True", "False", "Unknown", "Accepted", "ResolvedRefs", "Programmed", "Conflicted",
		"Reconciled", "Pending", "ERROR", "WARNING", "INFO", "2", "x", "2020-01-01T00:00:00Z",
	}
)

// source yields small numbers, from fuzz bytes or a PRNG.
type source interface{ next(n int) int }

type byteSource struct {
	data []byte
	i    int
}

func (s *byteSource) next(n int) int {
	if s.i >= len(s.data) {
		return 0
	}
	b := s.data[s.i]
	s.i++
	return int(b) % n
}

type randSource struct{ r *rand.Rand }

func (s randSource) next(n int) int { return s.r.Intn(n) }

// value returns a random JSON-compatible value; depth bounds nesting.
func value(s source, depth int) any {
	kinds := 9
	if depth <= 0 {
		kinds = 6
	}
	switch s.next(kinds) {
	case 0:
		return nil
	case 1:
		return s.next(2) == 1
	case 2:
		return int64(s.next(5)) - 1
	case 3:
		return float64(s.next(5)) + 0.5
	case 4, 5:
		return shapeStrings[s.next(len(shapeStrings))]
	case 6:
		n := s.next(4)
		l := make([]any, 0, n)
		for i := 0; i < n; i++ {
			l = append(l, value(s, depth-1))
		}
		return l
	default:
		n := s.next(5)
		m := make(map[string]any, n)
		for i := 0; i < n; i++ {
			m[shapeKeys[s.next(len(shapeKeys))]] = value(s, depth-1)
		}
		return m
	}
}

// object is a route-like object whose status (and a few metadata and spec
// fields) are random.
func object(s source, apiVersion, kind string) map[string]any {
	md := map[string]any{"name": "x", "namespace": "apps"}
	if s.next(3) > 0 {
		md["generation"] = value(s, 0)
	}
	if s.next(2) == 1 {
		md["creationTimestamp"] = value(s, 0)
	}
	obj := map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": md,
		"spec": map[string]any{"parentRefs": value(s, 2)}}
	if s.next(6) > 0 {
		obj["status"] = value(s, 4)
	}
	return obj
}
