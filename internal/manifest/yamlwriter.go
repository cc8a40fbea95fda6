package manifest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// yamlWriter emits JSON-compatible values as block YAML in the style kubectl
// prints (keys sorted, list items at the parent's indentation). It is a
// purpose-built emitter: sigs.k8s.io/yaml round-trips every object through
// JSON and a generic YAML encoder and was the slowest stage of rendering
// (see BENCHMARKS.md). Strings are written plain only when no YAML 1.1 or
// 1.2 reader could take them for anything but the same string; otherwise
// they are double-quoted (or a literal block for multi-line text).
type yamlWriter struct {
	w *bufio.Writer
}

func (y *yamlWriter) indent(n int) {
	for i := 0; i < n; i++ {
		y.w.WriteByte(' ')
	}
}

// mapping writes m's entries at indentation ind. The first key is written
// without indentation when inline is set (after "- ").
func (y *yamlWriter) mapping(m map[string]any, ind int, inline bool) error {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		if i > 0 || !inline {
			y.indent(ind)
		}
		y.key(k)
		y.w.WriteByte(':')
		if err := y.value(m[k], ind, false); err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
	}
	return nil
}

// value writes v after a "key:" (inList false) or "-" (inList true).
func (y *yamlWriter) value(v any, ind int, inList bool) error {
	switch t := v.(type) {
	case map[string]any:
		if len(t) == 0 {
			y.w.WriteString(" {}\n")
			return nil
		}
		if inList {
			y.w.WriteByte(' ')
			return y.mapping(t, ind+2, true)
		}
		y.w.WriteByte('\n')
		return y.mapping(t, ind+2, false)
	case []any:
		if len(t) == 0 {
			y.w.WriteString(" []\n")
			return nil
		}
		if inList {
			// "- - a": a nested list starts on the same line.
			y.w.WriteByte(' ')
			return y.sequence(t, ind+2, true)
		}
		y.w.WriteByte('\n')
		return y.sequence(t, ind, false)
	default:
		y.w.WriteByte(' ')
		if err := y.scalar(v, ind); err != nil {
			return err
		}
		y.w.WriteByte('\n')
		return nil
	}
}

func (y *yamlWriter) sequence(s []any, ind int, inline bool) error {
	for i, it := range s {
		if i > 0 || !inline {
			y.indent(ind)
		}
		y.w.WriteByte('-')
		if err := y.value(it, ind, true); err != nil {
			return fmt.Errorf("[%d]: %w", i, err)
		}
	}
	return nil
}

func (y *yamlWriter) scalar(v any, ind int) error {
	switch t := v.(type) {
	case nil:
		y.w.WriteString("null")
	case string:
		y.scalarString(t, ind)
	case bool:
		y.w.WriteString(strconv.FormatBool(t))
	case int64:
		y.w.WriteString(strconv.FormatInt(t, 10))
	case int:
		y.w.WriteString(strconv.Itoa(t))
	case int32:
		y.w.WriteString(strconv.FormatInt(int64(t), 10))
	case float64:
		if math.IsInf(t, 0) || math.IsNaN(t) {
			return fmt.Errorf("value %v cannot be represented in JSON or Kubernetes YAML", t)
		}
		b, _ := json.Marshal(t)
		y.w.Write(b)
	case json.Number:
		y.w.WriteString(t.String())
	default:
		// Unusual types (from SDKs): fall back to their JSON form.
		b, err := json.Marshal(t)
		if err != nil {
			return err
		}
		var back any
		if err := json.Unmarshal(b, &back); err != nil {
			return err
		}
		if _, isScalar := back.(map[string]any); isScalar {
			return fmt.Errorf("unsupported value of type %T", v)
		}
		return y.scalar(back, ind)
	}
	return nil
}

func (y *yamlWriter) key(k string) {
	if isPlainSafe(k) {
		y.w.WriteString(k)
		return
	}
	y.doubleQuoted(k)
}

func (y *yamlWriter) scalarString(s string, ind int) {
	switch {
	case isPlainSafe(s):
		y.w.WriteString(s)
	case isLiteralBlockSafe(s):
		y.literalBlock(s, ind)
	default:
		y.doubleQuoted(s)
	}
}

