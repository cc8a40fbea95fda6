// Command image builds routeguard's CMP sidecar image without a container
// engine (see package release/image) and writes it as an OCI layout, an
// oci-archive tar, or pushes it.
//
//	image -version v1.2.3 -revision <commit> -out ../dist/image/oci -archive ../dist/image/routeguard-cmp.tar
//	image -version v1.2.3 -revision <commit> -base distroless -goreleaser-dist ../dist -push
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"

	"github.com/routeguard/routeguard/release/image"
)

// Repository is where release images go.
const Repository = "ghcr.io/routeguard/routeguard-cmp"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

type options struct {
	source, out, archive, tag, version, revision, base, dist, work string
	created                                                        int64
	push                                                           bool
}

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("image", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.StringVar(&o.source, "source", "..", "the routeguard checkout to build")
	fs.StringVar(&o.out, "out", "", "write the image as an OCI layout directory here (replaced)")
	fs.StringVar(&o.archive, "archive", "", "also write the layout as an oci-archive tar here")
	fs.StringVar(&o.tag, "tag", "", "the image's name (default "+Repository+":<version>)")
	fs.StringVar(&o.version, "version", "", "the version to stamp and tag, e.g. v1.2.3 (required)")
	fs.StringVar(&o.revision, "revision", "", "the VCS commit to stamp (required)")
	fs.StringVar(&o.base, "base", "local", "base image: local (assembled here), distroless ("+image.Distroless+"), oci:DIR (an OCI layout) or REF@sha256:...")
	fs.StringVar(&o.dist, "goreleaser-dist", "", "take the binaries from this GoReleaser dist directory instead of building them")
	fs.StringVar(&o.work, "work", "", "directory for binaries and layers (default: a temporary one, removed)")
	fs.Int64Var(&o.created, "created", -1, "image time stamps as Unix seconds (default $SOURCE_DATE_EPOCH, else 0)")
	fs.BoolVar(&o.push, "push", false, "push the image to its name (credentials: docker login)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "image: unexpected arguments %q\n", fs.Args())
		return 2
	}
	if err := build(ctx, o, getenv, stdout); err != nil {
		fmt.Fprintf(stderr, "image: %v\n", err)
		return 1
	}
	return 0
}

func build(ctx context.Context, o options, getenv func(string) string, stdout io.Writer) error {
	if o.version == "" || o.revision == "" {
		return fmt.Errorf("-version and -revision are required")
	}
	if o.out == "" && !o.push {
		return fmt.Errorf("give -out DIR, -push, or both")
	}
	if o.archive != "" && o.out == "" {
		return fmt.Errorf("-archive needs -out")
	}
	if o.tag == "" {
		// A tag cannot hold the "+" of a semver build suffix.
		o.tag = Repository + ":" + strings.ReplaceAll(o.version, "+", "-")
	}
	if _, err := name.NewTag(o.tag, name.StrictValidation); err != nil {
		return fmt.Errorf("-tag %q: %w", o.tag, err)
	}
	created, err := createdTime(o.created, getenv("SOURCE_DATE_EPOCH"))
	if err != nil {
		return err
	}
	base, err := baseOf(o.base, created)
	if err != nil {
		return err
	}
	work := o.work
	if work == "" {
		if work, err = os.MkdirTemp("", "routeguard-image-"); err != nil {
			return err
		}
		defer os.RemoveAll(work)
	}
	source, err := filepath.Abs(o.source)
	if err != nil {
		return err
	}
	var bins image.Binaries
	if o.dist != "" {
		bins, err = image.FromGoReleaser(source, o.dist)
	} else {
		bins, err = image.GoBuild(ctx, image.BuildOptions{Source: source, Out: filepath.Join(work, "bin"), Version: o.version, Revision: o.revision})
	}
	if err != nil {
		return err
	}
	idx, err := image.Assemble(bins, image.AssembleOptions{Base: base, Created: created, Version: o.version, Revision: o.revision, WorkDir: work})
	if err != nil {
		return err
	}
	d, err := idx.Digest()
	if err != nil {
		return err
	}
	if o.out != "" {
		if err := image.WriteLayout(o.out, idx, o.tag); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s@%s -> %s\n", o.tag, d, o.out)
		if o.archive != "" {
			if err := image.WriteArchive(o.archive, o.out, created); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "oci-archive -> %s\n", o.archive)
		}
	}
	if o.push {
		if _, err := image.Push(idx, o.tag); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "pushed %s@%s\n", o.tag, d)
	}
	return nil
}

func createdTime(flagValue int64, epoch string) (time.Time, error) {
	if flagValue >= 0 {
		return time.Unix(flagValue, 0).UTC(), nil
	}
	if epoch == "" {
		return time.Unix(0, 0).UTC(), nil
	}
	s, err := strconv.ParseInt(epoch, 10, 64)
	if err != nil || s < 0 {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH=%q is not a count of seconds", epoch)
	}
	return time.Unix(s, 0).UTC(), nil
}

func baseOf(spec string, created time.Time) (image.Base, error) {
	switch {
	case spec == "local":
		return image.Local(created), nil
	case spec == "distroless":
		return image.Remote(image.Distroless)
	case strings.HasPrefix(spec, "oci:"):
		dir := strings.TrimPrefix(spec, "oci:")
		if _, err := os.Stat(filepath.Join(dir, "index.json")); err != nil {
			return nil, fmt.Errorf("-base %s: %w (an OCI layout, e.g. from `crane pull --format=oci %s %s`)", spec, err, image.Distroless, dir)
		}
		return image.Layout(dir, ""), nil
	case strings.Contains(spec, "@sha256:"):
		return image.Remote(spec)
	}
	return nil, fmt.Errorf("-base %q: want local, distroless, oci:DIR or REF@sha256:...", spec)
}
