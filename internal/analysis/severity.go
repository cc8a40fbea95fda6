package analysis

import (
	"fmt"
	"strings"
)

// Severity ranks a finding. The zero value means "not set": the runner
// fills in the catalog's default for the finding's code.
type Severity int

// Severities, from least to most severe.
const (
	SeverityInfo Severity = iota + 1
	SeverityWarning
	SeverityError
)

// String returns "info", "warning" or "error".
func (s Severity) String() string {
	switch s {
	case SeverityInfo:
		return "info"
	case SeverityWarning:
		return "warning"
	case SeverityError:
		return "error"
	}
	return fmt.Sprintf("severity(%d)", int(s))
}

// ParseSeverity parses "info", "warning" or "error" (case-insensitive).
func ParseSeverity(s string) (Severity, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "info":
		return SeverityInfo, nil
	case "warning", "warn":
		return SeverityWarning, nil
	case "error":
		return SeverityError, nil
	}
	return 0, fmt.Errorf("unknown severity %q: use error, warning or info", s)
}

// MarshalText encodes the severity as its name.
func (s Severity) MarshalText() ([]byte, error) {
	if s < SeverityInfo || s > SeverityError {
		return nil, fmt.Errorf("invalid severity %d", int(s))
	}
	return []byte(s.String()), nil
}

// UnmarshalText decodes a severity name.
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}
