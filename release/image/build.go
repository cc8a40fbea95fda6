package image

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// Commands are the binaries the image carries, by main package.
var Commands = []string{"./cmd/routeguard", "./cmd/routeguard-istio"}

// Platforms are the platforms the image is built for.
var Platforms = []v1.Platform{
	{OS: "linux", Architecture: "amd64"},
	{OS: "linux", Architecture: "arm64", Variant: "v8"},
}

// versionPkg receives the version and revision (-X), as in .goreleaser.yaml.
const versionPkg = "github.com/routeguard/routeguard/internal/version"

// BuildOptions say what to compile.
type BuildOptions struct {
	// Source is the repository checkout (holding go.work).
	Source string
	// Out is where the binaries go: Out/<os>_<arch>/<name>.
	Out string
	// Version and Revision are stamped into the binaries.
	Version, Revision string
	// Platforms to build; default Platforms.
	Platforms []v1.Platform
}

// Binaries maps a platform ("linux/arm64/v8") to its binaries by name
// ("routeguard") to their paths.
type Binaries map[string]map[string]string

// LDFlags are the linker flags of a release build: no symbol table or
// DWARF (as the Dockerfile did), version and revision stamped.
func LDFlags(version, revision string) string {
	return fmt.Sprintf("-s -w -X %s.version=%s -X %s.revision=%s", versionPkg, version, versionPkg, revision)
}

// GoBuild cross-compiles Commands for each platform: static (CGO_ENABLED=0)
// and -trimpath, so the same source gives the same bytes on any machine
// with the same Go toolchain.
func GoBuild(ctx context.Context, o BuildOptions) (Binaries, error) {
	if o.Version == "" || o.Revision == "" {
		return nil, fmt.Errorf("build: version and revision are required (they are stamped into the binaries)")
	}
	platforms := o.Platforms
	if len(platforms) == 0 {
		platforms = Platforms
	}
	bins := Binaries{}
	for _, p := range platforms {
		dir := filepath.Join(o.Out, p.OS+"_"+p.Architecture)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		args := append([]string{"build", "-trimpath", "-buildvcs=false", "-ldflags", LDFlags(o.Version, o.Revision), "-o", dir + string(filepath.Separator)}, Commands...)
		cmd := exec.CommandContext(ctx, "go", args...)
		cmd.Dir = o.Source
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+p.OS, "GOARCH="+p.Architecture, "GOFLAGS=")
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stderr, &stderr
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("go build for %s in %s: %v\n%s", p, o.Source, err, stderr.String())
		}
		bins[p.String()] = map[string]string{}
		for _, c := range Commands {
			name := path.Base(c)
			bins[p.String()][name] = filepath.Join(dir, name)
		}
	}
	return bins, nil
}
