package cli

import (
	"fmt"
	"strconv"

	"github.com/routeguard/routeguard/internal/flux"
)

// strictFlag is --strict: true, false or auto (--strict alone is true).
type strictFlag struct{ p *flux.Strictness }

func (f strictFlag) String() string {
	if f.p == nil {
		return "auto"
	}
	switch *f.p {
	case flux.StrictOn:
		return "true"
	case flux.StrictOff:
		return "false"
	}
	return "auto"
}

func (f strictFlag) Set(s string) error {
	if s == "auto" {
		*f.p = flux.StrictAuto
		return nil
	}
	on, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("want true, false or auto")
	}
	*f.p = flux.StrictOff
	if on {
		*f.p = flux.StrictOn
	}
	return nil
}

// Type is bool's, so that help shows --strict as a switch.
func (f strictFlag) Type() string { return "bool" }