func (y *yamlWriter) literalBlock(s string, ind int) {
	body := strings.TrimRight(s, "\n")
	content := body
	switch trailing := len(s) - len(body); {
	case trailing == 0:
		y.w.WriteString("|-")
	case trailing == 1:
		y.w.WriteString("|")
	default:
		// Keep chomping: the extra line breaks are content.
		y.w.WriteString("|+")
		content = s[:len(s)-1]
	}
	for _, l := range strings.Split(content, "\n") {
		y.w.WriteByte('\n')
		if l != "" {
			y.indent(ind + 2)
			y.w.WriteString(l)
		}
	}
}

func (y *yamlWriter) doubleQuoted(s string) {
	b, _ := json.Marshal(s) // JSON string escapes are valid YAML double-quoted escapes
	// json.Marshal escapes <, > and & as \u003c etc.: valid YAML, but keep
	// the text readable.
	out := strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(string(b))
	y.w.WriteString(out)
}

// Patterns for strings a YAML 1.1 or 1.2 reader resolves to non-strings.
var (
	numberLike    = regexp.MustCompile(`^[-+]?(\.[0-9_]+|[0-9][0-9_]*(\.[0-9_]*)?)([eE][-+]?[0-9]+)?$|^[-+]?0[xob][0-9a-fA-F_]+$|^[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?$|^[-+]?\.(inf|Inf|INF)$|^\.(nan|NaN|NAN)$`)
	timestampLike = regexp.MustCompile(`^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}`)
	reservedWords = map[string]bool{
		"y": true, "Y": true, "yes": true, "Yes": true, "YES": true, "n": true, "N": true, "no": true, "No": true, "NO": true,
		"true": true, "True": true, "TRUE": true, "false": true, "False": true, "FALSE": true,
		"on": true, "On": true, "ON": true, "off": true, "Off": true, "OFF": true,
		"null": true, "Null": true, "NULL": true, "~": true, "<<": true, "=": true,
	}
)

// isPlainSafe reports whether s can be written without quotes and read
// back as the same string by any YAML reader.
func isPlainSafe(s string) bool {
	if s == "" || reservedWords[s] || len(s) > 512 {
		return false
	}
	if s[0] == ' ' || s[len(s)-1] == ' ' || s[len(s)-1] == ':' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '-' || c == '_' || c == '.' || c == '/' || c == '+' || c == '=' || c == '(' || c == ')' || c == ',' || c == '$' || c == '^':
			if i == 0 && (c == '-' || c == ',' || c == '(' || c == ')') {
				// "-" starts a list item; keep the rest simple.
				return false
			}
		case c == ':':
			if i+1 < len(s) && s[i+1] == ' ' {
				return false
			}
		case c == ' ':
			if i+1 < len(s) && s[i+1] == '#' {
				return false
			}
		case c == '@' || c == '%' || c == '*' || c == '~' || c == '<' || c == '>':
			if i == 0 {
				return false
			}
		default:
			return false
		}
	}
	c0 := s[0]
	if (c0 >= '0' && c0 <= '9') || c0 == '+' || c0 == '-' || c0 == '.' {
		if numberLike.MatchString(s) || timestampLike.MatchString(s) {
			return false
		}
	}
	return true
}

// isLiteralBlockSafe reports whether a multi-line string survives a literal
// block scalar unchanged: printable lines, no trailing spaces, no leading
// space on the first line (it would set the indentation indicator).
func isLiteralBlockSafe(s string) bool {
	if !strings.Contains(strings.TrimRight(s, "\n"), "\n") || s[0] == ' ' || s[0] == '\n' {
		return false
	}
	for _, line := range strings.Split(s, "\n") {
		if strings.HasSuffix(line, " ") || strings.HasSuffix(line, "\t") {
			return false
		}
		for _, r := range line {
			if r == '\r' || r == '\ufeff' || (r < 0x20 && r != '\t') || r == 0x7f || r == 0x85 || r == 0x2028 || r == 0x2029 {
				return false
			}
		}
	}
	return true
}
