package cmp

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/routeguard/routeguard/internal/config"
)

// Discovery limits: discovery runs on every refresh of every app that does
// not name its plugin, so it reads little.
const (
	discoverMaxFiles = 2000
	discoverMaxBytes = 1 << 20
)

// routingKindRE matches a YAML or JSON line declaring a routing kind.
var routingKindRE = regexp.MustCompile(`(?m)^\s*(?:-\s+)?"?kind"?\s*:\s*"?(Ingress|HTTPRoute|GRPCRoute|TLSRoute|TCPRoute|UDPRoute|Gateway|ListenerSet|VirtualService|DestinationRule|ServiceEntry|Sidecar)"?\s*,?\s*$`)

var errFound = errors.New("found")

// Discover reports whether dir is an app routeguard should render: it holds
// a .routeguard.yaml, or a YAML/JSON file (at any depth, hidden directories
// skipped, symlinks not followed) declaring a routing kind. match is the
// file that decided it, relative to dir; "" means no match.
func Discover(dir string) (match string, err error) {
	for _, n := range config.FileNames {
		if fi, err := os.Stat(filepath.Join(dir, n)); err == nil && fi.Mode().IsRegular() {
			return n, nil
		}
	}
	files := 0
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable entries do not decide anything
		}
		if d.IsDir() {
			if p != dir && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		switch strings.ToLower(filepath.Ext(p)) {
		case ".yaml", ".yml", ".json":
		default:
			return nil
		}
		if files++; files > discoverMaxFiles {
			return filepath.SkipAll
		}
		if declaresRouting(p) {
			rel, _ := filepath.Rel(dir, p)
			match = filepath.ToSlash(rel)
			return errFound
		}
		return nil
	})
	if err != nil && !errors.Is(err, errFound) {
		return "", err
	}
	return match, nil
}

func declaresRouting(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, discoverMaxBytes))
	if err != nil {
		return false
	}
	return routingKindRE.Match(data)
}
