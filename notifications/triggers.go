package notifications

import (
	"fmt"
	"io/fs"
	"path"
	"strings"

	"sigs.k8s.io/yaml"
)

// Trigger is one Argo CD trigger routeguard ships (argocd/triggers/<Name>.yaml):
// the table of triggers in docs/notifications.md is generated from these.
type Trigger struct {
	Name       string
	Conditions []Condition
}

// Condition is one condition of a trigger, as Argo CD reads it.
type Condition struct {
	Description string   `json:"description"`
	When        string   `json:"when"`
	OncePer     string   `json:"oncePer,omitempty"`
	Send        []string `json:"send"`
}

// Triggers returns the triggers of argocd/triggers, by name. A condition
// without a description, a when or a template to send, or sending a template
// argocd/templates does not hold, is an error naming the file.
func Triggers() ([]Trigger, error) { return triggersIn(argocdFS) }

func triggersIn(fsys fs.FS) ([]Trigger, error) {
	entries, err := fs.ReadDir(fsys, "argocd/triggers")
	if err != nil {
		return nil, fmt.Errorf("read argocd/triggers: %w", err)
	}
	var out []Trigger
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".yaml") {
			continue
		}
		file := path.Join("argocd/triggers", e.Name())
		raw, err := fs.ReadFile(fsys, file)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", file, err)
		}
		tr := Trigger{Name: strings.TrimSuffix(e.Name(), ".yaml")}
		if err := yaml.UnmarshalStrict(raw, &tr.Conditions); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if len(tr.Conditions) == 0 {
			return nil, fmt.Errorf("%s: no condition: a trigger is a list of {description, when, oncePer, send}", file)
		}
		for i, c := range tr.Conditions {
			if c.Description == "" || c.When == "" || len(c.Send) == 0 {
				return nil, fmt.Errorf("%s: condition %d needs a description, a when and a template to send", file, i+1)
			}
			for _, s := range c.Send {
				if _, err := fs.Stat(fsys, "argocd/templates/"+s+".yaml"); err != nil {
					return nil, fmt.Errorf("%s: condition %d sends %q, but argocd/templates/%s.yaml does not exist", file, i+1, s, s)
				}
			}
		}
		out = append(out, tr)
	}
	return out, nil
}
