package argocd

import (
	"errors"
	"fmt"
	"strings"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/internal/manifest"
	"github.com/routeguard/routeguard/internal/notice"
)

// Carried is one Application's render in a form that can leave the
// process (a review's shard file, routeguard report merge) and come back
// as the same AppResult: its objects (every value with its Go type, so
// that a reused object compares equal to a rendered one), their field
// lines, its sources, error, unrendered scopes, routing files and the
// notices its render raised. The checkout's root in any text is written
// as RootToken and put back under the root of the process that reads it.
type Carried struct {
	Key          string                     `json:"key"`
	Status       string                     `json:"status"`
	Reused       bool                       `json:"reused,omitempty"`
	Parent       bool                       `json:"rendersApplications,omitempty"`
	Objects      []CarriedObject            `json:"objects,omitempty"`
	Failed       bool                       `json:"failed,omitempty"` // Set nil
	Err          string                     `json:"error,omitempty"`
	HasErr       bool                       `json:"hasError,omitempty"`
	Sources      []SourceResult             `json:"sources,omitempty"`
	Unrendered   []analysis.UnrenderedScope `json:"unrendered,omitempty"`
	RoutingFiles []string                   `json:"routingFiles,omitempty"`
	Notes        []notice.Notice            `json:"notes,omitempty"`
}

// CarriedObject is one rendered object (manifest.CarriedObject).
type CarriedObject = manifest.CarriedObject

// RootToken stands for the checkout's root in carried text.
const RootToken = manifest.RootToken

// Carry makes the carried form of a, whose render read the checkout at
// root.
func Carry(a *AppResult, root string) (Carried, error) {
	c := Carried{Key: a.App.Key(), Status: a.Status(), Reused: a.Reused, Failed: a.Set == nil,
		Sources: a.Sources, RoutingFiles: a.RoutingFiles}
	sub := func(s string) string { return strings.ReplaceAll(s, root, RootToken) }
	if a.Err != nil {
		c.HasErr, c.Err = true, sub(a.Err.Error())
	}
	for _, u := range a.Unrendered {
		u.Reason = sub(u.Reason)
		c.Unrendered = append(c.Unrendered, u)
	}
	for _, n := range a.notes {
		c.Notes = append(c.Notes, notice.Notice{Level: n.Level, Text: sub(n.Text)})
	}
	if a.Set != nil {
		for _, o := range a.Set.Objects() {
			if o.Kind == "Application" || o.Kind == "ApplicationSet" {
				c.Parent = true
			}
			co, err := manifest.Carry(o, root)
			if err != nil {
				return c, fmt.Errorf("Application %s: %w", c.Key, err)
			}
			c.Objects = append(c.Objects, co)
		}
	}
	return c, nil
}

// Result is the AppResult c carries for app, at the checkout root.
func (c Carried) Result(app *Application, root string) (*AppResult, error) {
	put := func(s string) string { return strings.ReplaceAll(s, RootToken, root) }
	r := &AppResult{App: app, Sources: c.Sources, RoutingFiles: c.RoutingFiles, Reused: c.Reused}
	if c.HasErr {
		r.Err = errors.New(put(c.Err))
	}
	for _, u := range c.Unrendered {
		u.Reason = put(u.Reason)
		r.Unrendered = append(r.Unrendered, u)
	}
	for _, n := range c.Notes {
		r.notes = append(r.notes, notice.Notice{Level: n.Level, Text: put(n.Text)})
	}
	if c.Failed {
		return r, nil
	}
	r.Set = manifest.NewSet()
	for i, co := range c.Objects {
		o, err := co.Object(root)
		if err != nil {
			return nil, fmt.Errorf("Application %s, object %d: %w", c.Key, i+1, err)
		}
		if err := r.Set.Add(o); err != nil {
			return nil, fmt.Errorf("Application %s: %w", c.Key, err)
		}
	}
	if st := r.Status(); st != c.Status {
		return nil, fmt.Errorf("Application %s: status %s, but its parts say %s", c.Key, c.Status, st)
	}
	return r, nil
}
