// Package config loads teamlead's YAML files (team, presets) strictly:
// an unknown key, a duplicate name or a bad value is an error that names the
// file, the line and the field, and says what to do.
package config

import (
	"errors"
	"fmt"
	"github.com/teamlead/teamlead/internal/config/fielderr"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/teamlead/teamlead/internal/permit"
	"github.com/teamlead/teamlead/internal/textdist"
)

// The errors of config files are defined in fielderr, which the
// configuration readers outside this package (questions' answerers.yaml)
// share without linking the presets and the terminal emulator.
var (
	// ErrInvalid is wrapped by every validation error of a config file.
	ErrInvalid = fielderr.ErrInvalid
	// SyntaxError turns a YAML syntax error into a FieldError at the real line.
	SyntaxError = fielderr.SyntaxError
)

// FieldError is a problem at one place of a config file.
type FieldError = fielderr.FieldError

// decodeStrict decodes the YAML document data into out (a pointer to a
// struct), first checking every mapping key against the yaml tags of the
// struct it lands in, so that a typo is reported with its line instead of
// being silently ignored, and every value against the type of its field, so
// that a value of the wrong kind is reported with its field and what is
// expected. It reports every such problem, not only the first.
// It returns the document's root node, also with an error when the
// document could be parsed, so callers can find the line of a value they
// reject after decoding; out holds what could be decoded.
func decodeStrict(file string, data []byte, out any) (*yaml.Node, error) {
	root, errs := decodeAll(file, data, out)
	if len(errs) > 0 {
		return root, errors.Join(errs...)
	}
	return root, nil
}

// decodeAll is decodeStrict returning the problems as a list.
func decodeAll(file string, data []byte, out any) (*yaml.Node, []error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, []error{SyntaxError(file, data, err)}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, []error{&FieldError{File: file, Line: 1, Field: "(file)", Msg: "the file is empty"}}
	}
	root := doc.Content[0]
	w := &walker{file: file}
	w.check(root, reflect.TypeOf(out).Elem(), "")
	if root.Kind == yaml.MappingNode {
		if err := root.Decode(out); err != nil {
			w.typeErrors(err)
		}
	}
	return root, w.errs
}

// problems collects the problems of a team and its files: one per field
// (a field whose value could not be read is not also reported as missing).
type problems struct {
	list     []error
	warnings []error
	fields   map[string]bool
	team     *Team // what readTeam read // file + "\x00" + field
}

// warn adds a warning unless its field has a problem already.
func (p *problems) warn(w *Warning) {
	if !p.fields[w.File+"\x00"+w.Field] {
		p.warnings = append(p.warnings, w)
	}
}

// add adds the non-nil errors of errs.
func (p *problems) add(errs ...error) {
	for _, err := range errs {
		if err == nil {
			continue
		}
		var fe *FieldError
		if errors.As(err, &fe) && fe.Field != "" {
			key := fe.File + "\x00" + fe.Field
			if p.fields[key] {
				continue
			}
			if p.fields == nil {
				p.fields = map[string]bool{}
			}
			p.fields[key] = true
		}
		p.list = append(p.list, err)
	}
}

// sort orders the problems by file, in the order the files were first met,
// then by line.
func (p *problems) sort() {
	order := map[string]int{}
	file := func(err error) (string, int) {
		f, l := Where(err)
		if _, ok := order[f]; !ok {
			order[f] = len(order)
		}
		return f, l
	}
	for _, err := range p.list {
		file(err)
	}
	for _, err := range p.warnings {
		file(err)
	}
	cmp := func(a, b error) int {
		fa, la := file(a)
		fb, lb := file(b)
		if c := order[fa] - order[fb]; c != 0 {
			return c
		}
		return la - lb
	}
	slices.SortStableFunc(p.list, cmp)
	slices.SortStableFunc(p.warnings, cmp)
}

// Where returns the file and line a problem names, if it names one.
func Where(err error) (string, int) {
	var w *Warning
	if errors.As(err, &w) {
		return w.File, w.Line
	}
	var fe *FieldError
	if errors.As(err, &fe) {
		return fe.File, fe.Line
	}
	var pe *permit.PolicyError
	if errors.As(err, &pe) {
		return pe.File, pe.Line
	}
	return "", 0
}

// lineOf returns the line of key inside mapping n (or of n itself).
func lineOf(n *yaml.Node, key string) int {
	if n == nil {
		return 0
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i].Line
		}
	}
	return n.Line
}

// Child returns the value node of key inside mapping n, or nil (for the
// checks of other packages' YAML files).
func Child(n *yaml.Node, key string) *yaml.Node { return child(n, key) }

