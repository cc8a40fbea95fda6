package image

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
)

// FromGoReleaser returns the linux binaries of a GoReleaser run, listed in
// its dist/artifacts.json, so that the image carries the very bytes of the
// release archives. root is where GoReleaser ran (artifact paths are
// relative to it).
func FromGoReleaser(root, dist string) (Binaries, error) {
	file := filepath.Join(dist, "artifacts.json")
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("%w (run goreleaser first)", err)
	}
	var artifacts []struct {
		Name, Path, Type string
		Goos, Goarch     string
	}
	if err := json.Unmarshal(data, &artifacts); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	want := map[string]bool{}
	for _, c := range Commands {
		want[path.Base(c)] = true
	}
	bins := Binaries{}
	for _, p := range Platforms {
		files := map[string]string{}
		for _, a := range artifacts {
			if a.Type == "Binary" && a.Goos == p.OS && a.Goarch == p.Architecture && want[a.Name] {
				files[a.Name] = filepath.Join(root, filepath.FromSlash(a.Path))
			}
		}
		if len(files) != len(want) {
			return nil, fmt.Errorf("%s lists %d of the %d binaries for %s", file, len(files), len(want), p)
		}
		bins[p.String()] = files
	}
	return bins, nil
}
