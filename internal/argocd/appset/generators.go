package appset

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/jeremywohl/flatten"
	"sigs.k8s.io/yaml"
)

// list is Argo CD's ListGenerator: elements as they are (Go templates) or
// as flat string parameters ("values.<k>" for the values map), then the
// elements of elementsYaml.
func (x *expander) list(body map[string]any) ([]map[string]any, error) {
	var elements []any
	if raw, ok := body["elements"]; ok && raw != nil {
		if elements, ok = raw.([]any); !ok {
			return nil, errors.New("list generator: elements must be a list")
		}
	}
	res := make([]map[string]any, len(elements))
	for i, el := range elements {
		element, ok := el.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("error unmarshling list element: element %d is not an object", i)
		}
		element = deepCopy(element).(map[string]any)
		if x.spec.GoTemplate {
			res[i] = element
			continue
		}
		params := map[string]any{}
		for key, value := range element {
			if key == "values" {
				values, ok := value.(map[string]any)
				if !ok {
					return nil, errors.New("error parsing values map")
				}
				for k, v := range values {
					s, ok := v.(string)
					if !ok {
						return nil, fmt.Errorf("error parsing value as string: values.%s of element %d", k, i)
					}
					params["values."+k] = s
				}
			} else {
				s, ok := value.(string)
				if !ok {
					return nil, fmt.Errorf("error parsing value as string: %s of element %d", key, i)
				}
				params[key] = s
			}
			res[i] = params
		}
	}
	if s, _ := body["elementsYaml"].(string); s != "" {
		var more []map[string]any
		if err := yaml.Unmarshal([]byte(s), &more); err != nil {
			return nil, fmt.Errorf("error unmarshling decoded ElementsYaml %w", err)
		}
		res = append(res, more...)
	}
	return res, nil
}

// git is Argo CD's GitGenerator over this checkout.
func (x *expander) git(body map[string]any) ([]map[string]any, error) {
	repoURL, _ := body["repoURL"].(string)
	if x.env.Repo == nil || !x.env.Repo.IsThis(repoURL) {
		return nil, &UnsupportedError{Generator: "git", Reason: fmt.Sprintf("its repoURL %q is not this repository", repoURL)}
	}
	prefix, _ := body["pathParamPrefix"].(string)
	values, _ := body["values"].(map[string]any)
	dirs, _ := body["directories"].([]any)
	files, _ := body["files"].([]any)
	switch {
	case len(dirs) != 0:
		return x.gitDirectories(dirs, prefix, values)
	case len(files) != 0:
		return x.gitFiles(files, prefix, values)
	}
	return nil, errEmpty
}

type pathItem struct {
	Path    string `json:"path"`
	Exclude bool   `json:"exclude,omitempty"`
}

func pathItems(list []any) ([]pathItem, error) {
	data, err := json.Marshal(list)
	if err != nil {
		return nil, err
	}
	var items []pathItem
	if err := json.Unmarshal(data, &items); err != nil {
		return nil, fmt.Errorf("git generator: %w", err)
	}
	return items, nil
}

func (x *expander) gitDirectories(list []any, prefix string, values map[string]any) ([]map[string]any, error) {
	items, err := pathItems(list)
	if err != nil {
		return nil, err
	}
	all, err := x.env.Repo.Directories()
	if err != nil {
		return nil, fmt.Errorf("error getting directories from repo: %w", err)
	}
	var requested []string
	for _, p := range all {
		include, exclude := false, false
		for _, it := range items {
			match, err := path.Match(it.Path, p)
			if err != nil {
				continue
			}
			if match && !it.Exclude {
				include = true
			}
			if match && it.Exclude {
				exclude = true
			}
		}
		if include && !exclude {
			requested = append(requested, p)
		}
	}
	res := make([]map[string]any, len(requested))
	for i, a := range requested {
		params := map[string]any{}
		if x.spec.GoTemplate {
			pp := map[string]any{
				"path":               a,
				"basename":           path.Base(a),
				"basenameNormalized": SanitizeName(path.Base(a)),
				"segments":           strings.Split(a, "/"),
			}
			if prefix != "" {
				params[prefix] = map[string]any{"path": pp}
			} else {
				params["path"] = pp
			}
		} else {
			name := "path"
			if prefix != "" {
				name = prefix + "." + name
			}
			params[name] = a
			params[name+".basename"] = path.Base(a)
			params[name+".basenameNormalized"] = SanitizeName(path.Base(a))
			for k, v := range strings.Split(a, "/") {
				if v != "" {
					params[name+"["+strconv.Itoa(k)+"]"] = v
				}
			}
		}
		if err := x.appendValues(values, params); err != nil {
			return nil, fmt.Errorf("failed to append templated values: %w", err)
		}
		res[i] = params
	}
	return res, nil
}

func (x *expander) gitFiles(list []any, prefix string, values map[string]any) ([]map[string]any, error) {
	items, err := pathItems(list)
	if err != nil {
		return nil, err
	}
	contents := map[string][]byte{}
	for _, it := range items {
		if it.Exclude {
			continue
		}
		got, err := x.env.Repo.Files(it.Path, x.env.NewGitFileGlobbing)
		if err != nil {
			return nil, err
		}
		maps.Copy(contents, got)
	}
	for _, it := range items {
		if !it.Exclude {
			continue
		}
		got, err := x.env.Repo.Files(it.Path, x.env.NewGitFileGlobbing)
		if err != nil {
			return nil, err
		}
		for p := range got {
			delete(contents, p)
		}
	}
	var all []map[string]any
	for _, p := range slices.Sorted(maps.Keys(contents)) {
		ps, err := x.paramsFromFile(p, contents[p], prefix, values)
		if err != nil {
			return nil, fmt.Errorf("unable to process file '%s': %w", p, err)
		}
		all = append(all, ps...)
	}
	return all, nil
}

