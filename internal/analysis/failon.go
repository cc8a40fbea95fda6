package analysis

import (
	"fmt"
	"strings"
)

// FailOn is the lowest severity that fails a run. The zero value means
// "not set" (a caller falls back to the next source, then to error);
// FailOnNever fails on nothing.
type FailOn int

// The thresholds users can name.
const (
	FailOnUnset   FailOn = 0
	FailOnInfo    FailOn = FailOn(SeverityInfo)
	FailOnWarning FailOn = FailOn(SeverityWarning)
	FailOnError   FailOn = FailOn(SeverityError)
	FailOnNever   FailOn = FailOn(SeverityError + 1)
)

// FailOnNames lists the names ParseFailOn accepts, for help texts.
var FailOnNames = []string{"error", "warning", "never"}

// ParseFailOn parses "error", "warning" or "never" (case-insensitive).
// "" parses as FailOnUnset.
func ParseFailOn(s string) (FailOn, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "":
		return FailOnUnset, nil
	case "error":
		return FailOnError, nil
	case "warning", "warn":
		return FailOnWarning, nil
	case "never":
		return FailOnNever, nil
	}
	return FailOnUnset, fmt.Errorf("must be error, warning or never, got %q", s)
}

// Or returns f, or the first set fallback, or FailOnError.
func (f FailOn) Or(fallbacks ...FailOn) FailOn {
	if f != FailOnUnset {
		return f
	}
	for _, fb := range fallbacks {
		if fb != FailOnUnset {
			return fb
		}
	}
	return FailOnError
}

// Fails reports whether a run whose highest finding is max fails (an unset
// threshold counts as error).
func (f FailOn) Fails(max Severity) bool {
	return max > 0 && int(max) >= int(f.Or())
}

// String returns the threshold's name ("" when unset).
func (f FailOn) String() string {
	switch f {
	case FailOnUnset:
		return ""
	case FailOnNever:
		return "never"
	}
	return Severity(f).String()
}

// MarshalText encodes the threshold as its name.
func (f FailOn) MarshalText() ([]byte, error) { return []byte(f.String()), nil }

// UnmarshalText decodes a threshold name.
func (f *FailOn) UnmarshalText(b []byte) error {
	v, err := ParseFailOn(string(b))
	if err != nil {
		return err
	}
	*f = v
	return nil
}
