package pluginhost

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
)

// verify checks the binary's SHA-256 against the pinned one before the
// binary runs.
func verify(s *Spec) error {
	if s.Refused != nil {
		return s.Refused
	}
	if !s.Verify {
		return nil
	}
	got, err := fileSHA256(s.Path)
	if err != nil {
		return fmt.Errorf("refused to run %s: %w", s.Path, err)
	}
	if got != s.SHA256 {
		return fmt.Errorf("refused to run %s: its sha256 is %s, but %s is pinned; if the binary was updated on purpose, pin the new checksum",
			s.Path, got, s.SHA256)
	}
	return nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
