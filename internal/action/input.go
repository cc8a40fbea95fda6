package action

import (
	"fmt"
	"io"

	"github.com/routeguard/routeguard/internal/guard"
	"github.com/routeguard/routeguard/internal/manifest"
)

// readObjects decodes a YAML/JSON stream from r (named name in messages),
// up to limit bytes. It returns the bytes read too.
func readObjects(r io.Reader, name string, limit int64) (*manifest.Set, []byte, error) {
	data, err := readLimited(r, name, limit)
	if err != nil {
		return nil, nil, err
	}
	objs, err := manifest.Decode(name, data)
	if err != nil {
		return nil, nil, err
	}
	set := manifest.NewSet()
	if err := set.AddAll(objs); err != nil {
		return nil, nil, err
	}
	return set, data, nil
}

// readLimited reads r whole, refusing more than limit bytes.
func readLimited(r io.Reader, name string, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: larger than %d MiB; raise --max-file-size if this is intended", name, limit>>20)
	}
	guard.AddInput(len(data))
	return data, nil
}