func (x *expander) paramsFromFile(file string, content []byte, prefix string, values map[string]any) ([]map[string]any, error) {
	var found []map[string]any
	single := map[string]any{}
	if err := yaml.Unmarshal(content, &single); err == nil {
		found = append(found, single)
	} else if err := yaml.Unmarshal(content, &found); err != nil {
		return nil, fmt.Errorf("unable to parse file: %w", err)
	}
	var res []map[string]any
	for _, obj := range found {
		params := map[string]any{}
		dir := path.Dir(file)
		if x.spec.GoTemplate {
			maps.Copy(params, obj)
			pp := map[string]any{
				"path":               dir,
				"basename":           path.Base(dir),
				"filename":           path.Base(file),
				"basenameNormalized": SanitizeName(path.Base(dir)),
				"filenameNormalized": SanitizeName(path.Base(file)),
				"segments":           strings.Split(dir, "/"),
			}
			if prefix != "" {
				params[prefix] = map[string]any{"path": pp}
			} else {
				params["path"] = pp
			}
		} else {
			flat, err := flatten.Flatten(obj, "", flatten.DotStyle)
			if err != nil {
				return nil, fmt.Errorf("error flattening object: %w", err)
			}
			for k, v := range flat {
				params[k] = fmt.Sprintf("%v", v)
			}
			name := "path"
			if prefix != "" {
				name = prefix + "." + name
			}
			params[name] = dir
			params[name+".basename"] = path.Base(dir)
			params[name+".filename"] = path.Base(file)
			params[name+".basenameNormalized"] = SanitizeName(path.Base(dir))
			params[name+".filenameNormalized"] = SanitizeName(path.Base(file))
			for k, v := range strings.Split(dir, "/") {
				if v != "" {
					params[name+"["+strconv.Itoa(k)+"]"] = v
				}
			}
		}
		if err := x.appendValues(values, params); err != nil {
			return nil, fmt.Errorf("failed to append templated values: %w", err)
		}
		res = append(res, params)
	}
	return res, nil
}

// clusters is Argo CD's ClusterGenerator over the given clusters: those
// the selector matches, then the local cluster when no selector is set and
// no given cluster is it.
// clusterSecretTypeLabel marks the Secrets that are Argo CD clusters.
const clusterSecretTypeLabel = "argocd.argoproj.io/secret-type"

func (x *expander) clusters(body map[string]any) ([]map[string]any, error) {
	if !x.env.ClustersKnown {
		return nil, &UnsupportedError{Generator: "clusters", Reason: "the clusters Argo CD knows are not given (pass them with --cluster NAME=SERVER)"}
	}
	var sel *selector
	ignoreLocal := false
	if raw, ok := body["selector"]; ok && raw != nil {
		var err error
		if sel, err = parseSelector(raw); err != nil {
			return nil, fmt.Errorf("error converting label selector: %w", err)
		}
		ignoreLocal = !sel.empty()
	}
	values, _ := body["values"].(map[string]any)
	flat, _ := body["flatList"].(bool)
	var out []map[string]any
	hasLocal := false
	for _, c := range x.env.Clusters {
		if c.Server == InClusterServer {
			hasLocal = true
		}
		// Every cluster Argo CD knows is a Secret labelled
		// argocd.argoproj.io/secret-type: cluster; selectors and
		// metadata.labels see that label too.
		labels := maps.Clone(c.Labels)
		if labels == nil {
			labels = map[string]string{}
		}
		labels[clusterSecretTypeLabel] = "cluster"
		if sel != nil && !sel.matches(labels) {
			continue
		}
		params := map[string]any{"name": c.Name, "nameNormalized": SanitizeName(c.Name), "server": c.Server, "project": c.Project}
		if x.spec.GoTemplate {
			meta := map[string]any{}
			if len(c.Annotations) > 0 {
				meta["annotations"] = maps.Clone(c.Annotations)
			}
			meta["labels"] = labels
			params["metadata"] = meta
		} else {
			for k, v := range c.Annotations {
				params["metadata.annotations."+k] = v
			}
			for k, v := range labels {
				params["metadata.labels."+k] = v
			}
		}
		if err := x.appendValues(values, params); err != nil {
			return nil, fmt.Errorf("error appending templated values for cluster: %w", err)
		}
		out = append(out, params)
	}
	if !ignoreLocal && !hasLocal {
		params := map[string]any{"name": InClusterName, "nameNormalized": InClusterName, "server": InClusterServer, "project": ""}
		if err := x.appendValues(values, params); err != nil {
			return nil, fmt.Errorf("error appending templated values for local cluster: %w", err)
		}
		out = append(out, params)
	}
	if flat {
		items := make([]any, len(out))
		for i, p := range out {
			items[i] = p
		}
		out = []map[string]any{{"clusters": items}}
	}
	return out, nil
}
