package jsonschema

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"unicode"

	yaml "go.yaml.in/yaml/v3"

	"github.com/routeguard/routeguard/internal/config"
)

// ID is where the schema is published: the file at the tip of main. Pin a
// release in a modeline with .../<version>/schema/routeguard.schema.json.
const ID = "https://raw.githubusercontent.com/routeguard/routeguard/main/schema/routeguard.schema.json"

// object is a JSON Schema object; encoding/json writes its keys sorted, so
// the output is deterministic.
type object = map[string]any

// Generate returns the schema, indented, with a trailing newline. srcDir is
// internal/config, whose doc comments become the descriptions.
func Generate(srcDir string) ([]byte, error) {
	docs, err := readDocs(srcDir)
	if err != nil {
		return nil, err
	}
	g := &generator{docs: docs, defs: object{}, used: map[string]bool{}}
	root, err := g.structSchema(reflect.TypeOf(config.Config{}))
	if err != nil {
		return nil, err
	}
	for key := range rules {
		if !g.used[key] {
			return nil, fmt.Errorf("schema rule %q names no field of internal/config; update rules in rules.go", key)
		}
	}
	root["$schema"] = "http://json-schema.org/draft-07/schema#"
	root["$id"] = ID
	root["title"] = ".routeguard.yaml"
	if len(g.defs) > 0 {
		root["definitions"] = g.defs
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(root); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

type generator struct {
	docs typeDocs
	defs object
	used map[string]bool // rules applied
}

var unmarshalerType = reflect.TypeOf((*yaml.Unmarshaler)(nil)).Elem()

// structSchema describes a struct: one property per yaml-tagged field,
// nothing else allowed (config decodes with KnownFields).
func (g *generator) structSchema(t reflect.Type) (object, error) {
	props := object{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		// Keys only the operator's plugin catalog may hold: a repository's
		// .routeguard.yaml that sets them is refused (config.Parse).
		if name == "-" || !f.IsExported() || f.Tag.Get("scope") == "catalog" {
			continue
		}
		if name == "" {
			return nil, fmt.Errorf("%s.%s has no yaml tag", t.Name(), f.Name)
		}
		s, err := g.typeSchema(f.Type)
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", t.Name(), f.Name, err)
		}
		doc := g.docs.field(t.Name(), f.Name)
		if doc == "" {
			return nil, fmt.Errorf("%s.%s has no doc comment; it becomes the key's description in editors", t.Name(), f.Name)
		}
		s = withDescription(s, keyDoc(doc, f.Name, name))
		key := t.Name() + "." + f.Name
		if r, ok := rules[key]; ok {
			g.used[key] = true
			merge(s, r)
		}
		props[name] = s
	}
	s := object{"type": "object", "properties": props, "additionalProperties": false}
	if doc := g.docs.types[t.Name()]; doc != "" {
		s["description"] = doc
	}
	if r, ok := rules[t.Name()]; ok {
		g.used[t.Name()] = true
		merge(s, r)
	}
	return s, nil
}

var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

// typeSchema describes a field's type. Named structs go to definitions.
func (g *generator) typeSchema(t reflect.Type) (object, error) {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	// Typed scalars (analysis.FailOn, analysis.Severity) are written as
	// their text form.
	if reflect.PointerTo(t).Implements(textUnmarshaler) {
		return object{"type": "string"}, nil
	}
	switch t.Kind() {
	case reflect.String:
		return object{"type": "string"}, nil
	case reflect.Bool:
		return object{"type": "boolean"}, nil
	case reflect.Int, reflect.Int32, reflect.Int64:
		return object{"type": "integer"}, nil
	case reflect.Interface:
		return object{}, nil // any YAML value
	case reflect.Slice:
		items, err := g.typeSchema(t.Elem())
		if err != nil {
			return nil, err
		}
		return object{"type": "array", "items": items}, nil
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return nil, fmt.Errorf("map key %s is not a string", t.Key())
		}
		vals, err := g.typeSchema(t.Elem())
		if err != nil {
			return nil, err
		}
		return object{"type": "object", "additionalProperties": vals}, nil
	case reflect.Struct:
		name := t.Name()
		if _, done := g.defs[name]; !done {
			g.defs[name] = object{} // placeholder against recursion
			s, err := g.structSchema(t)
			if err != nil {
				return nil, err
			}
			if reflect.PointerTo(t).Implements(unmarshalerType) {
				// The type decodes itself: it takes other forms than the
				// mapping of its fields, which rules must spell out.
				alt, ok := scalarForms[name]
				if !ok {
					return nil, fmt.Errorf("%s decodes itself (UnmarshalYAML): describe its other forms in scalarForms (rules.go)", name)
				}
				desc := s["description"]
				delete(s, "description")
				s = object{"oneOf": []any{alt, s}}
				if desc != nil {
					s["description"] = desc
				}
			}
			g.defs[name] = s
		}
		return object{"$ref": "#/definitions/" + name}, nil
	}
	return nil, fmt.Errorf("no schema for Go type %s", t)
}

// withDescription sets a description; beside a $ref (which draft-07 says
// replaces its siblings) it wraps the reference in allOf.
func withDescription(s object, desc string) object {
	if _, ok := s["$ref"]; ok {
		return object{"allOf": []any{s}, "description": desc}
	}
	s["description"] = desc
	return s
}

// merge copies rule keys into s, descending into nested objects.
func merge(s, rule object) {
	for k, v := range rule {
		if sub, ok := v.(object); ok {
			if cur, ok := s[k].(object); ok {
				merge(cur, sub)
				continue
			}
		}
		s[k] = v
	}
}

// keyDoc turns a Go field comment ("FailOn is the severity ...") into a
// description of the YAML key ("The severity ...", or "failOn ..." when
// the sentence does not start with "is"/"are").
func keyDoc(doc, goName, key string) string {
	for _, verb := range []string{" is ", " are "} {
		if rest, ok := strings.CutPrefix(doc, goName+verb); ok && rest != "" {
			r := []rune(rest)
			r[0] = unicode.ToUpper(r[0])
			return string(r)
		}
	}
	if rest, ok := strings.CutPrefix(doc, goName+" "); ok {
		return key + " " + rest
	}
	return doc
}

// typeDocs holds the doc comments of internal/config's struct types and
// their fields.
type typeDocs struct {
	types  map[string]string
	fields map[string]map[string]string
}

func (d typeDocs) field(typ, field string) string { return d.fields[typ][field] }

func readDocs(dir string) (typeDocs, error) {
	d := typeDocs{types: map[string]string{}, fields: map[string]map[string]string{}}
	matches, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return d, err
	}
	sort.Strings(matches)
	fset := token.NewFileSet()
	for _, path := range matches {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return d, err
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, spec := range gd.Specs {
				ts := spec.(*ast.TypeSpec)
				st, ok := ts.Type.(*ast.StructType)
				if !ok {
					continue
				}
				doc := ts.Doc
				if doc == nil {
					doc = gd.Doc
				}
				d.types[ts.Name.Name] = clean(doc.Text())
				fields := map[string]string{}
				for _, fl := range st.Fields.List {
					text := fl.Doc.Text()
					if text == "" {
						text = fl.Comment.Text()
					}
					for _, n := range fl.Names {
						fields[n.Name] = clean(text)
					}
				}
				d.fields[ts.Name.Name] = fields
			}
		}
	}
	if len(d.fields["Config"]) == 0 {
		return d, fmt.Errorf("%s: no type Config found; give the directory of internal/config", dir)
	}
	return d, nil
}

// clean joins a comment's lines into one paragraph.
func clean(s string) string { return strings.Join(strings.Fields(s), " ") }
