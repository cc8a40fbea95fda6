package pipeline

import (
	"fmt"
	"path/filepath"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/config"
)

// LoadConfig reads explicit (a --config path), else the app's or the
// repository root's .routeguard.yaml, else returns the defaults.
func LoadConfig(explicit, appDir, repoRoot string) (*config.Config, error) {
	p := explicit
	if p == "" {
		found, ok := config.Find(appDir, repoRoot)
		if !ok {
			return &config.Config{}, nil
		}
		p = found
	}
	display := p
	if rel, err := filepath.Rel(repoRoot, p); err == nil && repoRoot != "" && filepath.IsLocal(rel) {
		display = filepath.ToSlash(rel)
	}
	return config.Load(p, display)
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
