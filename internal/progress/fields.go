package progress

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// reader keeps the first schema problem met while reading a file.
type reader struct{ err error }

// fail records a schema problem at path unless one is already recorded.
func (r *reader) fail(path, format string, args ...any) {
	if path == "" {
		path = "top level"
	}
	if r.err == nil {
		r.err = fmt.Errorf("%w: %s: %s", ErrSchema, path, fmt.Sprintf(format, args...))
	}
}

// object is a JSON object read field by field; keys keep the file's order.
type object struct {
	r    *reader
	path string
	keys []string
	vals map[string]json.RawMessage
}

var utf8BOM = []byte("\xef\xbb\xbf")

// parseRoot checks that data is JSON and that its top level is an object.
func parseRoot(data []byte) (*object, error) {
	data = bytes.TrimPrefix(data, utf8BOM)
	var raw json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, notJSON(err)
	}
	r := &reader{}
	root := decodeObject(r, "", raw)
	if root == nil {
		return nil, r.err
	}
	return root, nil
}

// notJSON wraps a JSON syntax error as ErrNotJSON with the hint.
func notJSON(err error) error { return &notJSONError{err: err} }

// notJSONError is ErrNotJSON with the JSON error (both reachable by
// errors.Is and errors.As) and where in the file it happened.
type notJSONError struct{ err error }

func (e *notJSONError) Error() string {
	at := ""
	var syn *json.SyntaxError
	if errors.As(e.err, &syn) {
		at = fmt.Sprintf(" at byte %d", syn.Offset)
	}
	return fmt.Sprintf("%v: %v%s (half-written? it will be read again when it changes)", ErrNotJSON, e.err, at)
}

func (e *notJSONError) Unwrap() []error { return []error{ErrNotJSON, e.err} }

// decodeObject reads raw as an object at path; nil (and a schema problem
// recorded) when raw is some other kind of value.
func decodeObject(r *reader, path string, raw json.RawMessage) *object {
	if k := kind(raw); k != "object" {
		r.fail(path, "want an object, got %s", k)
		return nil
	}
	o := &object{r: r, path: path, vals: map[string]json.RawMessage{}}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil { // '{'
		r.fail(path, "%v", err)
		return nil
	}
	for dec.More() {
		if !o.decodeMember(dec) {
			return nil
		}
	}
	return o
}

// decodeMember reads one "key": value pair of o from dec.
func (o *object) decodeMember(dec *json.Decoder) bool {
	tok, err := dec.Token()
	key, ok := tok.(string)
	var val json.RawMessage
	if err == nil && ok {
		err = dec.Decode(&val)
	}
	if err != nil || !ok {
		o.r.fail(o.path, "unreadable member")
		return false
	}
	if _, dup := o.vals[key]; !dup {
		o.keys = append(o.keys, key)
	}
	o.vals[key] = val
	return true
}

