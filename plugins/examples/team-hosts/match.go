package main

import (
	"regexp"
	"strings"
)

var hostRE = regexp.MustCompile(`^(\*\.)?([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]*[a-z0-9])?$`)

// validPattern reports whether p is a hostname, a *.wildcard or "*".
func validPattern(p string) bool {
	return p == "*" || hostRE.MatchString(strings.ToLower(p))
}

// allowedHost reports whether claiming host stays within the patterns.
// A claimed wildcard must be covered entirely: "*.a.shop.example.com" is
// within "*.shop.example.com", "*.example.com" is not.
func allowedHost(host string, patterns []string) bool {
	host = strings.ToLower(host)
	for _, p := range patterns {
		if covers(strings.ToLower(p), host) {
			return true
		}
	}
	return false
}

// covers reports whether every name host matches is matched by pattern.
// Wildcards match one or more labels, as in Gateway API and Istio.
func covers(pattern, host string) bool {
	switch {
	case pattern == "*":
		return true
	case host == "*":
		return false
	case strings.HasPrefix(pattern, "*."):
		suffix := pattern[1:] // ".shop.example.com"
		if strings.HasPrefix(host, "*.") {
			return strings.HasSuffix(host[1:], suffix)
		}
		return strings.HasSuffix(host, suffix)
	}
	return pattern == host
}