// child returns the value node of key inside mapping n, or nil.
func child(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// walker checks a YAML tree against the Go type it decodes into,
// collecting every problem.
type walker struct {
	file string
	errs []error
	bad  map[int]bool // lines with a problem
}

func (w *walker) fail(line int, field, msg string) {
	w.errs = append(w.errs, &FieldError{File: w.file, Line: line, Field: field, Msg: msg})
	if w.bad == nil {
		w.bad = map[int]bool{}
	}
	w.bad[line] = true
}

var durationType = reflect.TypeOf(time.Duration(0))

// check reports the unknown and repeated keys under n, and the values that
// do not fit the type t of the field at path.
func (w *walker) check(n *yaml.Node, t reflect.Type, path string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		n = n.Alias
	}
	if n == nil || n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return // no value: the field keeps its default
	}
	if t == durationType {
		w.scalar(n, t, path, "a duration like 30s or 5m")
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			w.fail(n.Line, orRoot(path), "expected a mapping of keys to values (key: value, on the lines below, indented), got "+describe(n))
			return
		}
		fields := yamlFields(t)
		seen := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			f, ok := fields[k.Value]
			if !ok {
				w.fail(k.Line, join(path, k.Value), "unknown field; "+didYouMean(k.Value, fields)+"known fields are "+strings.Join(sortedKeys(fields), ", "))
				continue
			}
			if prev, dup := seen[k.Value]; dup {
				w.fail(k.Line, join(path, k.Value), fmt.Sprintf("given twice (first on line %d)", prev))
				continue
			}
			seen[k.Value] = k.Line
			w.check(v, f.Type, join(path, k.Value))
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return
		}
		if n.Kind != yaml.SequenceNode {
			w.fail(n.Line, path, "expected "+listOf(path, t)+", got "+describe(n))
			return
		}
		for i, c := range n.Content {
			w.check(c, t.Elem(), fmt.Sprintf("%s[%d]", path, i))
		}
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			w.fail(n.Line, path, "expected a mapping of names to values (name: value, on the lines below, indented), got "+describe(n))
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			w.check(n.Content[i+1], t.Elem(), join(path, n.Content[i].Value))
		}
	case reflect.String:
		w.scalar(n, t, path, "a single value")
	case reflect.Bool:
		w.scalar(n, t, path, "true or false")
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		w.scalar(n, t, path, "a whole number like 120")
	case reflect.Float32, reflect.Float64:
		w.scalar(n, t, path, "a number like 10 or 0.5")
	}
}

// scalar reports n unless it is a single value that decodes into t.
func (w *walker) scalar(n *yaml.Node, t reflect.Type, path, want string) {
	if n.Kind == yaml.ScalarNode && n.Decode(reflect.New(t).Interface()) == nil {
		return
	}
	msg := "expected " + want + ", got " + describe(n)
	if t == durationType && n.Kind == yaml.ScalarNode && (n.Tag == "!!int" || n.Tag == "!!float") {
		msg += " (a number needs a unit: s, m or h, as in " + n.Value + "s)"
	}
	w.fail(n.Line, path, msg)
}

// listOf says what list a field of type t at path takes.
func listOf(path string, t reflect.Type) string {
	if t.Elem().Kind() != reflect.String {
		return "a list (one - item per line, or [a, b])"
	}
	if strings.HasSuffix(path, "command") || strings.HasSuffix(path, "notify") || strings.HasSuffix(path, "flag") {
		return `a list of words like [sh, -c, "..."]`
	}
	return "a list like [a, b]"
}

// describe says what a value of the file is, for messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping (key: value)"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!int", "!!float":
			return "the number " + n.Value
		case "!!bool":
			return "the value " + n.Value
		}
		return fmt.Sprintf("the string %q", n.Value)
	}
	return "something else"
}

// didYouMean suggests the known field closest to a misspelt key, as
// "did you mean command? ", or "".
func didYouMean[V any](key string, known map[string]V) string {
	best, bestD := "", 3
	for k := range known {
		if d := textdist.Levenshtein(strings.ToLower(key), k); d < bestD || d == bestD && best != "" && k < best {
			best, bestD = k, d
		}
	}
	if best == "" || bestD > 2 || bestD >= len(key) {
		return ""
	}
	return "did you mean " + best + "? "
}

// typeErrors adds yaml's "line N: cannot unmarshal ..." errors on lines the
// walk has not reported (it should report them all; this is a safety net).
func (w *walker) typeErrors(err error) {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		w.errs = append(w.errs, &FieldError{File: w.file, Line: 1, Msg: "cannot read the file: " + err.Error()})
		return
	}
	for _, msg := range te.Errors {
		line := 0
		if _, scanErr := fmt.Sscanf(msg, "line %d:", &line); scanErr == nil {
			msg = strings.TrimSpace(msg[strings.Index(msg, ":")+1:])
		}
		if w.bad[line] {
			continue
		}
		w.fail(line, "", "this value does not fit its field: "+msg)
	}
}

func yamlFields(t reflect.Type) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out[name] = f
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func orRoot(path string) string {
	if path == "" {
		return "(top level)"
	}
	return path
}