// kind names the kind of JSON value raw holds.
func kind(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// field returns the raw value of key and its path; ok is false when the key
// is absent or null.
func (o *object) field(key string) (json.RawMessage, string, bool) {
	if o == nil {
		return nil, "", false
	}
	raw, ok := o.vals[key]
	if !ok || kind(raw) == "null" {
		return nil, "", false
	}
	return raw, childPath(o.path, key), true
}

// childPath names key under parent; the top level's fields are named bare.
func childPath(parent, key string) string {
	if parent == "" {
		return key
	}
	return parent + "." + key
}

// has reports whether key is present and not null.
func (o *object) has(key string) bool {
	_, _, ok := o.field(key)
	return ok
}

// str reads a string field ("" when absent); a number is taken as its text.
func (o *object) str(key string) string {
	raw, path, ok := o.field(key)
	if !ok {
		return ""
	}
	switch kind(raw) {
	case "string":
		var s string
		_ = json.Unmarshal(raw, &s)
		return strings.TrimSpace(s)
	case "number":
		return string(bytes.TrimSpace(raw))
	}
	o.r.fail(path, "want a string, got %s", kind(raw))
	return ""
}

// number reads a numeric field (0 when absent).
func (o *object) number(key string) float64 {
	raw, path, ok := o.field(key)
	if !ok {
		return 0
	}
	if kind(raw) != "number" {
		o.r.fail(path, "want a number, got %s", kind(raw))
		return 0
	}
	f, err := strconv.ParseFloat(string(bytes.TrimSpace(raw)), 64)
	if err != nil {
		o.r.fail(path, "number out of range")
		return 0
	}
	return f
}

// integer reads a whole-number field from the first of keys present.
func (o *object) integer(keys ...string) int {
	for _, key := range keys {
		if !o.has(key) {
			continue
		}
		f := o.number(key)
		if f != math.Trunc(f) || math.Abs(f) > math.MaxInt32 {
			o.r.fail(childPath(o.path, key), "want a whole number, got %v", f)
			return 0
		}
		return int(f)
	}
	return 0
}

// strs reads a list of strings; a single string is a list of one.
func (o *object) strs(key string) []string {
	raw, path, ok := o.field(key)
	if !ok {
		return nil
	}
	switch kind(raw) {
	case "string":
		return nonEmpty([]string{o.str(key)})
	case "array":
		var items []json.RawMessage
		_ = json.Unmarshal(raw, &items)
		return o.stringItems(path, items)
	}
	o.r.fail(path, "want a list of strings, got %s", kind(raw))
	return nil
}

// stringItems reads each item of a list as a string.
func (o *object) stringItems(path string, items []json.RawMessage) []string {
	out := make([]string, 0, len(items))
	for i, item := range items {
		var s string
		if kind(item) != "string" || json.Unmarshal(item, &s) != nil {
			o.r.fail(fmt.Sprintf("%s[%d]", path, i), "want a string, got %s", kind(item))
			return nil
		}
		out = append(out, strings.TrimSpace(s))
	}
	return nonEmpty(out)
}

// list reads an array field's items (nil when absent).
func (o *object) list(key string) []json.RawMessage {
	raw, path, ok := o.field(key)
	if !ok {
		return nil
	}
	var items []json.RawMessage
	if kind(raw) != "array" || json.Unmarshal(raw, &items) != nil {
		o.r.fail(path, "want a list, got %s", kind(raw))
		return nil
	}
	return items
}

// obj reads an object field (nil when absent or null).
func (o *object) obj(key string) *object {
	raw, path, ok := o.field(key)
	if !ok {
		return nil
	}
	return decodeObject(o.r, path, raw)
}

// time reads a timestamp from the first of keys present: RFC 3339 and
// close variants, or Unix seconds or milliseconds. Text that is not a time
// (the seed's "ISO8601" placeholder) reads as zero; other kinds are a
// schema problem.
func (o *object) time(keys ...string) time.Time {
	for _, key := range keys {
		raw, path, ok := o.field(key)
		if !ok {
			continue
		}
		switch kind(raw) {
		case "string":
			return parseTime(o.str(key))
		case "number":
			return unixTime(o.number(key))
		}
		o.r.fail(path, "want a time, got %s", kind(raw))
		return time.Time{}
	}
	return time.Time{}
}

var timeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02T15:04Z07:00",
	"2006-01-02",
}

// parseTime reads s with the first layout that fits (zero if none).
func parseTime(s string) time.Time {
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t
		}
	}
	return time.Time{}
}

// unixTime reads f as Unix seconds, or milliseconds when it is too large
// to be seconds.
func unixTime(f float64) time.Time {
	switch {
	case f <= 0 || f > 1e15:
		return time.Time{}
	case f > 1e11:
		return time.UnixMilli(int64(f))
	}
	return time.Unix(int64(f), 0)
}

// nonEmpty drops empty strings, keeping nil for an empty result.
func nonEmpty(in []string) []string {
	var out []string
	for _, s := range in {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
