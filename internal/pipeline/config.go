package pipeline

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/config"
	"github.com/routeguard/routeguard/internal/confine"
)

// maxConfigBytes caps a .routeguard.yaml.
const maxConfigBytes = 1 << 20

// LoadConfig reads explicit (a --config path, given by whoever runs
// routeguard, so read as it is), else the app's or the repository root's
// .routeguard.yaml (read through the confined repository root: a config
// that is a symlink out of the repository is an error, never read), else
// returns the defaults.
func LoadConfig(explicit, appDir, repoRoot string) (*config.Config, error) {
	return loadConfig(explicit, appDir, repoRoot, nil)
}

// loadConfig is LoadConfig recording the files it looks for into trace.
func loadConfig(explicit, appDir, repoRoot string, trace *confine.Trace) (*config.Config, error) {
	if explicit != "" {
		data, err := os.ReadFile(explicit)
		if err != nil {
			return nil, fmt.Errorf("--config: %w", err)
		}
		return config.Parse(explicit, data)
	}
	if repoRoot == "" {
		return &config.Config{}, nil
	}
	root, err := confine.Open(repoRoot)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	root.SetTrace(trace)
	for _, dir := range []string{appDir, repoRoot} {
		if dir == "" {
			continue
		}
		for _, n := range config.FileNames {
			p := filepath.Join(dir, n)
			data, err := root.ReadFile(p, maxConfigBytes)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, err
			}
			return config.Parse(root.Display(p), data)
		}
	}
	return &config.Config{}, nil
}

// Settings turns the configuration into analysis settings.
func Settings(cfg *config.Config) (analysis.Settings, error) {
	var s analysis.Settings
	if len(cfg.Severity) > 0 {
		s.Severity = make(map[string]analysis.Severity, len(cfg.Severity))
		for code, sev := range cfg.Severity {
			s.Severity[code] = sev
		}
	}
	for _, sup := range cfg.Suppress {
		s.Suppress = append(s.Suppress, analysis.Suppression{Code: sup.Code, Object: sup.Object, Reason: sup.Reason})
	}
	if err := s.Validate(); err != nil {
		return s, fmt.Errorf("%s: %w", cfg.File, err)
	}
	return s, nil
}
